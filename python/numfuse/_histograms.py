"""Counting under NumPy's names: bincount, histogram, histogram_bin_edges, histogram2d,
histogramdd, digitize.

The counting is one C++ node (``_core.bincount`` / ``_core.histogram_counts``; ops/statistics.h):
threads with private bins on the CPU, a shared-memory privatised kernel on CUDA. What decides the
bins (NumPy's range rules, the estimators of 'auto', 'fd', ...) follows
numpy/lib/_histograms_impl.py step for step on host scalars; only reductions of the data (its
min and max, std, percentiles) run on the device and come back as NumPy scalars of NumPy's dtype.
"""
import builtins
import operator
import warnings

import numpy as _np
from numpy._core.multiarray import _monotonicity
from numpy.lib._histograms_impl import _unsigned_subtract

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, asnumpy, follows_operands
from ._math import imag, real
from ._reductions import any as _any, max as _max, mean, min as _min, std, sum as _sum
from ._shape import atleast_2d, reshape, stack
from ._sort import searchsorted
from ._statistics import percentile

__all__ = ["bincount", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd", "digitize"]

_range = builtins.range


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _host(x):
    """A numfuse 0-d result as the NumPy scalar NumPy's own call would have produced."""
    return asnumpy(x)[()]


def _value_range(x):
    """(min, max) of an integer array as Python ints. A CPU array is read in place by NumPy's
    loops (no copy): numfuse's int64 min reduction is ~3x slower than NumPy's today and would
    take two passes (docs/decisions.md, "Statistics"); elsewhere two device reductions."""
    if str(x.device).startswith("cpu"):
        h = asnumpy(x)
        return int(h.min()), int(h.max())
    return int(_host(_min(x))), int(_host(_max(x)))


# ---- bincount ----------------------------------------------------------------------------------

@follows_operands
def bincount(x, /, weights=None, minlength=0):
    """numpy.bincount: int64 counts of each value of the 1-D non-negative integer x (float64
    sums of `weights` with them), at least `minlength` long."""
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    if x.dtype.kind not in "biu":  # NumPy takes every integer (uint64 wraps, then is negative)
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None:
        weights = _arr(weights)
        if weights.ndim != 1:
            raise ValueError("object too deep for desired array" if weights.ndim > 1
                             else "object of too small depth for desired array")
        if weights.shape[0] != x.shape[0]:
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.astype(_np.float64, copy=False)
    length = minlength
    if x.size:
        x = x.astype(_np.int64, copy=False)
        lo, hi = _value_range(x)
        if lo < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = builtins.max(hi + 1, minlength)
    return _core.bincount(x.astype(_np.int64, copy=False), weights, length)


# ---- the bin edges (NumPy's _get_bin_edges and its estimators) -------------------------------------

def _ptp(x):
    return _unsigned_subtract(_host(_max(x)), _host(_min(x)))


def _bin_sqrt(x, range):
    return _ptp(x) / _np.sqrt(x.size)


def _bin_sturges(x, range):
    return _ptp(x) / (_np.log2(x.size) + 1.0)


def _bin_rice(x, range):
    return _ptp(x) / (2.0 * x.size ** (1.0 / 3))


def _bin_scott(x, range):
    return (24.0 * _np.pi ** 0.5 / x.size) ** (1.0 / 3.0) * _host(std(x))


def _bin_stone(x, range):
    n = x.size
    ptp_x = _ptp(x)
    if n <= 1 or ptp_x == 0:
        return 0

    def jhat(nbins):
        hh = ptp_x / nbins
        p_k = asnumpy(histogram(x, bins=nbins, range=range)[0]) / n
        return (2 - (n + 1) * p_k.dot(p_k)) / hh

    upper = builtins.max(100, int(_np.sqrt(n)))
    nbins = builtins.min(_range(1, upper + 1), key=jhat)
    if nbins == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=3)
    return ptp_x / nbins


def _bin_doane(x, range):
    if x.size > 2:
        sg1 = _np.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
        sigma = _host(std(x))
        if sigma > 0.0:
            temp = _u.subtract(x, mean(x))
            temp = _u.true_divide(temp, sigma).astype(temp.dtype, copy=False)
            temp = _u.power(temp, 3)
            g1 = _host(mean(temp))
            return _ptp(x) / (1.0 + _np.log2(x.size) + _np.log2(1.0 + _np.absolute(g1) / sg1))
    return 0.0


def _bin_fd(x, range):
    iqr = _np.subtract(*asnumpy(percentile(x, [75, 25])))
    return 2.0 * iqr * x.size ** (-1.0 / 3.0)


