"""@numfuse.cuda.jit: Numba's CUDA kernels in Python, translated to CUDA C++ or simulated.

``kernel[blocks, threads](args)`` types the arguments, translates the function for those types
(once per types: _translate), and launches it through NVRTC on the GPU; without a GPU (or with
NUMFUSE_DEVICE=cpu or NUMBA_ENABLE_CUDASIM=1) the same Python runs on the simulator
(_simulator), after being translated all the same so that what the GPU would reject is rejected
here too.
"""
import functools

import numpy as np

from .._core import ndarray
from .._core import cuda as _c
from .._creation import asarray
from ._signatures import parse_signature
from ._simulation import simulating
from ._simulator import run as _simulate
from ._translate import translate_kernel
from ._translation_cache import translate_cached
from ._types import BOOL, ArrayType, TranslationError, TupleType, default_of_literal

try:
    from .. import _kernels  # the RawKernel launch path (numfuse._kernels.launch)
except ImportError:  # a build without it: kernels run on the simulator only
    _kernels = None


def _is_numfuse_array(x):
    return isinstance(x, ndarray)


def arg_type(x, name, where):
    """The translator's type of a kernel argument (arrays: dtype, rank, layout)."""
    if isinstance(x, np.ndarray) or _is_numfuse_array(x):
        dt = np.dtype(x.dtype)
        if dt.kind not in "biufc":
            raise TypeError(f"argument '{name}' of {where}: arrays of {dt} are not supported")
        c = x.flags.c_contiguous
        if not c and any(s % dt.itemsize for s in x.strides):
            raise TypeError(f"argument '{name}' of {where}: strides {x.strides} are not a multiple "
                            f"of the item size {dt.itemsize}")
        return ArrayType(dt, x.ndim, "C" if c else "A", small=c and x.size < 2**31)
    if isinstance(x, np.bool_):
        return BOOL
    if isinstance(x, np.generic) and x.dtype.kind in "iufc":
        return x.dtype
    if isinstance(x, (bool, int, float, complex)):
        return default_of_literal(x)  # Numba's types of Python scalars
    if isinstance(x, tuple) and all(isinstance(e, (int, float, bool, np.generic)) for e in x):
        return TupleType([arg_type(e, name, where) for e in x])
    raise TypeError(f"argument '{name}' of {where}: {type(x).__name__} is not supported "
                    "(arrays, numbers and tuples of numbers are)")


def _dim3(v, what):
    t = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, got {v!r}")
    out = []
    for e in t:
        if isinstance(e, (bool, np.bool_)) or not isinstance(e, (int, np.integer)):
            raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, got {v!r}")
        if e < 1:
            raise ValueError(f"{what} must be positive, got {v!r}")
        out.append(int(e))
    return tuple(out) + (1,) * (3 - len(out))


class _Configured:
    """kernel[blocks, threads, stream, shared_bytes]: a launch waiting for its arguments."""
    __slots__ = ("kernel", "griddim", "blockdim", "stream", "sharedmem")

    def __init__(self, kernel, griddim, blockdim, stream, sharedmem):
        self.kernel, self.griddim, self.blockdim = kernel, griddim, blockdim
        self.stream, self.sharedmem = stream, sharedmem

    def __call__(self, *args):
        self.kernel._launch(self.griddim, self.blockdim, self.stream, self.sharedmem, args)


