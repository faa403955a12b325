"""PyCUDA's names for CUDA C++ kernels and raw device memory, so that a PyCUDA program runs with
only its imports changed (``import numfuse.cuda as drv``, ``from numfuse.cuda import
SourceModule``): SourceModule, Function calls with ``block=``/``grid=``, In/Out/InOut host
arrays, mem_alloc, memcpy_htod, memcpy_dtoh, and prepared calls.
"""
import numpy as _np

from .._core import cuda as _c
from .._core import kernels as _k
from .. import _kernels

__all__ = ["SourceModule", "mem_alloc", "memcpy_htod", "memcpy_dtoh", "In", "Out", "InOut",
           "DeviceAllocation", "Context"]

DeviceAllocation = _k.DeviceAllocation


def mem_alloc(nbytes):
    """Device memory of `nbytes` bytes on the current device, freed with the object (or free())."""
    return _k.DeviceAllocation(int(nbytes))


def memcpy_htod(dest, src):
    """Copies the host array (any C-contiguous buffer) `src` into device memory `dest`."""
    _k.memcpy_htod(dest, _np.ascontiguousarray(src) if isinstance(src, _np.ndarray) else src)


def memcpy_dtoh(dest, src):
    """Copies device memory `src` into the host array `dest` (C-contiguous, writeable)."""
    _k.memcpy_dtoh(dest, src)


class _HostArg:
    """A host array passed to a kernel through a temporary device copy."""
    copy_in = copy_out = False

    def __init__(self, array):
        if not isinstance(array, _np.ndarray):
            raise TypeError(f"{type(self).__name__}() takes a NumPy array, got {type(array).__name__}")
        if not array.flags.c_contiguous:
            raise ValueError(f"{type(self).__name__}() needs a C-contiguous array")
        self.array = array


class In(_HostArg):
    """A host array the kernel reads: copied to the device before the launch."""
    copy_in = True


class Out(_HostArg):
    """A host array the kernel writes: copied back after the launch."""
    copy_out = True


class InOut(_HostArg):
    """A host array the kernel reads and writes."""
    copy_in = copy_out = True


class Context:
    """The little of PyCUDA's Context that programs call."""

    @staticmethod
    def synchronize():
        _c.synchronize(-1)


_STRUCT_TYPES = {"P": ("p", ""), "b": ("s", "int8"), "B": ("s", "uint8"), "h": ("s", "int16"),
                 "H": ("s", "uint16"), "i": ("s", "int32"), "I": ("s", "uint32"),
                 "l": ("s", "int64"), "L": ("s", "uint64"), "q": ("s", "int64"),
                 "Q": ("s", "uint64"), "f": ("s", "float32"), "d": ("s", "float64"),
                 "F": ("s", "complex64"), "D": ("s", "complex128")}


class Function:
    """A kernel of a SourceModule; call it as PyCUDA does:
    ``f(*args, block=(x, y, z), grid=(x, y), shared=0, stream=None)``."""

    def __init__(self, module, name):
        self._raw = module._raw.get_function(name)
        self.name = name

    def __call__(self, *args, block=None, grid=(1, 1), shared=0, stream=None, time_kernel=False,
                 texrefs=()):
        if block is None:
            raise ValueError(f"kernel '{self.name}': block=(x, y, z) must be given")
        host = [(i, a) for i, a in enumerate(args) if isinstance(a, _HostArg)]
        if not host:
            self._raw(grid, block, args, shared_mem=shared, stream=stream)
            return None
        launch_args, temps = list(args), []
        for i, a in host:
            mem = mem_alloc(a.array.nbytes)
            if a.copy_in:
                _k.memcpy_htod(mem, a.array)
            launch_args[i] = mem
            temps.append((a, mem))
        self._raw(grid, block, tuple(launch_args), shared_mem=shared, stream=stream)
        for a, mem in temps:
            if a.copy_out:
                _k.memcpy_dtoh(a.array, mem)  # waits for the kernel
        return None

    def prepare(self, arg_types):
        """Declares the argument types (struct letters, "P" for a pointer): prepared calls then
        convert Python scalars to them and check the count."""
        specs = []
        for n, ch in enumerate(arg_types):
            if not isinstance(ch, str):  # a NumPy type; numpy.intp stands for a pointer, as in PyCUDA
                dt = _np.dtype(ch)
                specs.append((f"arg{n}", "p", "") if dt == _np.intp else (f"arg{n}", "s", dt.name))
                continue
            if ch not in _STRUCT_TYPES:
                raise ValueError(f"prepare: unknown argument type {ch!r} (one of {''.join(_STRUCT_TYPES)})")
            kind, dt = _STRUCT_TYPES[ch]
            specs.append((f"arg{n}", kind, dt))
        self._raw._fn.set_params(specs)
        return self

    def prepared_call(self, grid, block, *args, shared_size=0):
        self._raw(grid, block, args, shared_mem=shared_size)

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        self._raw(grid, block, args, shared_mem=shared_size, stream=stream)

    def get_attribute(self, attribute):
        return self._raw._fn.attribute(int(attribute))

    @property
    def num_regs(self):
        return self._raw.num_regs


class SourceModule:
    """PyCUDA's SourceModule: CUDA C++ source compiled by NVRTC (cached in memory and on disk).
    The source is wrapped in ``extern "C" { }`` unless no_extern_c, as PyCUDA does."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=()):
        code_text = source if no_extern_c else 'extern "C" {\n' + source + "\n}\n"
        opts = list(options or ()) + [f"--include-path={d}" for d in include_dirs]
        self._raw = _kernels.RawModule(code=code_text, options=tuple(opts))
        if _c.nvrtc_available():
            self._raw.compile()  # PyCUDA compiles at construction: errors appear here

    def get_function(self, name):
        return Function(self, name)
