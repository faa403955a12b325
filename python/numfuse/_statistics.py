"""Order statistics under NumPy's names: median, percentile, quantile and their nan* forms.

Each follows NumPy's own algorithm step for step (numpy/lib/_function_base_impl.py, _quantile),
so that results, dtypes and warnings are NumPy's: the positions to read (which depend only on
the length and q, or, for the nan* forms, on the count of numbers in each slice) are computed
on the host with NumPy's own method table, the data never leaves the device. The slice is
partitioned at those positions (``partition``: the CPU selects, CUDA sorts with CUB), or, for
the nan* forms along an axis, sorted, NaNs last, so that each slice's numbers come first
(_selection.py: one long slice on CUDA selects through a histogram instead of sorting). The
interpolation is NumPy's ``_lerp`` written with numfuse ufuncs. Histograms and bincount are in
_histograms.py, cov and corrcoef in _covariance.py.
"""
import warnings

import numpy as _np
from numpy.lib._function_base_impl import _QuantileMethods, _get_gamma, _get_indexes
from numpy.lib.array_utils import normalize_axis_tuple as _normalize_axis_tuple

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, asnumpy, follows_operands, full
from ._indexing import take_along_axis
from ._reductions import any as _any, cumsum, mean, nanmean, sum as _sum
from ._selection import at_ranks
from ._shape import broadcast_to, moveaxis, reshape
from ._sort import argsort, searchsorted, sort

__all__ = ["median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile"]


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _lower_to_last(a, axis):
    """(a with the reduced axes merged into its last axis, the normalised axes or None): NumPy's
    _ureduce, with the reduced axis last instead of first (the partition runs along it)."""
    if axis is None:
        return reshape(a, (-1,)), None
    axes = _normalize_axis_tuple(axis, a.ndim)
    keep = [d for d in range(a.ndim) if d not in axes]
    a = moveaxis(a, keep + list(axes), list(range(a.ndim)))
    if len(axes) == 1:
        return a, axes
    merged = 1
    for extent in a.shape[len(keep):]:  # not -1: a reshape of size 0 cannot infer it
        merged *= extent
    return reshape(a, tuple(a.shape[:len(keep)]) + (merged,)), axes


def _finish(r, a_ndim, axes, qdims, out, keepdims):
    """The result of shape q.shape + kept: keepdims' ones where the axes were, then out=."""
    if keepdims:
        if axes is None:
            shape = r.shape[:qdims] + (1,) * a_ndim
        else:
            kept = iter(r.shape[qdims:])
            shape = r.shape[:qdims] + tuple(1 if d in axes else next(kept) for d in range(a_ndim))
        r = reshape(r, shape)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a numfuse array")
        out[...] = r
        return out
    return r


def _check_q(q, percent):
    """NumPy's q as a host array (divided by 100 for percentiles), checked as NumPy checks it;
    and whether it was a Python number (NumPy's weak q: the data's float type wins)."""
    weak_q = type(q) in (int, float)
    if isinstance(q, ndarray):
        q = asnumpy(q)
    qa = _np.asanyarray(_np.true_divide(q, 100) if percent else q)
    if qa.ndim == 1 and qa.size < 10:
        valid = all(0.0 <= x <= 1.0 for x in qa)
    else:
        valid = bool(qa.min() >= 0 and qa.max() <= 1)
    if not valid:
        raise ValueError("Percentiles must be in the range [0, 100]" if percent
                         else "Quantiles must be in the range [0, 1]")
    if qa.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    return qa, weak_q


def _method(method):
    try:
        return _QuantileMethods[method]
    except (KeyError, TypeError):
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{_QuantileMethods.keys()}") from None


def _lerp(a, b, t):
    """NumPy's _lerp: a + (b - a) * t, or b - (b - a) * (1 - t) where t >= 0.5 (exact ends)."""
    diff = _u.subtract(b, a)
    low = _u.add(a, _u.multiply(diff, t))
    high = _u.subtract(b, _u.multiply(diff, 1 - t if isinstance(t, float) else _u.subtract(1, t)))
    if high.dtype != low.dtype:
        high = high.astype(low.dtype)
    if isinstance(t, float):
        return high if t >= 0.5 else low
    return _core.where(_u.greater_equal(t, 0.5), high, low)


