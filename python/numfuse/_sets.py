"""Set functions under NumPy's names: unique (and unique_all / unique_counts / unique_inverse /
unique_values), isin, intersect1d, union1d, setdiff1d, setxor1d.

Composed from the sort family (sort, argsort, searchsorted, lexsort), comparisons, cumsum and
boolean masks, as NumPy's own _arraysetops_impl.py composes them: every step is a numfuse op on
the array's device. A result whose size depends on the data (a boolean mask's selection) makes
its inputs evaluate there, as NumPy's would compute them.
"""
import math
from collections import namedtuple

import numpy as _np

from . import _core
from ._core import ndarray
from ._creation import asarray, empty, follows_operands, ones, zeros
from ._indexing import flatnonzero
from ._reductions import any as _any, cumsum
from ._shape import concatenate, moveaxis, reshape
from ._sort import argsort, lexsort, searchsorted, sort
from ._ufuncs import isnan, logical_not

__all__ = ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values", "isin",
           "intersect1d", "union1d", "setdiff1d", "setxor1d"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _ravel(a):
    return reshape(_arr(a), -1)


def _new_flags(aux, equal_nan):
    """True where a sorted 1-D `aux` starts a new value (the first element always does); with
    equal_nan, the NaNs (sorted last, complex ones with a NaN part too) count as one value."""
    head = ones(1, dtype=bool, device=aux.device)
    if aux.size < 2:
        return ones(aux.size, dtype=bool, device=aux.device)
    neq = aux[1:] != aux[:-1]
    if equal_nan and aux.dtype.kind in "fc":
        neq = neq & logical_not(isnan(aux[1:]) & isnan(aux[:-1]))
    return concatenate([head, neq])


def _unique_1d(ar, return_index, return_inverse, return_counts, equal_nan, inverse_shape):
    n = ar.size
    if not (return_index or return_inverse) and ar.dtype.kind != "c":
        # One node: sort, keep the first of each run (and its length), count (ops/unique.h); a
        # CUDA build without CUB's select raises NotImplementedError and takes the composition.
        try:
            return _core.unique_values(ar, equal_nan, return_counts)
        except NotImplementedError:
            pass
    if return_index or return_inverse:
        perm = argsort(ar, kind="stable")
        aux = ar[perm]
    else:
        perm = None
        aux = sort(ar)
    mask = _new_flags(aux, equal_nan)
    return [aux[mask]] + _positions(mask, perm, n, ar.device, return_index, return_inverse,
                                    return_counts, inverse_shape)


def _positions(mask, perm, n, device, return_index, return_inverse, return_counts,
               inverse_shape=None):
    """unique's optional outputs from the sorted order `perm` of n items and `mask`, True where
    a new value starts: first indices, the inverse (shaped `inverse_shape`) and the counts."""
    ret = []
    if return_index:
        ret.append(perm[mask])
    if return_inverse:
        inv = empty(n, dtype=_np.int64, device=device)
        if n:
            inv[perm] = cumsum(mask) - 1
        ret.append(inv if inverse_shape is None else reshape(inv, inverse_shape))
    if return_counts:
        starts = flatnonzero(mask)
        ends = concatenate([starts[1:], asarray([n], dtype=_np.int64, device=device)])
        ret.append(ends - starts if n else zeros(0, dtype=_np.int64, device=device))
    return ret


def _unique_rows(ar, axis, return_index, return_inverse, return_counts):
    """unique along `axis`: the sub-arrays along it compared as rows, in lexicographic order."""
    from numpy.lib.array_utils import normalize_axis_index
    axis = normalize_axis_index(axis, ar.ndim)
    moved = moveaxis(ar, axis, 0)
    rows = reshape(moved, (moved.shape[0], math.prod(moved.shape[1:])))
    n, width = rows.shape
    if width and n:
        # lexsort's last key is the primary one: the first column.
        perm = lexsort([rows[:, j] for j in range(width - 1, -1, -1)])
    else:
        perm = asarray(_np.arange(n), device=ar.device)
    srt = rows[perm]
    if n < 2:
        mask = ones(n, dtype=bool, device=ar.device)
    else:
        diff = srt[1:] != srt[:-1]
        step = _any(diff, axis=1) if width else zeros(n - 1, dtype=bool, device=ar.device)
        mask = concatenate([ones(1, dtype=bool, device=ar.device), step])
    uniq = srt[mask]
    uniq = moveaxis(reshape(uniq, (uniq.shape[0],) + moved.shape[1:]), 0, axis)
    return [uniq] + _positions(mask, perm, n, ar.device, return_index, return_inverse,
                               return_counts)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002
    """numpy.unique: the sorted unique elements (or sub-arrays along `axis`), with the indices of
    their first occurrences, the inverse and the counts on request. The values are always sorted,
    which sorted=False allows."""
    ar = _arr(ar)
    if axis is None:
        ret = _unique_1d(_ravel(ar), return_index, return_inverse, return_counts, equal_nan, ar.shape)
    else:
        ret = _unique_rows(ar, axis, return_index, return_inverse, return_counts)
    return ret[0] if len(ret) == 1 else tuple(ret)


