"""Functions that edit arrays or pick values from several: append, insert, delete, copyto, place,
putmask, choose, select, piecewise, fill_diagonal.

NumPy's algorithms over numfuse ops: positions (insert's and delete's obj) are small host data
computed with NumPy, which also gives NumPy's errors; the data moves through numfuse's slicing,
masks, where and concatenate, so the work is lazy and stays on the array's device.
"""
import builtins
import collections.abc
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core
from ._core import ndarray
from ._creation import (arange, array, asarray, asarray_on, asnumpy, empty, follows_operands,
                        operands_device, zeros)
from ._indexing import _flat_setitem, take
from ._reductions import any as _any
from ._shape import broadcast_to, concatenate, moveaxis
from . import _ufuncs as _u  # through the module: see _indexing.py on ufunc objects in globals

__all__ = ["append", "insert", "delete", "copyto", "place", "putmask", "choose", "select",
           "piecewise", "fill_diagonal"]

_ALL = slice(None)


@follows_operands
def append(arr, values, axis=None):
    arr = asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = asarray(values).ravel()
        axis = arr.ndim - 1
    return concatenate((arr, values), axis=axis)


def _along(arr, axis):
    """arr made 1-d for axis=None, as insert and delete read it; the axis normalised."""
    arr = asarray(arr)
    if axis is None:
        arr = arr.ravel() if arr.ndim != 1 else arr
        return arr, arr.ndim - 1
    return arr, normalize_axis_index(operator.index(axis), arr.ndim)


def _key(ndim, axis, item):
    return (_ALL,) * axis + (item,) + (_ALL,) * (ndim - axis - 1)


def _host_positions(obj):
    return asnumpy(obj) if isinstance(obj, ndarray) else obj


def delete(arr, obj, axis=None):
    arr, axis = _along(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        keep = _np.ones(n, dtype=bool)
        keep[obj] = False
    else:
        obj = _host_positions(obj)
        single = isinstance(obj, (int, _np.integer)) and not isinstance(obj, bool)
        if not single:
            given = obj
            obj = _np.asarray(obj)
            if obj.size == 0 and not isinstance(given, _np.ndarray):
                obj = obj.astype(_np.intp)
            elif obj.size == 1 and obj.dtype.kind in "ui":
                obj, single = obj.item(), True
        if single:
            if obj < -n or obj >= n:
                raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
            keep = _np.ones(n, dtype=bool)
            keep[obj] = False
        elif obj.dtype == bool:
            if obj.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional "
                                 f"and match the axis length of {n}")
            keep = ~obj
        else:
            keep = _np.ones(n, dtype=bool)
            keep[obj, ] = False
    if keep.all():
        return arr.copy()
    return arr[_key(arr.ndim, axis, asarray(_np.flatnonzero(keep), device=arr.device))]


@follows_operands
def insert(arr, obj, values, axis=None):
    arr, axis = _along(arr, axis)
    n = arr.shape[axis]
    shape = list(arr.shape)
    if isinstance(obj, slice):
        positions = _np.arange(*obj.indices(n), dtype=_np.intp)
    else:
        obj = _host_positions(obj)
        positions = _np.array(obj)
        if positions.dtype == bool:
            if positions.ndim != 1:
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            positions = _np.flatnonzero(positions)
        elif positions.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    if positions.size == 1:
        index = positions.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index += n if index < 0 else 0
        values = array(values, copy=None, ndmin=arr.ndim, dtype=arr.dtype)
        if positions.ndim == 0:
            values = moveaxis(values, 0, axis)
        numnew = values.shape[axis]
        shape[axis] += numnew
        new = empty(tuple(shape), arr.dtype, device=arr.device)
        nd = arr.ndim
        new[_key(nd, axis, slice(None, index))] = arr[_key(nd, axis, slice(None, index))]
        new[_key(nd, axis, slice(index, index + numnew))] = values
        new[_key(nd, axis, slice(index + numnew, None))] = arr[_key(nd, axis, slice(index, None))]
        return new
    if positions.size == 0 and not isinstance(obj, _np.ndarray):
        positions = positions.astype(_np.intp)
    if positions.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    positions = positions.astype(_np.intp)
    bad = (positions < -n) | (positions > n)
    if bad.any():
        raise IndexError(f"index {positions[bad][0]} is out of bounds for axis {axis} with size {n}")
    positions[positions < 0] += n
    numnew = len(positions)
    order = positions.argsort(kind="mergesort")
    positions[order] += _np.arange(numnew)
    shape[axis] += numnew
    old_mask = _np.ones(shape[axis], dtype=bool)
    old_mask[positions] = False
    new = empty(tuple(shape), arr.dtype, device=arr.device)
    new[_key(arr.ndim, axis, asarray(positions, device=arr.device))] = values
    new[_key(arr.ndim, axis, asarray(_np.flatnonzero(old_mask), device=arr.device))] = arr
    return new