def _gamma_array(gamma, weak_q, like):
    """gamma as NumPy's _quantile uses it: a Python float for a Python q (weak: the data's float
    type wins), else an array of q's float type."""
    if weak_q and gamma.ndim == 0:
        return float(gamma)
    if weak_q:  # per-slice gammas of a Python q: the type the Python float would have taken
        gamma = gamma.astype(_np.result_type(like.dtype, 0.0))
    return asarray(gamma, device=like.device)


def _quantile_last(arr, q, method, weak_q, count=None):
    """NumPy's _quantile along arr's last axis, unweighted: shape arr.shape[:-1] + q.shape.
    With `count` (one slice whose NaNs are to be left out: they partition last), the quantiles
    of its first `count` order statistics."""
    n = arr.shape[-1]
    c = n if count is None else count
    props = _method(method)
    nans = count is None and arr.dtype.kind in "fc"
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    vi = _np.asanyarray(props["get_virtual_index"](c, q))
    extra = [n - 1] if nans else []  # where a NaN would be
    if props["fix_gamma"] is None or (method == "linear" and vi.dtype.kind in "iu"):
        flat = vi.ravel().astype(_np.int64)
        vals = at_ranks(arr, list(flat) + extra)
        result = reshape(vals[..., :flat.size], arr.shape[:-1] + vi.shape)
    else:
        prev, nxt = _get_indexes(_np.empty(0, arr.dtype if arr.dtype.kind != "b" else "i1"), vi, c)
        m = prev.size
        vals = at_ranks(arr, list(prev.ravel() % c) + list(nxt.ravel() % c) + extra)
        shape = arr.shape[:-1] + vi.shape
        lo = reshape(vals[..., :m], shape)
        hi = reshape(vals[..., m:2 * m], shape)
        gamma = _get_gamma(vi, prev, props)
        result = _lerp(lo, hi, _gamma_array(_np.asarray(gamma), weak_q, arr))
    if nans:
        last = vals[..., -1]
        has_nan = _u.isnan(last)
        last = reshape(last, last.shape + (1,) * vi.ndim)
        result = _core.where(reshape(has_nan, has_nan.shape + (1,) * vi.ndim), last.astype(result.dtype),
                             result)
    return result


def _q_first(r, qdims):
    """Moves the q dimensions (last in the computation) to the front, as NumPy returns them."""
    if qdims == 0:
        return r
    nd = r.ndim
    return moveaxis(r, list(range(nd - qdims, nd)), list(range(qdims)))


