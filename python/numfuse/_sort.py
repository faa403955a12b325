"""Sorting and searching under NumPy's names: sort, argsort, partition, argpartition,
searchsorted, sort_complex, lexsort, and the ndarray methods sort/argsort/partition/
argpartition/searchsorted.

Each sort is one C++ node (``_core.sort`` / ``argsort`` / ``partition`` / ``searchsorted``;
cpp/numfuse/ops/sort.h). numfuse's sorts are always stable, which every `kind` NumPy accepts
allows; `kind` and `stable` are still checked as NumPy checks them.
"""
import numpy as _np

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, follows_operands
from ._indexing import take_along_axis

__all__ = ["sort", "argsort", "partition", "argpartition", "searchsorted", "sort_complex",
           "lexsort"]

_SORT_KINDS = "qhms"  # quicksort, heapsort, mergesort, stable: NumPy reads the first letter


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _check_kind(kind, stable):
    # NumPy's PyArray_SortkindConverter: the first letter decides; None is the default.
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str or None (got {kind!r})")
    if not kind or kind[0].lower() not in _SORT_KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got '{kind}')")


def _descending_key(a):
    """A key whose ascending order is `a`'s descending order, NaNs still last, ties unchanged:
    -a for floats and complex (negation keeps NaN a NaN, and reverses NumPy's complex order within
    each NaN class), ~a for integers and bool. Exact, and fused into the sort's input."""
    return _u.negative(a) if a.dtype.kind in "fc" else _u.invert(a)


def _is_descending(descending):
    # NumPy 2.5: "If False or None, the returned array will be sorted in ascending order".
    return descending is not _np._NoValue and descending is not None and bool(descending)


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=_np._NoValue):
    """numpy.sort: a sorted copy along `axis` (None: flattened); NaNs last (descending too, as
    NumPy 2.5's `descending=`); always stable."""
    _check_kind(kind, stable)
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    a = _arr(a)
    if not _is_descending(descending):
        return _core.sort(a, axis)
    if a.dtype.kind == "c":
        # Values back from the indices: undoing -z would flip the sign of a NaN part.
        flat = a.reshape(-1) if axis is None else a
        return take_along_axis(flat, _core.argsort(_descending_key(flat), -1 if axis is None else axis),
                               -1 if axis is None else axis)
    s = _core.sort(_descending_key(a), axis)
    if a.dtype.kind == "f":  # the sort's NaNs are positive: keep them so, as ascending sorts give
        return _core.where(_u.isnan(s), s, _u.negative(s))
    return _u.invert(s)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=_np._NoValue):
    """numpy.argsort: int64 indices that sort `a` along `axis`; equal keys keep their order
    (descending too: NumPy 2.5's stable descending order, NaNs last)."""
    _check_kind(kind, stable)
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    a = _arr(a)
    return _core.argsort(_descending_key(a) if _is_descending(descending) else a, axis)


def _kth(kth):
    k = _np.asarray(kth)
    if k.dtype.kind not in "iub":
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("kth array must have dimension <= 1")
    return [int(x) for x in k.reshape(-1)]


def _check_select(kind):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got '{kind}')")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy.partition: each kth element in its sorted place along `axis`, smaller ones before."""
    _check_select(kind)
    return _core.partition(_arr(a), _kth(kth), axis, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy.argpartition: the indices that partition `a` (a selection, not a full sort)."""
    _check_select(kind)
    return _core.partition(_arr(a), _kth(kth), axis, True)


@follows_operands
def searchsorted(a, v, side="left", sorter=None):
    """numpy.searchsorted: where the elements of `v` would go into the sorted 1-D `a`."""
    if not isinstance(side, str):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    if side not in ("left", "right"):
        if side[:1].lower() in ("l", "r") and side:  # NumPy 2's message for a prefix or case
            raise ValueError("search side must be one of 'left' or 'right'")
        raise ValueError(f"search side must be 'left' or 'right' (got '{side}')")
    a = _arr(a)
    scalar = not isinstance(v, ndarray) and _np.ndim(v) == 0
    if not isinstance(v, (ndarray, int, float, complex)):
        v = _np.asarray(v)
    dt = _np.result_type(a.dtype, getattr(v, "dtype", v))
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1
                         else "object of too small depth for desired array")
    a = a.astype(dt, copy=False)
    v = v.astype(dt, copy=False) if isinstance(v, ndarray) else asarray(v, dtype=dt)
    if sorter is not None:
        sorter = _arr(sorter)
        if sorter.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if sorter.ndim != 1 or sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        sorter = sorter.astype(_np.int64, copy=False)
        if sorter.size and bool(((sorter < 0) | (sorter >= a.size)).any()):
            raise ValueError("Sorter index out of range.")
    res = _core.searchsorted(a, v, side == "right", sorter)
    return res[()] if scalar else res


def sort_complex(a):
    """numpy.sort_complex: sorted by real part, then imaginary part, as complex."""
    b = sort(a)
    if b.dtype.kind != "c":
        b = b.astype(_np.complex64 if b.dtype.char in "bhBH" else _np.complex128)
    return b


@follows_operands
def lexsort(keys, axis=-1):
    """numpy.lexsort: indices sorting by the last key, then the one before... (stable sorts
    from the first key to the last)."""
    if isinstance(keys, ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    else:
        keys = [_arr(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if len(shape) == 0:
        return _core.argsort(keys[0], None)
    order = _core.argsort(keys[0], axis)
    for k in keys[1:]:
        order = take_along_axis(order, _core.argsort(take_along_axis(k, order, axis), axis), axis)
    return order


# ---- ndarray methods ----------------------------------------------------------------------------

def _m_sort(self, axis=-1, kind=None, order=None, *, stable=None, descending=_np._NoValue):
    # In place, as NumPy's: the sorted values are written back into the array's own memory.
    self[...] = sort(self, axis, kind, order, stable=stable, descending=descending)


def _m_argsort(self, axis=-1, kind=None, order=None, *, stable=None, descending=_np._NoValue):
    return argsort(self, axis, kind, order, stable=stable, descending=descending)


def _m_partition(self, kth, axis=-1, kind="introselect", order=None):
    self[...] = partition(self, kth, axis, kind, order)


def _m_argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return argpartition(self, kth, axis, kind, order)


def _m_searchsorted(self, v, side="left", sorter=None):
    return searchsorted(self, v, side, sorter)


# The sorting methods of ndarray (attached by _methods.py).
METHODS = {"sort": _m_sort, "argsort": _m_argsort, "partition": _m_partition,
           "argpartition": _m_argpartition, "searchsorted": _m_searchsorted}