class Dispatcher:
    """A @cuda.jit function: a kernel (launched with [blocks, threads]) or a device function."""

    def __init__(self, py_func, device=False, signatures=(), options=()):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._nf_device_function = bool(device)
        self.options = tuple(options)
        self._compiled = {}  # argument types -> (source, name, packers)
        self._sim = None
        self.signatures = list(signatures)
        for sig in self.signatures:  # eager: translated (and checked) now, as Numba compiles
            self._translate(sig)

    def __repr__(self):
        kind = "device function" if self._nf_device_function else "kernel"
        return f"<numfuse.cuda.jit {kind} {self.py_func.__qualname__}>"

    def __getitem__(self, config):
        if self._nf_device_function:
            raise TypeError(f"device function '{self.__name__}' cannot be launched; call it from a kernel")
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("launch configuration must be [blocks, threads], [blocks, threads, stream] "
                             f"or [blocks, threads, stream, shared_bytes], got {config!r}")
        griddim, blockdim = _dim3(config[0], "blocks per grid"), _dim3(config[1], "threads per block")
        if blockdim[0] * blockdim[1] * blockdim[2] > 1024:
            raise ValueError(f"threads per block {config[1]!r}: at most 1024 threads in a block")
        stream = config[2] if len(config) > 2 else None
        if stream == 0:
            stream = None
        shared = int(config[3]) if len(config) > 3 else 0
        if shared < 0:
            raise ValueError(f"dynamic shared memory must be >= 0 bytes, got {shared}")
        return _Configured(self, griddim, blockdim, stream, shared)

    def __call__(self, *args):
        if not self._nf_device_function:
            raise TypeError(f"kernel '{self.__name__}' must be launched as "
                            f"{self.__name__}[blocks, threads](args)")
        return self.py_func(*args)  # the simulator's threads (or plain Python) call device functions

    def forall(self, ntasks, tpb=128):
        """kernel.forall(n)(args): a 1-d launch of at least n threads (Numba's)."""
        return self[(max(1, (ntasks + tpb - 1) // tpb), tpb)]

    def _types(self, args):
        names = [p for p in self.py_func.__code__.co_varnames[:self.py_func.__code__.co_argcount]]
        if len(args) != len(names):
            raise TypeError(f"{self.__name__}() takes {len(names)} arguments ({len(args)} given)")
        where = f"kernel '{self.__name__}'"
        return tuple(arg_type(a, n, where) for a, n in zip(args, names))

    def _translate(self, types):
        hit = self._compiled.get(types)
        if hit is None:
            # A new process finds the translation on disk beside the compiled kernel.
            hit = self._compiled[types] = translate_cached(self.py_func, types, self.options,
                                                           translate_kernel)
        return hit

    def inspect_source(self, *args):
        """The CUDA C++ this kernel is translated to for these arguments (for reading and tests)."""
        return self._translate(self._types(args))[0]

    def _launch(self, griddim, blockdim, stream, sharedmem, args):
        types = self._types(args)
        source, name = self._translate(types)
        if simulating():
            _simulate(self, griddim, blockdim, sharedmem, args)
        else:
            _launch_on_gpu(source, name, griddim, blockdim, stream, sharedmem, args, types,
                           self.options)


def _pack(args, types):
    """The kernel's parameters in the translator's order: arrays as pointer, extents (int32 when
    small) and element strides when not contiguous; scalars with their exact dtype."""
    out = []
    for x, t in zip(args, types):
        if isinstance(t, ArrayType):
            out.append(x)
            idx = np.int32 if t.small else np.int64
            out += [idx(n) for n in x.shape]
            if t.layout == "A":
                out += [np.int64(s // t.dtype.itemsize) for s in x.strides]
        elif isinstance(t, TupleType):
            out += [e.type(v) for e, v in zip(t.elts, x)]
        else:
            out.append(t.type(x))
    return out


def _launch_on_gpu(source, name, griddim, blockdim, stream, sharedmem, args, types, options):
    """THE one place a translated kernel reaches the GPU: through numfuse._kernels.launch (the
    RawKernel launch path). NumPy arrays are copied to the device and back, as Numba does."""
    if _kernels is None:
        raise _c.CUDAError("numfuse.cuda.jit needs the user-kernel launch path "
                           "(numfuse._kernels.launch), which this build lacks")
    staged = []
    dev_args = []
    for x in args:
        if isinstance(x, np.ndarray):
            d = asarray(x, device="cuda")
            staged.append((x, d))
            dev_args.append(d)
        elif _is_numfuse_array(x) and x.device == "cpu":
            d = asarray(x, device="cuda")
            staged.append((x, d))
            dev_args.append(d)
        else:
            dev_args.append(x)
    # The arguments are packed with the translator's exact types: no signature to read back.
    _kernels.launch(source, name, griddim, blockdim, _pack(dev_args, types), shared_mem=sharedmem,
                    stream=stream, options=tuple(options), check_params=False)
    if staged and stream is not None:  # the copies back run on the current stream
        stream.synchronize()
    for host, dev in staged:
        if isinstance(host, np.ndarray):
            if host.flags.writeable:
                host[...] = np.asarray(dev)
        else:
            host[...] = dev.to_device("cpu")


def jit(func_or_sig=None, device=False, **options):
    """Numba's cuda.jit: @jit, @jit(device=True), @jit("void(float32[:], float32[:])")."""
    unsupported = set(options) - {"debug", "lineinfo", "fastmath", "opt", "cache", "inline",
                                  "max_registers", "link"}
    if unsupported:
        raise TypeError(f"cuda.jit() got unexpected keyword arguments {sorted(unsupported)}")
    nvrtc_options = ["--use_fast_math"] if options.get("fastmath") else []
    if options.get("lineinfo"):
        nvrtc_options.append("-lineinfo")
    if options.get("max_registers"):
        nvrtc_options.append(f"--maxrregcount={int(options['max_registers'])}")

    def wrap(fn, sigs=()):
        return Dispatcher(fn, device=device, signatures=sigs, options=nvrtc_options)

    if callable(func_or_sig):
        return wrap(func_or_sig)
    sigs = []
    if func_or_sig is not None:
        for s in (func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]):
            types, returns = parse_signature(s)
            if not device and returns not in (None, "void"):
                raise TypeError(f"a kernel returns void, the signature {s!r} returns {returns}")
            if not device:
                sigs.append(tuple(types))
    return lambda fn: wrap(fn, sigs)


__all__ = ["jit", "Dispatcher", "simulating", "TranslationError"]
