"""Array construction under NumPy's names: the ndarray(shape, dtype, buffer, offset, strides,
order) constructor, fromfunction, fromiter, fromstring, geomspace, block, resize, and the
conversions with requirements (asfortranarray, asarray_chkfinite, require); with them the small
questions about arrays (diagonal, trace, array_equiv, shares_memory, may_share_memory, iterable).

Everything is NumPy's algorithm over numfuse ops; the constructor's view over a buffer is the
one C++ primitive (_core._strided_view, python/src/bind_construction.cpp).
"""
import builtins
import math
import operator

import numpy as _np

from . import _core
from ._core import ndarray
from ._creation import array, asarray, device_of_like, empty, follows_operands, zeros
from ._index_tricks import indices
from ._ranges import logspace
from ._shape import concatenate, moveaxis
from . import _ufuncs as _u  # through the module: see _indexing.py on ufunc objects in globals

__all__ = ["fromfunction", "fromiter", "fromstring", "geomspace", "block", "resize",
           "asfortranarray", "asarray_chkfinite", "require", "diagonal", "trace", "array_equiv",
           "shares_memory", "may_share_memory", "iterable"]


# ---- the ndarray constructor ------------------------------------------------------------------

def _default_strides(shape, itemsize, order):
    strides, step = [], itemsize
    for n in (reversed(shape) if order == "C" else shape):
        strides.append(step)
        step *= builtins.max(n, 1)
    return tuple(reversed(strides)) if order == "C" else tuple(strides)


def ndarray_new(shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    """numfuse.ndarray(...): called by the C++ constructor (bind_construction.cpp).

    With a numfuse array as buffer, the result is a view of its memory (any device), as NumPy's
    is of a buffer. Any other buffer (bytes, a NumPy array, a memoryview) is read as NumPy reads
    it and copied onto the default device: numfuse memory cannot be another object's memory.
    """
    dt = _np.dtype(dtype)
    order = "C" if order is None else order
    if order not in ("C", "F"):
        raise ValueError(f"order must be one of 'C', 'F' (got {order!r})")
    shape = _core._shape(shape)
    if buffer is not None and not isinstance(buffer, ndarray):
        return asarray(_np.ndarray(shape, dt, buffer, offset, strides, order))
    offset = operator.index(offset)
    if buffer is None:
        if strides is None and order == "C":
            return empty(shape, dt)
        strides = _default_strides(shape, dt.itemsize, order) if strides is None else strides
        return _core._strided_view(empty((math.prod(shape),), dt), shape, dt, 0,
                                   [operator.index(s) for s in strides], owner=True)
    if not buffer.flags.c_contiguous:
        raise ValueError("ndarray is not contiguous")
    if offset < 0:  # NumPy reads memory before the buffer here (a crash): numfuse refuses
        raise ValueError(f"offset must be non-negative, got {offset}")
    if offset > buffer.nbytes or (
            strides is None and math.prod(shape) * dt.itemsize > buffer.nbytes - offset):
        raise TypeError("buffer is too small for requested array")
    if strides is None:
        strides = _default_strides(shape, dt.itemsize, order)
    return _core._strided_view(buffer, shape, dt, offset, [operator.index(s) for s in strides])


def empty_fortran(shape, dtype, device=None):
    """A new uninitialised array of `shape` in column-major order that owns its memory."""
    dt = _np.dtype(dtype)
    return _core._strided_view(empty((math.prod(shape),), dt, device=device), shape, dt, 0,
                               list(_default_strides(shape, dt.itemsize, "F")), owner=True)


def _fortran_copy(a):
    out = empty_fortran(a.shape, a.dtype, a.device)
    out[...] = a
    return out


# ---- creation from functions, iterables and text ------------------------------------------------

def fromfunction(function, shape, *, dtype=float, like=None, device=None, **kwargs):
    return function(*indices(shape, dtype=dtype, device=device_of_like(device, like)), **kwargs)


def fromiter(iter, dtype, count=-1, *, like=None, device=None):  # noqa: A002
    # The iterable is Python's: its elements are read on the host, then moved once.
    return asarray(_np.fromiter(iter, dtype, count), device=device, like=like)


def fromstring(string, dtype=float, count=-1, *, sep="", like=None, device=None):
    return asarray(_np.fromstring(string, dtype, count, sep=sep), device=device, like=like)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, device=None):
    start, stop = asarray(start, device=device), asarray(stop, device=device)
    if builtins.bool((start == 0).any()) or builtins.bool((stop == 0).any()):
        raise ValueError("Geometric sequence cannot include zero")
    dt = _np.result_type(start.dtype, stop.dtype, float(num), _np.zeros((), dtype).dtype)
    dtype = dt if dtype is None else _np.dtype(dtype)
    start, stop = start.astype(dt), stop.astype(dt)
    out_sign = _u.sign(start)
    start = start / out_sign
    stop = stop / out_sign
    result = logspace(_u.log10(start), _u.log10(stop), num=num, endpoint=endpoint, base=10.0,
                      dtype=dt)
    # The ends exactly as given (logspace rounds them).
    if num > 0:
        result[0] = start
        if num > 1 and endpoint:
            result[-1] = stop
    result = result * out_sign
    if axis != 0:
        result = moveaxis(result, 0, axis)
    return result.astype(dtype, copy=False)


# ---- block -------------------------------------------------------------------------------------

