"""Array creation, the primitives: NumPy's names and arguments over the C++ core.

The package's layers (docs/architecture.md, "The Python package"): _core, _dtypes, _ufuncs and
_interop at the bottom; this module on them; _shape, _math, _reductions, _einsum, _norm above it;
_indexing, _ranges and _linalg above those; _methods (the ndarray methods, attached once) and
__init__ on top. A module imports only from below, at its top: tests/test_package_layers.py.
"""
import builtins
import functools
import math
import operator

import numpy as _np

from . import _core, _exchange
from ._core import ndarray

__all__ = [
    "array", "asarray", "asanyarray", "ascontiguousarray", "asnumpy", "empty", "empty_like",
    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "arange", "eye", "identity",
    "copy", "frombuffer",
]


def _default_float(dtype):
    return _np.float64 if dtype is None else dtype


def device_of_like(device, like):
    """Where a creation function called with like= puts its result: `device` when given, else
    like's device when like is a numfuse array (NumPy's like= makes an array of like's kind; for
    numfuse that is one on like's device: Dask's metas pass it), else None, the default device."""
    return like.device if device is None and isinstance(like, ndarray) else device


def operands_device(*objs):
    """Where a function of these operands creates its temporaries and result (NumPy's rule for
    numfuse: a function of arrays on device D creates them on D): the device of the first numfuse
    array of more than 0 dimensions, else of the first 0-d one, else None (the default device, for
    a function of lists, NumPy arrays and scalars alone): the bindings' operands_device."""
    zero_d = None
    for o in objs:
        if isinstance(o, ndarray):
            if o.ndim:
                return o.device
            zero_d = zero_d or o.device
    return zero_d


def _mixing_devices(first, other):
    return ValueError(f"arrays are on different devices: {first} and {other}; move one with "
                      "asarray(x, device=...)")


def follows_operands(fn):
    """Decorator of a function of several arrays, NumPy's rule for numfuse at one place: while it
    runs, what it creates without naming a device (its temporaries, its list and NumPy operands
    made arrays) goes to its numfuse operands' device (operands_device of its arguments) instead
    of the default device, which on a GPU machine is cuda:0 whatever the operands' device. The
    device is the thread's for the call (numfuse.cuda.Device's stack); numfuse operands are never
    moved: operands on two devices raise the ValueError of mixing devices, here at the call. The
    arguments are read in C++ (_core._push_operands_device): 0.2 us a call, not 1 us in Python."""
    # _core's functions are looked up at each call: one kept in a closure would outlive
    # nanobind's shutdown (docs/architecture.md).
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not _core._push_operands_device(args, kwargs):
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        finally:
            _core.pop_thread_device()
    return call


def asarray_on(x, device, dtype=None):
    """Operand x of a function whose operands are on `device`, as a numfuse array: a numfuse array
    as it is, anything else (a list, a NumPy array, a scalar) copied to `device`. A numfuse array
    on another device is the ValueError of mixing devices (a 0-d host array excepted: as in the
    fused programs, a host scalar goes anywhere), never a silent copy."""
    if isinstance(x, ndarray):
        if device is not None and x.device != device and (x.ndim or x.device != "cpu"):
            raise _mixing_devices(device, x.device)
        return x if dtype is None or x.dtype == _np.dtype(dtype) else x.astype(dtype)
    return asarray(x, dtype, device=device)


def asarrays(objs, dtype=None):
    """The operands of a function of a sequence of arrays (concatenate, stack, select...), each as
    asarray_on puts it, on the device of the numfuse arrays among them."""
    objs = list(objs)
    device = operands_device(*objs)
    return [asarray_on(o, device, dtype) for o in objs]


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """numpy.asarray: numfuse arrays pass through; anything else is copied in."""
    device = device_of_like(device, like)
    if isinstance(a, ndarray):
        out = a if dtype is None or _np.dtype(dtype) == a.dtype else a.astype(dtype, copy=False)
        if copy:
            out = out.copy() if out is a else out
        elif copy is False and out is not a:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        if device is not None:
            out = _core.to_device(out, device)
        return out
    if _exchange.is_foreign_array(a):  # CuPy, PyTorch, JAX...: their memory where it can be
        out = _exchange.borrow(a, device, copy if dtype is None else None)
        if dtype is not None and _np.dtype(dtype) != out.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return out.astype(dtype)
        return out.copy() if copy and dtype is not None else out
    if copy is False:
        if isinstance(a, _np.ndarray) and (dtype is None or _np.dtype(dtype) == a.dtype):
            return _exchange.share_numpy(a, device)
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return _core.asarray(a, dtype, device)