def _weights_valid(weights, a, axes):
    """NumPy's _weights_are_valid, then broadcast to a's shape (one layout for the kernels)."""
    w = _arr(weights)
    if w.shape != a.shape:
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.shape != tuple(a.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        w = w.transpose(tuple(_np.argsort(axes)))
        w = reshape(w, tuple(s if ax in axes else 1 for ax, s in enumerate(a.shape)))
        w = broadcast_to(w, a.shape)
    if w.size and bool(_any(_u.less(w, 0))):
        raise ValueError("Weights must be non-negative.")
    return w


def _weighted_last(arr, w, q, omit_nan):
    """NumPy's inverted_cdf with weights along the last axis (a sort, the weights' cdf, a count
    of cdf < q per slice: searchsorted 'left'), vectorised over the slices."""
    n = arr.shape[-1]
    order = argsort(arr, axis=-1)
    s = take_along_axis(arr, order, -1)
    sw = take_along_axis(w, order, -1)
    nan_rows = None
    if arr.dtype.kind == "f":
        isn = _u.isnan(s)
        if omit_nan:
            sw = _core.where(isn, _np.zeros((), sw.dtype), sw)
        else:
            nan_rows = isn[..., -1]
    cdf = cumsum(sw, axis=-1, dtype=_np.float64)
    total = cdf[..., -1:]
    cdf = _u.true_divide(cdf, total)
    if n and bool(_any(_u.isnan(cdf[..., -1]))):
        raise ValueError("Weights included NaN, inf or were all zero.")
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    if n and bool(_any(_u.equal(cdf[..., 0], 0))):
        cdf = _core.where(_u.equal(cdf, 0), _np.asarray(-1, cdf.dtype), cdf)
    qf = asarray(q.ravel().astype(cdf.dtype), device=arr.device)
    if cdf.ndim == 1:  # one slice: NumPy's searchsorted itself
        idx = searchsorted(cdf, qf, side="left")
    else:  # searchsorted 'left' of every slice at once: the count of cdf < q, (..., n, nq) compares
        idx = _sum(_u.less(reshape(cdf, cdf.shape + (1,)), qf), axis=-2, dtype=_np.int64)
    idx = _u.minimum(idx, n - 1)
    r = take_along_axis(s, idx, -1)
    if nan_rows is not None:
        r = _core.where(reshape(nan_rows, nan_rows.shape + (1,)), s[..., -1:], r)
    return reshape(r, arr.shape[:-1] + q.shape)


def _nan_counts(arr):
    """The count of numbers (not NaN) of each slice along the last axis, on the host; warns as
    NumPy does for slices of NaNs only."""
    counts = asnumpy(_sum(_u.logical_not(_u.isnan(arr)), axis=-1, dtype=_np.int64))
    if counts.size and (counts == 0).any():
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
    return counts


def _nanquantile_last(arr, q, method, weak_q):
    """nanquantile along the last axis: each slice sorted (NaNs last) and read at the positions
    NumPy computes for its count of numbers, as _nanquantile_1d does slice by slice."""
    if arr.dtype.kind != "f":
        return _quantile_last(arr, q, method, weak_q)
    props = _method(method)
    counts = _nan_counts(arr)
    if arr.ndim == 1:  # one slice: a partition (NaNs go last) at positions from its count
        if counts[()] == 0:
            return full(q.shape, _np.nan, dtype=arr.dtype, device=arr.device)
        return _quantile_last(arr, q, method, weak_q, count=int(counts[()]))
    nq = q.size
    c = counts.reshape(counts.shape + (1,))
    qf = q.ravel()
    cc = _np.maximum(c, 1)  # an all-NaN slice reads position 0; its result is replaced below
    vi = _np.asanyarray(props["get_virtual_index"](cc, qf))
    vi = _np.broadcast_to(vi, counts.shape + (nq,))
    s = sort(arr, axis=-1)
    if props["fix_gamma"] is None or (method == "linear" and vi.dtype.kind in "iu"):
        idx = _np.minimum(vi.astype(_np.int64), cc - 1)
        r = take_along_axis(s, asarray(idx, device=arr.device), -1)
    else:
        prev, nxt = _get_indexes(_np.empty(0, arr.dtype), vi, cc)
        prev = _np.where(prev == -1, cc - 1, prev)
        nxt = _np.where(nxt == -1, cc - 1, nxt)
        lo = take_along_axis(s, asarray(prev.astype(_np.int64), device=arr.device), -1)
        hi = take_along_axis(s, asarray(nxt.astype(_np.int64), device=arr.device), -1)
        gamma = _np.asarray(_get_gamma(vi, prev, props))
        if weak_q:
            r = _lerp(lo, hi, _gamma_array(gamma, True, arr))
        else:
            r = _lerp(lo, hi, asarray(gamma, device=arr.device))
    if counts.size and counts.flat[0] == 0:
        # NumPy applies _nanquantile_1d slice by slice and keeps the first slice's dtype: for a
        # first slice of NaNs only, that of np.full(q.shape, nan, dtype=arr.dtype).
        r = r.astype(arr.dtype)
    if (counts == 0).any():
        empty = asarray(_np.broadcast_to(c == 0, counts.shape + (nq,)), device=arr.device)
        r = _core.where(empty, _np.asarray(_np.nan, r.dtype), r)
    return reshape(r, arr.shape[:-1] + q.shape)


def _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, percent, omit_nan):
    a = _arr(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    q, weak_q = _check_q(q, percent)
    axes = None if axis is None else _normalize_axis_tuple(axis, a.ndim, argname="axis")
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        weights = _weights_valid(weights, a, axes)
    if omit_nan and a.size == 0:
        return nanmean(a, axis, out=out, keepdims=keepdims)
    arr, axes = _lower_to_last(a, axis)
    if weights is not None:
        w, _ = _lower_to_last(weights, axis)
        if omit_nan and arr.dtype.kind == "f":
            _nan_counts(arr)
        r = _weighted_last(arr, w, q, omit_nan)
        if omit_nan and arr.dtype.kind == "f":
            nan_only = _u.logical_not(_any(_u.logical_not(_u.isnan(arr)), axis=-1))
            r = _core.where(reshape(nan_only, nan_only.shape + (1,) * q.ndim), _np.asarray(_np.nan, r.dtype), r)
    elif omit_nan:
        r = _nanquantile_last(arr, q, method, weak_q)
    else:
        r = _quantile_last(arr, q, method, weak_q)
    if omit_nan and weights is None and q.ndim > 1 and axes is not None and len(axes) > 1 and arr.ndim > 1:
        # NumPy's _nanquantile_ureduce_func moves the q dimensions from axis + i with axis -1
        # there (several axes merged last): [-1, 0, ...] to the front, a layout of its own.
        r = moveaxis(r, [-1 + i for i in range(q.ndim)], list(range(q.ndim)))
    else:
        r = _q_first(r, q.ndim)
    return _finish(r, a.ndim, axes, q.ndim, out, keepdims)


@follows_operands
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):
    """numpy.quantile: every method NumPy has (H&F's nine and the legacy ones); weights with
    'inverted_cdf'. overwrite_input is accepted (the input is never changed)."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, False, False)


@follows_operands
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None):
    """numpy.percentile: quantile of q / 100."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, True, False)


