"""Advanced indexing (integer arrays, boolean masks) and the functions built on it.

Basic indexing (ints, slices, None, Ellipsis) is in C++ (python/src/bind_indexing.cpp), which
calls getitem/setitem here for any other key. Here the key is normalised to a tuple of None,
Ellipsis, slices, ints and numfuse integer or boolean arrays; C++ applies NumPy's rules
(cpp/numfuse/ops/advanced_indexing.cpp). Reads are copies; writes go into the original.
Host keys (lists, NumPy arrays) become host arrays: C++ checks them there and moves them to the
indexed array's device, so a CUDA array indexed by a list never waits on the device for the check.
"""
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core
from ._core import ndarray
from ._creation import arange, asarray, asarray_on, follows_operands, operands_device
from ._shape import broadcast_to, stack
# Ufuncs through their module, never bound to this module's names: functions here become ndarray
# methods, and a ufunc object held in the globals of a method's module outlives nanobind's
# shutdown (it reports the instances as leaked).
from . import _ufuncs as _u

__all__ = ["nonzero", "argwhere", "flatnonzero", "take", "take_along_axis", "put",
           "put_along_axis", "compress", "extract"]

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
              "or boolean arrays are valid indices")
_NOT_INTEGER = "arrays used as indices must be of integer (or boolean) type"


def _item(k):
    if k is None or k is Ellipsis or isinstance(k, slice):
        return k
    if isinstance(k, ndarray):
        if k.dtype.kind not in "biu":
            raise IndexError(_NOT_INTEGER)
        return k
    if isinstance(k, (bool, _np.bool_)):
        return _core.asarray(_np.asarray(k), device="cpu")  # a 0-d boolean array, as NumPy treats it
    if isinstance(k, _np.ndarray):
        if k.dtype.kind not in "biu":
            raise IndexError(_NOT_INTEGER)
        return _core.asarray(k, device="cpu")
    if isinstance(k, (list, tuple)):
        arr = _np.asarray(k)
        if arr.dtype.kind not in "biu":
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(_np.intp)  # [] indexes nothing, as NumPy allows
            else:
                raise IndexError(_BAD_INDEX)
        return _core.asarray(arr, device="cpu")
    try:
        return operator.index(k)
    except TypeError:
        raise IndexError(_BAD_INDEX) from None


def _key(key):
    return tuple(_item(k) for k in (key if isinstance(key, tuple) else (key,)))


def getitem(a, key):
    """a[key] for keys that hold arrays, lists or booleans: a new array."""
    return _core._advanced_getitem(a, _key(key))


def setitem(a, key, value):
    """a[key] = value for keys that hold arrays, lists or booleans."""
    items = _key(key)
    if len(items) == a.ndim and all(
            isinstance(k, int) or (isinstance(k, ndarray) and k.ndim == 0 and k.dtype.kind in "iu")
            for k in items):
        # 0-d integer arrays are integers to NumPy: this writes one element (basic indexing).
        a[tuple(operator.index(k) for k in items)] = value
        return
    _core._advanced_setitem(a, items, value)


def nonzero(a):
    return _core.nonzero(asarray(a))


def argwhere(a):
    a = asarray(a)
    if a.ndim == 0:
        return argwhere(a.reshape(1))[:, :0]
    return stack(nonzero(a), axis=1)


def flatnonzero(a):
    return nonzero(asarray(a).ravel())[0]


def _index_array(indices, device):
    """Indices as a numfuse integer array, on `device` (the indexed array's) when they are not
    one already (take casts floats unsafely, as NumPy does)."""
    idx = asarray_on(indices, device)
    if idx.dtype.kind != "i" or idx.dtype.itemsize != 8:
        idx = idx.astype(_np.int64)
    return idx


