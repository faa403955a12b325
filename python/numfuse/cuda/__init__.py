"""numfuse.cuda: devices, streams, events and memory of the CUDA backend, under CuPy's names.

Importing it never fails: on a machine without a GPU or a driver, ``is_available()`` is False and
the calls that need a device raise ``CUDAError`` saying why.
"""
import os as _os
import sys as _sys

from .. import _core
from .._core import cuda as _c
from . import runtime  # noqa: F401
from . import nccl  # noqa: F401
from ._pycuda import (SourceModule, mem_alloc, memcpy_htod, memcpy_dtoh, In, Out, InOut,  # noqa: F401
                      DeviceAllocation, Context)

CUDAError = _c.CUDAError
CompileError = _c.CompileError
OutOfMemoryError = _c.OutOfMemoryError  # a MemoryError too

__all__ = ["is_available", "Device", "Stream", "Event", "get_elapsed_time", "synchronize",
           "memory_info", "free_cache", "set_memory_limit", "get_memory_limit",
           "get_current_stream", "get_device_id", "kernel_cache_stats", "CUDAError",
           "CompileError", "OutOfMemoryError", "runtime", "set_fp_checks", "fp_checks_enabled",
           "SourceModule", "mem_alloc", "memcpy_htod", "memcpy_dtoh", "In", "Out", "InOut",
           "DeviceAllocation", "Context", "nvrtc_available"]


def _pip_cuda_dirs():
    """lib and include directories of pip's nvidia-* packages (nvidia/cu13/lib, nvidia/cuda_nvrtc/lib, ...)."""
    libs, includes = [], []
    seen = set()
    for root in _sys.path:
        base = _os.path.join(root or ".", "nvidia")
        if base in seen or not _os.path.isdir(base):
            continue
        seen.add(base)
        try:
            subs = sorted(_os.listdir(base))
        except OSError:
            continue
        # CUDA 13's wheels put everything under nvidia/cu13; older ones use one package each.
        subs.sort(key=lambda s: (s != "cu13", s != "cu12", s))
        for sub in subs:
            lib = _os.path.join(base, sub, "lib")
            inc = _os.path.join(base, sub, "include")
            if _os.path.isdir(lib):
                libs.append(lib)
            if _os.path.isdir(inc):
                includes.append(inc)
    return libs, includes


_c.add_search_dirs(*_pip_cuda_dirs())


def nvrtc_available():
    """True when NVRTC loads (kernels compile; no GPU needed)."""
    return _c.nvrtc_available()


def is_available():
    """True when the CUDA driver loads and at least one GPU is present."""
    return _c.is_available()


def get_device_id():
    """The calling thread's current device."""
    return _c.get_device()


class Device:
    """A CUDA device; ``with Device(1):`` makes it current for the calling thread."""

    def __init__(self, device=None):
        if device is None:
            device = _c.get_device()
        elif isinstance(device, Device):
            device = device.id
        self.id = int(device)
        self._stack = []

    def __int__(self):
        return self.id

    __index__ = __int__

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cuda", self.id))

    def __enter__(self):
        # As CuPy: the device is current for the thread's CUDA work, and new arrays go to it.
        prev = _c.get_device()
        _c.set_device(self.id)
        try:
            _core.push_thread_device(f"cuda:{self.id}")
        except BaseException:
            _c.set_device(prev)
            raise
        self._stack.append(prev)
        return self

    def __exit__(self, *exc):
        _core.pop_thread_device()
        _c.set_device(self._stack.pop())
        return False

    def use(self):
        """Makes this device current for the calling thread."""
        _c.set_device(self.id)

    def synchronize(self):
        """Waits for all work on this device."""
        _c.synchronize(self.id)

    @property
    def compute_capability(self):
        """e.g. "90" for an H100 (as CuPy)."""
        p = _c.device_properties(self.id)
        return f"{p['major']}{p['minor']}"

    @property
    def mem_info(self):
        """(free, total) bytes."""
        return _c.device_mem_info(self.id)

    @property
    def name(self):
        return _c.device_properties(self.id)["name"].decode()