def _bin_auto(x, range):
    fd_bw = _bin_fd(x, range)
    sturges_bw = _bin_sturges(x, range)
    sqrt_bw = _bin_sqrt(x, range)
    fd_bw_corrected = builtins.max(fd_bw, sqrt_bw / 2)
    return builtins.min(fd_bw_corrected, sturges_bw)


_SELECTORS = {"stone": _bin_stone, "auto": _bin_auto, "doane": _bin_doane, "fd": _bin_fd,
              "rice": _bin_rice, "scott": _bin_scott, "sqrt": _bin_sqrt, "sturges": _bin_sturges}


def _ravel_and_check_weights(a, weights):
    a = _arr(a)
    if a.dtype == _np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {_np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=3)
        a = a.astype(_np.uint8)
    if weights is not None:
        weights = _arr(weights)
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = reshape(weights, (-1,))
    return reshape(a, (-1,)), weights


def _get_outer_edges(a, range):
    if range is not None:
        first_edge, last_edge = range
        if first_edge > last_edge:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_np.isfinite(first_edge) and _np.isfinite(last_edge)):
            raise ValueError(f"supplied range of [{first_edge}, {last_edge}] is not finite")
    elif a.size == 0:
        first_edge, last_edge = 0, 1
    else:
        first_edge, last_edge = _host(_min(a)), _host(_max(a))
        if not (_np.isfinite(first_edge) and _np.isfinite(last_edge)):
            raise ValueError(f"autodetected range of [{first_edge}, {last_edge}] is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def _get_bin_edges(a, bins, range, weights):
    """(the edges as a host array, whether they are NumPy's equal bins)."""
    n_equal_bins = None
    bin_edges = None
    if isinstance(bins, str):
        if bins not in _SELECTORS:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
        first_edge, last_edge = _get_outer_edges(a, range)
        if range is not None:
            keep = _u.logical_and(_u.greater_equal(a, first_edge), _u.less_equal(a, last_edge))
            if not bool(_core_all(keep)):
                a = a[keep]
        if a.size == 0:
            n_equal_bins = 1
        else:
            width = _SELECTORS[bins](a, (first_edge, last_edge))
            if width:
                if a.dtype.kind in "iu" and width < 1:
                    width = 1
                delta = _unsigned_subtract(last_edge, first_edge)
                n_equal_bins = int(_np.ceil(delta / width))
            else:
                n_equal_bins = 1
    elif _np.ndim(bins) == 0:
        try:
            n_equal_bins = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if n_equal_bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first_edge, last_edge = _get_outer_edges(a, range)
    elif _np.ndim(bins) == 1:
        bin_edges = asnumpy(bins) if isinstance(bins, ndarray) else _np.asarray(bins)
        if _np.any(bin_edges[:-1] > bin_edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
    else:
        raise ValueError("`bins` must be 1d, when an array")
    if n_equal_bins is not None:
        # NumPy's bin type (gh-10322): the edges' and the data's, a float for integers.
        bin_type = _np.result_type(first_edge, last_edge, _np.empty(0, a.dtype))
        if bin_type.kind in "iub":
            bin_type = _np.result_type(bin_type, float)
        bin_edges = _np.linspace(first_edge, last_edge, n_equal_bins + 1, endpoint=True, dtype=bin_type)
        if _np.any(bin_edges[:-1] >= bin_edges[1:]):
            raise ValueError(f"Too many bins for data range. Cannot create {n_equal_bins} finite-sized bins.")
        return bin_edges, True
    return bin_edges, False


def _core_all(x):
    return _u.logical_not(_any(_u.logical_not(x)))


def _counts(a, edges, uniform, weights):
    """The node's counts of a in the host edges (compared in float32 where NumPy compares in a
    float of at most 32 bits, else float64); float64 sums with weights."""
    cmp = _np.result_type(edges.dtype, a.dtype)
    etype = _np.float32 if cmp.kind == "f" and cmp.itemsize <= 4 else _np.float64
    dev_edges = asarray(edges.astype(etype), device=a.device)
    if a.dtype.kind == "c":
        raise TypeError("histogram: complex data has no order")
    return _core.histogram_counts(a, dev_edges, uniform, weights)


@follows_operands
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """numpy.histogram_bin_edges: the edges `histogram` would use."""
    a, weights = _ravel_and_check_weights(a, weights)
    edges, _ = _get_bin_edges(a, bins, range, weights)
    return asarray(edges, device=a.device)


@follows_operands
def histogram(a, bins=10, range=None, density=None, weights=None):
    """numpy.histogram: (counts or summed weights, edges); bins an int, a sequence of edges or
    one of NumPy's estimator names."""
    a, weights = _ravel_and_check_weights(a, weights)
    edges, uniform = _get_bin_edges(a, bins, range, weights)
    if weights is None:
        n = _counts(a, edges, uniform, None)
    elif weights.dtype.kind == "c":
        re = _counts(a, edges, uniform, real(weights).astype(_np.float64))
        im = _counts(a, edges, uniform, imag(weights).astype(_np.float64))
        n = _u.add(re.astype(weights.dtype), _u.multiply(im.astype(weights.dtype), 1j))
    else:
        n = _counts(a, edges, uniform, weights.astype(_np.float64)).astype(weights.dtype)
    dev_edges = asarray(edges, device=a.device)
    if density:
        db = asarray(_np.array(_np.diff(edges), float), device=a.device)
        return _u.true_divide(_u.true_divide(n, db), _sum(n)), dev_edges
    return n, dev_edges


# ---- several dimensions ------------------------------------------------------------------------

@follows_operands
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """numpy.histogramdd: the bin of each coordinate by searchsorted, one flat index, one
    bincount."""
    if isinstance(sample, (ndarray, _np.ndarray)) and sample.ndim == 2:  # N points of D axes
        sample = _arr(sample)
    elif isinstance(sample, (list, tuple)) and sample and all(_np.ndim(s) == 1 for s in sample):
        sample = stack([_arr(s) for s in sample]).T
    else:
        sample = atleast_2d(_arr(sample)).T
    N, D = sample.shape
    nbin = _np.empty(D, _np.intp)
    edges = D * [None]
    dedges = D * [None]
    if weights is not None:
        weights = _arr(weights)
    try:
        M = len(bins)
        if M != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")
    for i in _range(D):
        if _np.ndim(bins[i]) == 0:
            if bins[i] < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            smin, smax = _get_outer_edges(sample[:, i], range[i])
            try:
                n = operator.index(bins[i])
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            edges[i] = _np.linspace(smin, smax, n + 1)
        elif _np.ndim(bins[i]) == 1:
            edges[i] = asnumpy(bins[i]) if isinstance(bins[i], ndarray) else _np.asarray(bins[i])
            if _np.any(edges[i][:-1] > edges[i][1:]):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        nbin[i] = len(edges[i]) + 1
        dedges[i] = _np.diff(edges[i])
    flat = None
    for i in _range(D):
        col = sample[:, i]
        e = asarray(edges[i], device=sample.device)
        idx = searchsorted(e, col, side="right")
        idx = _core.where(_u.equal(col, edges[i][-1]), _u.subtract(idx, 1), idx)
        stride = int(_np.prod(nbin[i + 1:]))
        term = _u.multiply(idx, stride) if stride != 1 else idx
        flat = term if flat is None else _u.add(flat, term)
    total = int(nbin.prod())
    if weights is not None:
        if weights.shape != (N,):
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.astype(_np.float64)
    hist = _core.bincount(flat.astype(_np.int64, copy=False), weights, total)
    hist = reshape(hist, tuple(int(b) for b in nbin)).astype(float)
    hist = hist[D * (slice(1, -1),)]
    if density:
        s = _sum(hist)
        for i in _range(D):
            shape = _np.ones(D, int)
            shape[i] = nbin[i] - 2
            hist = _u.true_divide(hist, asarray(dedges[i].reshape(shape), device=sample.device))
        hist = _u.true_divide(hist, s)
    return hist, [asarray(e, device=sample.device) for e in edges]


@follows_operands
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """numpy.histogram2d: histogramdd of the pairs (x, y)."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N not in {1, 2}:
        xedges = yedges = bins
        bins = [xedges, yedges]
    hist, edges = histogramdd([_arr(x), _arr(y)], bins, range, density, weights)
    return hist, edges[0], edges[1]


@follows_operands
def digitize(x, bins, right=False):
    """numpy.digitize: the bin of each x (searchsorted in increasing or decreasing bins)."""
    x = _arr(x)
    host_bins = asnumpy(bins) if isinstance(bins, ndarray) else _np.asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    mono = _monotonicity(host_bins)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if mono == -1:
        return _u.subtract(len(host_bins), searchsorted(asarray(host_bins[::-1], device=x.device), x, side=side))
    return searchsorted(asarray(host_bins, device=x.device), x, side=side)