def unique_all(x):
    """numpy.unique_all (Array API): values, first indices, inverse (x's shape), counts."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


def unique_counts(x):
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_values(x):
    return unique(x, equal_nan=False)


def _check_isin_kind(kind, *arrays):
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind == "table" and any(a.dtype.kind not in "biu" for a in arrays):
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. "
                         "Please select 'sort' or None for kind.")


def _in1d(ar1, ar2, invert):
    """For each element of the 1-D ar1, whether it equals some element of ar2 (a binary search in
    the sorted ar2; NaN equals nothing, -0.0 equals 0.0, as ==)."""
    if ar2.size == 0:
        res = zeros(ar1.shape, dtype=bool, device=ar1.device)
    else:
        s = sort(ar2)
        idx = searchsorted(s, ar1)
        idx = idx - (idx == s.size)  # past the end: compare with the last element
        res = s[idx] == ar1
    return logical_not(res) if invert else res


@follows_operands
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """numpy.isin: element-wise membership of `element` in `test_elements`, of element's shape."""
    element = _arr(element)
    # test_elements given as a list or a NumPy array join element's device (not the default one).
    test = test_elements if isinstance(test_elements, ndarray) else asarray(test_elements, device=element.device)
    _check_isin_kind(kind, element, test)
    return reshape(_in1d(_ravel(element), _ravel(test), invert), element.shape)


@follows_operands
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """numpy.intersect1d: the sorted values in both; with return_indices, where each first
    occurs in ar1 and ar2."""
    ar1, ar2 = _arr(ar1), _arr(ar2)
    if not assume_unique:
        if return_indices:
            ar1, ind1 = unique(ar1, return_index=True)
            ar2, ind2 = unique(ar2, return_index=True)
        else:
            ar1, ar2 = unique(ar1), unique(ar2)
    else:
        ar1, ar2 = _ravel(ar1), _ravel(ar2)
    aux = concatenate([ar1, ar2])
    if return_indices:
        order = argsort(aux, kind="stable")
        aux = aux[order]
    else:
        aux = sort(aux)
    mask = aux[1:] == aux[:-1]
    both = aux[:-1][mask]
    if not return_indices:
        return both
    i1 = order[:-1][mask]
    i2 = order[1:][mask] - ar1.size
    if not assume_unique:
        i1, i2 = ind1[i1], ind2[i2]
    return both, i1, i2


@follows_operands
def union1d(ar1, ar2):
    """numpy.union1d: the sorted unique values of either input."""
    return unique(concatenate([_ravel(ar1), _ravel(ar2)]))


@follows_operands
def setdiff1d(ar1, ar2, assume_unique=False):
    """numpy.setdiff1d: the (sorted, unless assume_unique) unique values of ar1 not in ar2."""
    if assume_unique:
        ar1 = _ravel(ar1)
    else:
        ar1, ar2 = unique(ar1), unique(ar2)
    return ar1[_in1d(ar1, _ravel(ar2), invert=True)]


@follows_operands
def setxor1d(ar1, ar2, assume_unique=False):
    """numpy.setxor1d: the sorted values in exactly one of the inputs."""
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    aux = concatenate([_ravel(ar1), _ravel(ar2)])
    if aux.size == 0:
        return aux
    aux = sort(aux)
    edge = ones(1, dtype=bool, device=aux.device)
    flag = concatenate([edge, aux[1:] != aux[:-1], edge])
    return aux[flag[1:] & flag[:-1]]