@follows_operands
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """numpy.nanquantile: NaNs left out; a slice of NaNs only gives NaN and a RuntimeWarning."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, False, True)


@follows_operands
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """numpy.nanpercentile: nanquantile of q / 100."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, True, True)


def _median_last(arr):
    """NumPy's _median along the last axis: a partition at the middle (and at the end, where a
    NaN would be), the mean of the middle one or two, NaN where the slice holds one."""
    sz = arr.shape[-1]
    middle = [sz // 2 - 1, sz // 2] if sz % 2 == 0 else [(sz - 1) // 2]
    nans = arr.dtype.kind in "fc"
    vals = at_ranks(arr, middle + ([sz - 1] if nans else []))
    r = mean(vals[..., :len(middle)], axis=-1)
    if nans:
        last = vals[..., -1]
        r = _core.where(_u.isnan(last), last.astype(r.dtype), r)
    return r


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy.median: NaN where a slice holds a NaN; the mean of the two middle values of an even
    slice, in mean's dtype (float64 for integers)."""
    a = _arr(a)
    arr, axes = _lower_to_last(a, axis)
    if arr.shape[-1] == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)  # NumPy's mean says it
        r = mean(arr, axis=-1)
    else:
        r = _median_last(arr)
    return _finish(r, a.ndim, axes, 0, out, keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy.nanmedian: NaNs left out; a slice of NaNs only gives NaN and a RuntimeWarning."""
    a = _arr(a)
    if a.size == 0:
        return nanmean(a, axis, out=out, keepdims=keepdims)
    arr, axes = _lower_to_last(a, axis)
    if arr.dtype.kind not in "fc":
        r = _median_last(arr)
    elif arr.ndim == 1:  # one slice: a partition (NaNs go last) at the middle of its numbers
        c = int(_nan_counts(arr)[()])
        if c == 0:
            r = arr[-1]
        else:
            r = mean(at_ranks(arr, sorted({(c - 1) // 2, c // 2})))
    else:
        counts = _nan_counts(arr)
        s = sort(arr, axis=-1)
        c = counts.reshape(counts.shape + (1,))
        cc = _np.maximum(c, 1)
        two = _np.concatenate(((cc - 1) // 2, cc // 2), axis=-1).astype(_np.int64)
        r = mean(take_along_axis(s, asarray(two, device=arr.device), -1), axis=-1)
        if (counts == 0).any():
            r = _core.where(asarray(counts == 0, device=arr.device), _np.asarray(_np.nan, r.dtype), r)
    return _finish(r, a.ndim, axes, 0, out, keepdims)