def _block_index(index):
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_depths(arrays, parent=()):
    """NumPy's _block_check_depths_match: (index of a bottom element, max ndim) with its errors."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{_block_index(parent)} is a tuple. Only lists can be used to arrange "
                        "blocks, and np.block does not allow implicit conversion from tuple to "
                        "ndarray.")
    if isinstance(arrays, list) and arrays:
        found = [_block_depths(a, parent + (i,)) for i, a in enumerate(arrays)]
        first, max_ndim = found[0]
        for index, nd in found[1:]:
            max_ndim = builtins.max(max_ndim, nd)
            if len(index) != len(first):
                raise ValueError(f"List depths are mismatched. First element was at depth "
                                 f"{len(first)}, but there is an element at depth {len(index)} "
                                 f"({_block_index(index)})")
            if index[-1] is None:
                first = index
        return first, max_ndim
    if isinstance(arrays, list):
        return parent + (None,), 0
    return parent, _np.ndim(arrays) if not isinstance(arrays, ndarray) else arrays.ndim


def _block(arrays, max_depth, result_ndim, depth=0):
    if depth < max_depth:
        parts = [_block(a, max_depth, result_ndim, depth + 1) for a in arrays]
        return concatenate(parts, axis=-(max_depth - depth))
    return array(arrays, ndmin=result_ndim, copy=None)


@follows_operands
def block(arrays):
    bottom, arr_ndim = _block_depths(arrays)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at {_block_index(bottom)} cannot be empty")
    list_ndim = len(bottom)
    result = _block(arrays, list_ndim, builtins.max(arr_ndim, list_ndim))
    return result.copy() if list_ndim == 0 else result


# ---- resize and conversions with requirements -----------------------------------------------

def resize(a, new_shape):
    if isinstance(new_shape, (int, _np.integer)):
        new_shape = (new_shape,)
    a = asarray(a).ravel()
    new_size = 1
    for n in new_shape:
        new_size *= n
        if n < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or new_size == 0:
        return zeros(new_shape, a.dtype, device=a.device)
    repeats = -(-new_size // a.size)
    return concatenate((a,) * repeats)[:new_size].reshape(new_shape)


def asfortranarray(a, dtype=None, *, like=None):
    a = asarray(a, dtype=dtype, like=like)
    if a.ndim == 0:
        a = a.reshape(1)
    return a if a.flags.f_contiguous else _fortran_copy(a)


def asarray_chkfinite(a, dtype=None, order=None):
    a = asarray(a, dtype=dtype)
    if a.dtype.kind in "fc" and not builtins.bool(_u.isfinite(a).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
                 "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
                 "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def _has_flag(arr, flag):
    return {"A": True, "W": arr.flags.writeable, "O": arr.flags.owndata}[flag]


def require(a, dtype=None, requirements=None, *, like=None):
    if not requirements:
        return asarray(a, dtype=dtype, like=like)
    if isinstance(requirements, str):
        requirements = [requirements]
    reqs = {_REQUIREMENTS[r.upper()] for r in requirements}
    reqs.discard("E")  # numfuse.ndarray has no subclasses: every result is the base class
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "C" if "C" in reqs else "F" if "F" in reqs else "A"
    reqs -= {"C", "F"}
    arr = asarray(a, dtype=dtype, like=like)
    if order == "C" and not arr.flags.c_contiguous:
        arr = arr.copy(order="C")
    elif order == "F" and not arr.flags.f_contiguous:
        arr = _fortran_copy(arr)
    for flag in reqs:
        if not _has_flag(arr, flag):
            f_layout = order == "F" or (order == "A" and arr.flags.f_contiguous and
                                        not arr.flags.c_contiguous)
            return _fortran_copy(arr) if f_layout else arr.copy(order="C")
    return arr


# ---- questions about arrays ---------------------------------------------------------------------

def diagonal(a, offset=0, axis1=0, axis2=1):
    return asarray(a).diagonal(offset, axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d = asarray(a).diagonal(offset, axis1, axis2)
    return d.sum(-1, dtype=dtype, out=out)


@follows_operands
def array_equiv(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    try:
        _np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return builtins.bool((a1 == a2).all())


def _extent(a):
    """(storage id, lowest byte, one past the highest byte) that `a` reaches."""
    storage, offset, _ = _core._memory_layout(a)
    lo = hi = offset
    if a.size:
        hi += a.itemsize
        for n, s in zip(a.shape, a.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    return storage, lo, hi


def _address_standin(a, base):
    """A NumPy array with `a`'s addresses relative to the byte `base` of its storage (moved by a
    page, so that no address is 0), over no memory: NumPy's overlap solver reads only addresses."""
    _, offset, _ = _core._memory_layout(a)

    class _Interface:
        __array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "version": 3,
                               "strides": a.strides, "data": (4096 + offset - base, False)}
    return _np.asarray(_Interface())


def _host_memory(x):
    """A host operand as NumPy sees it: a CPU array's memory itself; None for a device array
    (whose memory no host object shares)."""
    if isinstance(x, ndarray):
        return x._host_read() if x.device == "cpu" else None
    return x


def _overlap(a, b, max_work, exact):
    if isinstance(a, ndarray) and isinstance(b, ndarray):
        (sa, la, ha), (sb, lb, hb) = _extent(a), _extent(b)
        if sa != sb or not (la < hb and lb < ha):
            return False
        if not exact:
            return True
        base = builtins.min(la, lb)
        return builtins.bool(_np.shares_memory(_address_standin(a, base),
                                               _address_standin(b, base), max_work))
    ha, hb = _host_memory(a), _host_memory(b)
    if ha is None or hb is None:
        return False
    if exact:
        return builtins.bool(_np.shares_memory(ha, hb, max_work))
    return builtins.bool(_np.may_share_memory(ha, hb))


def may_share_memory(a, b, /, max_work=None):
    # NumPy's default (None, or 0) compares the bounds only; another max_work solves exactly.
    return _overlap(a, b, max_work, exact=max_work not in (None, 0))


def shares_memory(a, b, /, max_work=None):
    return _overlap(a, b, max_work, exact=True)


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True