asanyarray = asarray


def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None, device=None):
    ndmin = _core._index(ndmin)  # NumPy reads a C int, at most 64
    if not -2 ** 31 <= ndmin < 2 ** 31:
        raise OverflowError("Python int too large to convert to C int")
    if ndmin > 64:
        raise ValueError("ndmin must be <= ndmax (64)")
    device = device_of_like(device, like)
    if isinstance(obj, ndarray):
        out = obj.astype(dtype if dtype is not None else obj.dtype, copy=bool(copy))
        if device is not None:
            out = _core.to_device(out, device)
    elif isinstance(obj, (list, tuple)) and any(isinstance(x, ndarray) for x in obj):
        dev = device or next(x.device for x in obj if isinstance(x, ndarray))
        out = _stack_rows([asarray(x, device=dev) for x in obj], dtype)
    else:
        out = _core.asarray(obj, dtype, device)
    if out.ndim < ndmin:
        out = out.reshape((1,) * (ndmin - out.ndim) + out.shape)
    return out


def _stack_rows(arrs, dtype):
    """array([a, b, ...]) of numfuse arrays: one new leading axis, the rows copied in."""
    shape = arrs[0].shape
    if any(a.shape != shape for a in arrs):
        raise ValueError("setting an array element with a sequence. The requested array has an "
                         "inhomogeneous shape after 1 dimensions. The detected shape was "
                         f"({len(arrs)},) + inhomogeneous part.")
    dt = _np.dtype(dtype) if dtype is not None else _np.result_type(*(a.dtype for a in arrs))
    out = empty((len(arrs),) + tuple(shape), dt, device=arrs[0].device)
    for i, a in enumerate(arrs):
        out[i] = a
    return out


def ascontiguousarray(a, dtype=None, *, like=None):
    a = asarray(a, dtype=dtype, like=like)
    if a.ndim == 0:
        return a.reshape(1)
    return a if a.flags.c_contiguous else a.copy()


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """``a`` as a NumPy array on the host (CuPy's name).

    A CPU array comes back without a copy when its layout satisfies ``order``, as
    ``numpy.asarray(a, order=order)`` does: a view that shares (and keeps alive) its memory, so
    that writes on either side are seen by the other. A device array is copied to the host.
    """
    if out is None:  # the common case, a CPU array already laid out as asked, in one call
        res = _core._host_view_if_laid_out(a, order)
        if res is not None:
            return res
    if isinstance(a, ndarray):
        if a.device == "cpu":  # its host view is its memory
            res = _np.asarray(a._host_view(), order=order)
        else:  # copied to the host in the layout numpy.array(view, order=order) gives a copy
            res = _device_copy_in_order(a, order)
    else:
        res = _np.asarray(a, order=order)
    if out is not None:
        out[...] = res
        return out
    return res


def _device_copy_in_order(a, order):
    """A host copy of device array `a` laid out as NumPy lays out a copy: 'C' row-major, 'F'
    column-major, 'A' column-major only for an F-contiguous array, 'K' the axes in the order of
    their strides. The copy is made of a transposed view, so that the host copy itself (always
    row-major) is the only one."""
    order = (order or "K").upper()
    if order not in ("C", "F", "A", "K"):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % order)
    nd = a.ndim
    if order == "A":
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    if order == "C" or nd < 2:
        return a._host_view()
    if order == "F":
        perm = tuple(range(nd - 1, -1, -1))
    else:  # NumPy's K: axes by decreasing |stride|, ties in axis order (a stable sort)
        perm = tuple(sorted(range(nd), key=lambda i: -abs(a.strides[i])))
    if perm == tuple(range(nd)):
        return a._host_view()
    inverse = [0] * nd
    for position, axis in enumerate(perm):
        inverse[axis] = position
    return a.transpose(perm)._host_view().transpose(inverse)