class Stream:
    """A CUDA stream. ``with Stream():`` makes it the current stream of its device."""

    null = None  # set below: the legacy null stream of the current device

    def __init__(self, non_blocking=False, *, _handle=None):
        self._s = _handle if _handle is not None else _c.Stream.create(-1, bool(non_blocking))

    @property
    def ptr(self):
        return self._s.ptr

    @property
    def device_id(self):
        return self._s.device_id

    @property
    def non_blocking(self):
        return self._s.non_blocking

    @property
    def done(self):
        """True when all work enqueued on the stream has finished."""
        return self._s.done()

    def synchronize(self):
        self._s.synchronize()

    def wait_event(self, event):
        """Work enqueued on this stream after this call waits for ``event``."""
        self._s.wait(event._e)

    def record(self, event=None):
        """Records ``event`` (a new one if None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self):
        _c.push_stream(self._s)
        return self

    def __exit__(self, *exc):
        _c.pop_stream()
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and self._s == other._s

    def __hash__(self):
        return hash(self.ptr)

    def __repr__(self):
        return f"<numfuse.cuda.Stream {'null' if self.ptr == 0 else hex(self.ptr)}>"


Stream.null = Stream(_handle=_c.Stream.null(-1))


def get_current_stream(device=None):
    """The calling thread's current stream for ``device`` (default: the current device)."""
    return Stream(_handle=_c.current_stream(-1 if device is None else int(device)))


class Event:
    """A CUDA event (timing enabled unless disable_timing)."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess events are not supported")
        self._e = _c.Event.create(-1, bool(disable_timing), bool(block))

    @property
    def ptr(self):
        return self._e.ptr

    @property
    def done(self):
        return self._e.done()

    def record(self, stream=None):
        """Records the event on ``stream`` (default: the current stream)."""
        if stream is None:
            self._e.record_current()
        else:
            self._e.record(stream._s)

    def synchronize(self):
        self._e.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event`` (both recorded and finished)."""
        return _c.elapsed_ms(self._e, end_event._e)


def get_elapsed_time(start_event, end_event):
    """Milliseconds between two events (CuPy's name)."""
    return start_event.elapsed_time(end_event)


def synchronize(device=None):
    """Waits for all work on the device (default: the current device)."""
    _c.synchronize(-1 if device is None else int(device))


def set_fp_checks(on):
    """Whether generated GPU kernels check for numpy.errstate's conditions (divide by zero,
    overflow, invalid value; underflow is not checked on the GPU). Off by default (they cost fused
    reductions measurable bandwidth); ``NUMFUSE_GPU_FP_CHECKS=1`` turns them on at start. Kernels are compiled apart for each setting."""
    _c.set_fp_checks(bool(on))


def fp_checks_enabled():
    """Whether generated GPU kernels check for numpy.errstate's conditions (see set_fp_checks)."""
    return _c.fp_checks_enabled()


def memory_info(device=None):
    """Bytes: used (held by numfuse), used_high, reserved (pool), limit (0: none),
    device_free and device_total."""
    return _c.memory_info(-1 if device is None else int(device))


def free_cache(device=None):
    """Returns the pool's unused memory to the device."""
    _c.free_cache(-1 if device is None else int(device))


def set_memory_limit(nbytes):
    """Limits what numfuse allocates per device: bytes (int) or a string like "4G"; 0 or None
    removes the limit. Starts as NUMFUSE_GPU_MEMORY_LIMIT."""
    if nbytes is None:
        nbytes = 0
    if isinstance(nbytes, str):
        nbytes = _c.parse_memory_size(nbytes)
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"memory limit must be >= 0, got {nbytes}")
    _c.set_memory_limit(nbytes)


def get_memory_limit():
    return _c.get_memory_limit()


def kernel_cache_stats():
    """Counters of the kernel cache: compilations, disk_hits, memory_hits, corrupt."""
    return _c.kernel_cache_stats()


# ---- Numba's CUDA kernels in Python (@cuda.jit): `from numfuse import cuda` for `from numba import cuda`
from ._intrinsics import (threadIdx, blockIdx, blockDim, gridDim, warpsize, grid, gridsize,  # noqa: E402
                          syncthreads, threadfence, threadfence_block, threadfence_system, shared,
                          local, const, atomic)
from ._memory import (to_device, device_array, device_array_like, pinned_array,  # noqa: E402
                      is_cuda_array)
from ._types import TranslationError  # noqa: E402
from ._dispatcher import jit, simulating  # noqa: E402

__all__ += ["jit", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpsize", "grid", "gridsize",
            "syncthreads", "threadfence", "shared", "local", "const", "atomic", "to_device",
            "device_array", "device_array_like", "pinned_array", "is_cuda_array", "stream",
            "default_stream", "event",
            "TranslationError", "simulating", "nvrtc_available"]

from .._core import ndarray as _ndarray  # noqa: E402
from ._memory import attach_methods as _attach  # noqa: E402

_attach(_ndarray)
del _attach, _ndarray


def stream():
    """Numba's cuda.stream(): a new stream."""
    return Stream()


def default_stream():
    """Numba's cuda.default_stream(): the legacy null stream."""
    return Stream.null


def event(timing=True):
    """Numba's cuda.event(): a new event."""
    return Event(disable_timing=not timing)