# ---- writes by mask and by condition ------------------------------------------------------------

def _require_array(a, fn, position="1"):
    if not isinstance(a, ndarray):
        raise TypeError(f"{fn}() argument {position} must be numpy.ndarray, not {type(a).__name__}")


def _cast_check(src, dst_dtype, casting):
    """NumPy's casting rule for copyto's source: arrays by dtype, Python scalars by value
    (NEP 50), checked by NumPy itself on a one-element stand-in for scalars."""
    if isinstance(src, ndarray):
        if not _np.can_cast(src.dtype, dst_dtype, casting):
            raise TypeError(f"Cannot cast array data from {src.dtype!r} to {dst_dtype!r} "
                            f"according to the rule '{casting}'")
        return src
    if type(src) in (bool, int, float, complex):
        _np.copyto(_np.empty((), dst_dtype), src, casting=casting)
        return src
    host = _np.asarray(src)
    if not _np.can_cast(host.dtype, dst_dtype, casting):
        raise TypeError(f"Cannot cast array data from {host.dtype!r} to {dst_dtype!r} "
                        f"according to the rule '{casting}'")
    return host


@follows_operands
def copyto(dst, src, casting="same_kind", where=True):
    _require_array(dst, "copyto")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'")
    src = _cast_check(src, dst.dtype, casting)
    src_arr = asarray(src, device=dst.device) if not isinstance(src, ndarray) else src
    if where is True:
        if _np.broadcast_shapes(src_arr.shape, dst.shape) != dst.shape:
            raise ValueError(f"could not broadcast input array from shape {src_arr.shape} into "
                             f"shape {dst.shape}")
        dst[...] = src_arr.astype(dst.dtype, copy=False)
        return None
    mask = where if isinstance(where, ndarray) else asarray(_np.asarray(where), device=dst.device)
    if mask.dtype != _np.bool_:
        raise TypeError(f"Cannot cast array data from {mask.dtype!r} to dtype('bool') according "
                        "to the rule 'safe'")
    shape = _np.broadcast_shapes(src_arr.shape, mask.shape, dst.shape)
    if shape != dst.shape:
        raise ValueError(f"could not broadcast where mask from shape {mask.shape} into shape "
                         f"{dst.shape}")
    dst[...] = _u._where(mask, src_arr.astype(dst.dtype, copy=False), dst)
    return None


def _cycled(values, n, device):
    """values, flattened, repeated or cut to n elements (NumPy's place and put)."""
    v = asarray(values, device=device).ravel()
    if v.size == n:
        return v
    return take(v, arange(n, device=device) % v.size)


@follows_operands
def place(arr, mask, vals):
    _require_array(arr, "place", "arr")
    mask = asarray(mask, device=arr.device)
    if mask.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    mask = mask.reshape(arr.shape).astype(bool, copy=False)
    count = builtins.int(mask.sum())
    vals = asarray(vals, device=arr.device)
    if count == 0:
        return None
    if vals.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    arr[mask] = _cycled(vals, count, arr.device).astype(arr.dtype, copy=False)
    return None


@follows_operands
def putmask(a, mask, values):
    _require_array(a, "putmask", "a")
    mask = asarray(mask, device=a.device)
    if mask.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    if mask.dtype != _np.bool_:
        mask = mask.astype(bool)
    if isinstance(values, (ndarray, _np.ndarray)):
        if not _np.can_cast(values.dtype, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {values.dtype!r} to {a.dtype!r} "
                            "according to the rule 'safe'")
        values = asarray(values, device=a.device)
    else:  # Python values are converted to a's dtype, as NumPy converts them
        values = asarray(_np.asarray(values, dtype=a.dtype), device=a.device)
    if values.size == 0:
        return None
    # Values are read at the written element's flat position, cycled (not by count of True).
    full = _cycled(values, a.size, a.device).reshape(a.shape).astype(a.dtype)
    a[...] = _u._where(mask.reshape(a.shape), full, a)
    return None


