"""numfuse.cuda.runtime: CuPy's runtime functions (cupy.cuda.runtime) over the driver API."""
from .._core import cuda as _c


def getDeviceCount():
    """Number of CUDA devices; CUDAError when CUDA is not usable here."""
    return _c.device_count()


def getDeviceProperties(device):
    """Properties of a device as a dict with CuPy's keys (name is bytes)."""
    return _c.device_properties(int(device))


def getDevice():
    return _c.get_device()


def setDevice(device):
    _c.set_device(int(device))


def deviceSynchronize():
    _c.synchronize(-1)


def driverGetVersion():
    return _c.driver_version()


def memGetInfo():
    """(free, total) bytes of the current device."""
    return _c.device_mem_info(_c.get_device())