# Shapes go to C++ as given: py_shape reads them with NumPy's errors (floats, None, huge sizes).
def empty(shape, dtype=float, order="C", *, device=None, like=None):
    return _core.empty(shape, _np.dtype(dtype), device_of_like(device, like))


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    return _core.zeros(shape, _np.dtype(dtype), device_of_like(device, like))


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    return _core.ones(shape, _np.dtype(_default_float(dtype)), device_of_like(device, like))


_SCALARS = (builtins.bool, int, float, complex, _np.generic, _np.ndarray, list, tuple)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    device = device_of_like(device, like)
    if isinstance(fill_value, ndarray):  # an array fill value: its device and dtype
        device = fill_value.device if device is None else device
        dtype = fill_value.dtype if dtype is None else dtype
    elif dtype is None:  # read on the host: no copy of the value to a device for its dtype
        dtype = _np.asarray(fill_value).dtype if isinstance(fill_value, _SCALARS) \
            else asarray(fill_value, device=device).dtype
    if isinstance(fill_value, ndarray) and fill_value.ndim > 0:
        out = empty(shape, dtype, device=device)
        out[...] = fill_value
        return out
    return _core.full(shape, fill_value, _np.dtype(dtype), device)


def _like(a, dtype, shape):
    """The dtype, shape and device a *_like function takes from its prototype: a numfuse array's
    own device, None (the default) for anything else, which is read on the host, not copied."""
    dev = a.device if isinstance(a, ndarray) else None
    a = a if isinstance(a, ndarray) else _np.asarray(a)
    return (a.dtype if dtype is None else dtype), (a.shape if shape is None else shape), dev


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, sh, dev = _like(prototype, dtype, shape)
    return empty(sh, dt, device=device or dev)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, sh, dev = _like(a, dtype, shape)
    return zeros(sh, dt, device=device or dev)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, sh, dev = _like(a, dtype, shape)
    return ones(sh, dt, device=device or dev)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, sh, dev = _like(a, dtype, shape)
    return full(sh, fill_value, dt, device=device or dev)


def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("division by zero")
    if dtype is None:
        dtype = _np.result_type(*(_np.asarray(v) for v in (start, stop, step)))
    dtype = _np.dtype(dtype)
    n = _arange_length(start, stop, step)
    if dtype == bool and n > 2:  # NumPy: a bool range past [False, True] has no meaning
        raise TypeError("arange() is only supported for booleans when the result has at most "
                        "length 2.")
    return _core.arange(float(_np.real(start)), float(_np.real(step)), n, dtype,
                        device_of_like(device, like))


_MAX_LENGTH = 2 ** 63 - 1


def _arange_length(start, stop, step):
    """ceil((stop - start) / step), at least 0, with NumPy's errors for NaN, inf and lengths past
    the largest array (ValueError, never a Python OverflowError)."""
    span = (stop - start) / step
    if isinstance(span, complex):
        span = span.real
    span = float(span)
    if math.isnan(span):
        raise ValueError("arange: cannot compute length")
    if span > _MAX_LENGTH:  # inf included
        raise ValueError("Maximum allowed size exceeded")
    return max(0, math.ceil(span))


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    return _core.eye(N, N if M is None else M, k, _np.dtype(dtype),
                     device_of_like(device, like))  # checked in C++


def identity(n, dtype=None, *, like=None, device=None):
    return eye(n, dtype=float if dtype is None else dtype, device=device_of_like(device, like))


def copy(a, order="K", subok=False):
    return asarray(a).copy()


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None, device=None):
    return _core.from_numpy(_np.frombuffer(buffer, dtype=dtype, count=count, offset=offset),
                            device_of_like(device, like))


