"""Numba's memory names on numfuse arrays: to_device, device_array, device_array_like and
copy_to_host. A numfuse array is the device array (on the GPU, or on the CPU when simulating)."""
import numpy as np

from .._core import ndarray
from .._creation import asarray, empty
from ._simulation import simulating


def _device():
    return "cpu" if simulating() else "cuda"


def to_device(obj, stream=0, copy=True, to=None):
    """A device copy of a NumPy array (to: an existing device array to copy into)."""
    if to is not None:
        to[...] = asarray(np.asarray(obj), device=to.device)
        return to
    return asarray(np.array(obj, copy=True), device=_device())


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array."""
    if strides is not None:
        raise NotImplementedError("device_array(strides=) is not supported; use order=")
    return empty(shape, dtype, order=order, device=_device())


def device_array_like(ary, stream=0):
    """An uninitialised device array of ary's shape and dtype."""
    return device_array(ary.shape, ary.dtype, order="F" if (ary.flags.f_contiguous and
                                                             not ary.flags.c_contiguous) else "C")


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array (pinned on Numba; plain NumPy memory here)."""
    return np.empty(shape, dtype, order=order)


def copy_to_host(self, ary=None, stream=0):
    """Numba's DeviceNDArray.copy_to_host: a NumPy copy (or written into ary)."""
    host = self.get() if self.device != "cpu" else np.array(self)
    if ary is None:
        return host
    ary[...] = host
    return ary


def copy_to_device(self, ary, stream=0):
    """Numba's DeviceNDArray.copy_to_device: copies host data into this array."""
    self[...] = asarray(np.asarray(ary), device=self.device)


def is_cuda_array(obj):
    return isinstance(obj, ndarray) or hasattr(obj, "__cuda_array_interface__")


def attach_methods(ndarray):
    """copy_to_host / copy_to_device on numfuse arrays (the stand-ins of Numba's device arrays)."""
    if not hasattr(ndarray, "copy_to_host"):
        ndarray.copy_to_host = copy_to_host
    if not hasattr(ndarray, "copy_to_device"):
        ndarray.copy_to_device = copy_to_device