def _apply_mode(idx, n, mode):
    if mode == "raise":
        return idx
    if mode not in ("wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if n == 0 and idx.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if n == 0:
        return idx
    return _u.remainder(idx, n) if mode == "wrap" else _u.minimum(_u.maximum(idx, 0), n - 1)


def _write_out(out, res):
    if out is None:
        return res
    out[...] = res
    return out


@follows_operands
def take(a, indices, axis=None, out=None, mode="raise"):
    a = asarray(a)
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        if a.ndim == 0:  # NumPy makes a 0-d input 1-d, then checks the axis
            a = a.reshape(1)
        axis = normalize_axis_index(_core._axis(axis), a.ndim)  # NumPy refuses bools
    idx = _apply_mode(_index_array(indices, a.device), a.shape[axis], mode)
    res = getitem(a, (slice(None),) * axis + (idx,))
    if out is not None:
        # NumPy's take: out= an array of the result's shape that a's dtype reads safely.
        if not isinstance(out, ndarray):
            raise TypeError("output must be an array")
        if out.shape != res.shape:
            raise ValueError("output array does not match result of ndarray.take")
        # The casts NumPy's take allows between a and out changed between NumPy versions: the
        # installed NumPy decides, on one-element stand-ins.
        _np.take(_np.zeros(1, a.dtype), [0], out=_np.zeros(1, out.dtype))
    return _write_out(out, res)


def _along_axis_key(arr_shape, indices, axis):
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(arr_shape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    key = []
    for dim, n in enumerate(arr_shape):
        if dim == axis:
            key.append(indices)
        else:
            shape = [1] * indices.ndim
            shape[dim] = n
            key.append(arange(n, device=indices.device).reshape(shape))
    return tuple(key)


@follows_operands
def take_along_axis(arr, indices, axis=-1):
    device = operands_device(arr, indices)
    arr, indices = asarray_on(arr, device), asarray_on(indices, device)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = arr.ravel(), 0
    else:
        axis = normalize_axis_index(operator.index(axis), arr.ndim)
    return getitem(arr, _along_axis_key(arr.shape, indices, axis))


def _flat_view(a):
    """A writable 1-d view of `a`'s elements in C order, or None if `a` has no such view."""
    if not isinstance(a, ndarray):
        raise TypeError(f"argument a of put must be a numfuse array, not {type(a).__name__}")
    return a.reshape(-1) if a.flags.c_contiguous else None


def _flat_setitem(a, idx, values):
    """a.flat[idx] = values (idx an int64 array already in bounds or to be checked)."""
    flat = _flat_view(a)
    if flat is not None:
        setitem(flat, (idx,), values)
        return
    # Not contiguous: check the flat indices here, then index every dim.
    host = _np.asarray(idx)
    bad = (host < -a.size) | (host >= a.size)
    if bad.any():
        raise IndexError(f"index {host[bad][0]} is out of bounds for axis 0 with size {a.size}")
    flat_idx = _u.remainder(idx, a.size) if a.size else idx
    key = []
    for n in reversed(a.shape):
        key.append(_u.remainder(flat_idx, n))
        flat_idx = _u.floor_divide(flat_idx, n)
    setitem(a, tuple(reversed(key)), values)


def _put_indices(ind, device):
    """put's indices as NumPy reads them: arrays cast safely to intp, other objects converted by
    value (NumPy's errors: '1' is 1, 1.5 is 1, 2**63 an OverflowError)."""
    if isinstance(ind, (ndarray, _np.ndarray)):
        if not _np.can_cast(ind.dtype, _np.intp, "safe"):
            what = "scalar" if ind.ndim == 0 else "array data"
            raise TypeError(f"Cannot cast {what} from {ind.dtype!r} to dtype('int64') according "
                            "to the rule 'safe'")
        return _index_array(ind, device)
    return asarray(_np.array(ind, dtype=_np.intp), device=device)


@follows_operands
def put(a, ind, v, mode="raise"):
    idx = _put_indices(ind, a.device).ravel()
    v = asarray_on(v, a.device).ravel()
    if idx.size == 0 or v.size == 0:
        return None
    idx = _apply_mode(idx, a.size, mode)
    if v.size != idx.size:  # values repeat (or are cut) to the number of indices
        v = take(v, arange(idx.size, device=v.device) % v.size)
    _flat_setitem(a, idx, v)
    return None


@follows_operands
def put_along_axis(arr, indices, values, axis):
    indices = asarray_on(indices, arr.device)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        if indices.dtype.kind not in "iu":
            raise IndexError("`indices` must be an integer array")
        vals = asarray_on(values, arr.device)
        if vals.ndim > 1 or (vals.size != 1 and vals.size != indices.size):
            vals = broadcast_to(vals, indices.shape)
        _flat_setitem(arr, _index_array(indices, arr.device), vals)
        return None
    axis = normalize_axis_index(operator.index(axis), arr.ndim)
    setitem(arr, _along_axis_key(arr.shape, indices, axis), values)
    return None


@follows_operands
def compress(condition, a, axis=None, out=None):
    cond = asarray(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, nonzero(cond)[0], axis=axis, out=out)


@follows_operands
def extract(condition, arr):
    return take(asarray(arr).ravel(), nonzero(asarray(condition).ravel())[0])
