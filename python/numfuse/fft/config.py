"""numfuse.fft.config: cuFFT's plan cache, under CuPy's names (cupy.fft.config).

get_plan_cache() returns the cache of the current CUDA device: plans keyed by (shape, batch,
type, device), kept least-recently-used first out, within a count (set_size) and a byte limit of
the plans' work areas (set_memsize; -1: no limit). On a machine without CUDA the cache exists and
stays empty.
"""
from .. import _core
from .. import cuda

__all__ = ["get_plan_cache", "PlanCache", "set_plan_cache_size", "get_plan_cache_size",
           "set_plan_cache_max_memsize", "get_plan_cache_max_memsize", "show_plan_cache_info"]


class PlanCache:
    """The cuFFT plan cache of one device (cupy.fft._cache.PlanCache's interface)."""

    def __init__(self, device=0):
        self._device = int(device)

    def get_size(self):
        return _core.fft_plan_cache_info(self._device)["size"]

    def set_size(self, size):
        _core.fft_plan_cache_set_limits(self._device, int(size), None)

    def get_memsize(self):
        return _core.fft_plan_cache_info(self._device)["memsize"]

    def set_memsize(self, memsize):
        _core.fft_plan_cache_set_limits(self._device, None, int(memsize))

    def get_curr_size(self):
        return _core.fft_plan_cache_info(self._device)["curr_size"]

    def get_curr_memsize(self):
        return _core.fft_plan_cache_info(self._device)["curr_memsize"]

    def clear(self):
        _core.fft_plan_cache_clear(self._device)

    def show_info(self):
        info = _core.fft_plan_cache_info(self._device)
        print(f"------------------- cuFFT plan cache (device {self._device}) -------------------")
        print(f"cache enabled? {info['size'] != 0}")
        print(f"current / max size   : {info['curr_size']} / "
              f"{info['size'] if info['size'] >= 0 else '(unlimited)'} (counts)")
        print(f"current / max memsize: {info['curr_memsize']} / "
              f"{info['memsize'] if info['memsize'] >= 0 else '(unlimited)'} (bytes)")

    def __len__(self):
        return self.get_curr_size()

    def __repr__(self):
        return (f"<PlanCache device={self._device} plans={self.get_curr_size()} "
                f"bytes={self.get_curr_memsize()}>")


def _current_device():
    return cuda.get_device_id() if cuda.is_available() else 0


def get_plan_cache():
    """The plan cache of the current CUDA device."""
    return PlanCache(_current_device())


def set_plan_cache_size(size):
    get_plan_cache().set_size(size)


def get_plan_cache_size():
    return get_plan_cache().get_size()


def set_plan_cache_max_memsize(size):
    get_plan_cache().set_memsize(size)


def get_plan_cache_max_memsize():
    return get_plan_cache().get_memsize()


def show_plan_cache_info():
    get_plan_cache().show_info()