# ---- picking from several arrays -------------------------------------------------------------

def _weak(x, device):
    """Python scalars stay weak in result_type (NEP 50), as NumPy's choose and select keep them."""
    return x if type(x) in (int, float, complex) else asarray_on(x, device)


def _common_dtype(values):
    return _np.result_type(*(v if type(v) in (int, float, complex) else v.dtype for v in values))


def _as_dtype(v, dtype, device):
    if type(v) in (int, float, complex):
        return asarray(v, dtype=dtype, device=device)
    return v.astype(dtype, copy=False)


@follows_operands
def choose(a, choices, out=None, mode="raise"):
    device = operands_device(a, *choices)
    a = asarray_on(a, device)
    if not _np.can_cast(a.dtype, _np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to dtype('int64') according "
                        "to the rule 'safe'")
    idx = a.astype(_np.intp, copy=False)
    choices = [_weak(c, device) for c in choices]
    n = len(choices)
    if n == 0:
        raise ValueError("0-length sequence.")
    if mode == "raise":
        host = asnumpy(idx)
        if ((host < 0) | (host >= n)).any():
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = _u.remainder(idx, n)
    elif mode == "clip":
        idx = _u.minimum(_u.maximum(idx, 0), n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    dtype = _common_dtype(choices)
    arrays = [_as_dtype(c, dtype, a.device) for c in choices]
    shape = _np.broadcast_shapes(idx.shape, *(c.shape for c in arrays))
    res = arrays[0]
    for i in range(1, n):
        res = _u._where(idx == i, arrays[i], res)
    res = broadcast_to(res, shape).copy()
    if out is not None:
        _require_array(out, "choose", "out")
        out[...] = res
        return out
    return res


@follows_operands
def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    device = operands_device(*condlist, *choicelist, default)
    choices = [_weak(c, device) for c in choicelist] + [_weak(default, device)]
    try:
        dtype = _common_dtype(choices)
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    conds = [asarray_on(c, device) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != _np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    arrays = [_as_dtype(c, dtype, device) for c in choices]
    shape = _np.broadcast_shapes(*(c.shape for c in conds), *(c.shape for c in arrays))
    result = arrays[-1]
    for cond, choice in zip(conds[::-1], arrays[-2::-1]):
        result = _u._where(cond, choice, result)
    return broadcast_to(result, shape).copy()


@follows_operands
def piecewise(x, condlist, funclist, *args, **kw):
    x = asarray(x)
    n2 = len(funclist)
    # NumPy wraps one condition array in a list when its first item is not itself an array; an
    # element of a GPU array is a 0-d array (not a NumPy scalar), so for arrays the test is on
    # their rank.
    if isinstance(condlist, (ndarray, _np.ndarray)):
        first_is_array = condlist.ndim > 1
    else:
        first_is_array = not _np.isscalar(condlist) and isinstance(condlist[0], (list, ndarray, _np.ndarray))
    if _np.isscalar(condlist) or (not first_is_array and x.ndim != 0):
        condlist = [condlist]
    conds = [asarray_on(c, x.device).astype(bool) for c in condlist]
    n = len(conds)
    if n == n2 - 1:  # the "otherwise" condition
        conds.append(_u.logical_not(_any(array(conds), axis=0)))
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = zeros(x.shape, x.dtype, device=x.device)
    for cond, func in zip(conds, funclist):
        cond = broadcast_to(cond, x.shape)
        if not isinstance(func, collections.abc.Callable):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


def fill_diagonal(a, val, wrap=False):
    _require_array(a, "fill_diagonal", "a")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + builtins.sum(_np.cumprod(a.shape[:-1]))
    count = len(range(0, a.size if end is None else min(end, a.size), step))
    if count == 0:
        return None
    values = _cycled(val, count, a.device).astype(a.dtype)
    if a.flags.c_contiguous:  # the diagonal is one strided view of the memory: a plain write
        _core._strided_view(a, (count,), a.dtype, 0, [step * a.itemsize])[...] = values
    else:
        _flat_setitem(a, arange(0, count * step, step, dtype=_np.int64, device=a.device), values)
    return None
