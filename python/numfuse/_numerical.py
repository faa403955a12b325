"""NumPy's numerical routines composed of numfuse ops: gradient, interp, trapezoid, unwrap,
ediff1d, cross, kron, vander, trim_zeros, real_if_close.

Each follows NumPy 2's own algorithm step by step (the same formulas in the same order, so that
values agree to rounding and dtypes exactly); the elementwise steps fuse like any numfuse
expression, on whichever device the input lives. convolve/correlate are in _convolve.py, the
window functions and i0 in _windows.py.
"""
import operator
import warnings

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index as _normalize_axis_index
from numpy.lib.array_utils import normalize_axis_tuple as _normalize_axis_tuple

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import array, asarray, asnumpy, empty, empty_like, follows_operands
from ._reductions import all as _all, cumprod, diff
from ._shape import broadcast_to, concatenate, expand_dims, moveaxis
from ._indexing import argwhere, take

__all__ = ["gradient", "interp", "trapezoid", "unwrap", "ediff1d", "cross", "kron", "vander",
           "trim_zeros", "real_if_close"]

_where = _core.where


def _device_of(*values):
    """The device of the first numfuse array among values (None: the default device)."""
    for v in values:
        if isinstance(v, ndarray):
            return v.device
    return None


def _ndim(v):
    return v.ndim if isinstance(v, ndarray) else _np.ndim(v)


# ---- gradient ----------------------------------------------------------------------------------

def _gradient_spacings(f, axes, varargs):
    """NumPy's dx list: one scalar or one array of differences per axis."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and _ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if n != len(axes):
        raise TypeError("invalid number of arguments")
    dx = list(varargs)
    for i, distances in enumerate(dx):
        distances = asarray(distances, device=f.device) if not isinstance(distances, ndarray) else distances
        if distances.ndim == 0:
            continue
        if distances.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(distances) != f.shape[axes[i]]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        if distances.dtype.kind in "iu":
            distances = distances.astype(_np.float64)  # integer differences would wrap
        diffx = diff(distances)
        # Constant spacing takes the scalar formulas, as NumPy (the values differ in rounding).
        if bool(_all(diffx == diffx[0])):
            diffx = diffx[0]
        dx[i] = diffx
    return dx


@follows_operands
def gradient(f, *varargs, axis=None, edge_order=1):
    f = asarray(f)
    nd = f.ndim
    axes = tuple(range(nd)) if axis is None else _normalize_axis_tuple(axis, nd)
    dx = _gradient_spacings(f, axes, varargs)
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(_np.float64)  # differences of integers must not wrap
        otype = _np.dtype(_np.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        outvals.append(_gradient_along(f, ax, ax_dx, edge_order, otype))
    return outvals[0] if len(axes) == 1 else tuple(outvals)


def _at(nd, axis, index):
    key = [slice(None)] * nd
    key[axis] = index
    return tuple(key)


def _gradient_along(f, axis, ax_dx, edge_order, otype):
    nd = f.ndim
    out = empty_like(f, dtype=otype)
    uniform = _ndim(ax_dx) == 0
    s = lambda index: _at(nd, axis, index)  # noqa: E731
    # second-order central differences inside
    if uniform:
        out[s(slice(1, -1))] = (f[s(slice(2, None))] - f[s(slice(None, -2))]) / (2. * ax_dx)
    else:
        dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
        a = -(dx2) / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        shape = [1] * nd
        shape[axis] = -1
        a, b, c = a.reshape(shape), b.reshape(shape), c.reshape(shape)
        out[s(slice(1, -1))] = a * f[s(slice(None, -2))] + b * f[s(slice(1, -1))] + c * f[s(slice(2, None))]
    if edge_order == 1:
        dx_0 = ax_dx if uniform else ax_dx[0]
        out[s(0)] = (f[s(1)] - f[s(0)]) / dx_0
        dx_n = ax_dx if uniform else ax_dx[-1]
        out[s(-1)] = (f[s(-1)] - f[s(-2)]) / dx_n
        return out
    if uniform:
        a, b, c = -1.5 / ax_dx, 2. / ax_dx, -0.5 / ax_dx
    else:
        dx1, dx2 = ax_dx[0], ax_dx[1]
        a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = - dx1 / (dx2 * (dx1 + dx2))
    out[s(0)] = a * f[s(0)] + b * f[s(1)] + c * f[s(2)]
    if uniform:
        a, b, c = 0.5 / ax_dx, -2. / ax_dx, 1.5 / ax_dx
    else:
        dx1, dx2 = ax_dx[-2], ax_dx[-1]
        a = (dx2) / (dx1 * (dx1 + dx2))
        b = - (dx2 + dx1) / (dx1 * dx2)
        c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
    out[s(-1)] = a * f[s(-3)] + b * f[s(-2)] + c * f[s(-1)]
    return out


# ---- interp ------------------------------------------------------------------------------------

def _sample_points(v, dtype, dev, any_rank=False):
    v = asarray(v, device=dev) if not isinstance(v, ndarray) else v
    if not _np.can_cast(v.dtype, dtype, "safe"):  # NumPy's C conversion casts safely only
        raise TypeError(f"Cannot cast array data from {v.dtype!r} to {_np.dtype(dtype)!r} "
                        "according to the rule 'safe'")
    v = v.astype(dtype, copy=False)
    if v.ndim != 1 and not any_rank:  # NumPy's C conversion to a 1-d array
        raise ValueError("object too deep for desired array" if v.ndim > 1
                         else "object of too small depth for desired array")
    return v


def interp(x, xp, fp, left=None, right=None, period=None):
    """numpy.interp: NumPy's argument rules here, its compiled loop in C++ (kernels/interp.cuh,
    one pass over the points on either device)."""
    dev = _device_of(x, xp, fp)
    fp_dtype = fp.dtype if isinstance(fp, ndarray) else _np.asarray(fp).dtype
    is_complex = fp_dtype.kind == "c"
    dtype = _np.complex128 if is_complex else _np.float64
    x = _sample_points(x, _np.float64, dev, any_rank=True)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        xp = asarray(xp, dtype=_np.float64, device=dev)
        fp = asarray(fp, dtype=dtype, device=dev)
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x = _u.remainder(x, period)
        xp = _u.remainder(xp, period)
        order = xp.argsort()
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = concatenate((fp[-1:], fp, fp[0:1]))
    fp = _sample_points(fp, dtype, dev)
    xp = _sample_points(xp, _np.float64, dev)
    if xp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if fp.shape[0] != xp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    conv = complex if is_complex else float
    # 0-d views, not element reads (a host scalar on the CPU, a wait on a GPU)
    lval = fp[:1].reshape(()) if left is None else asarray(conv(left), dtype=dtype, device=dev)
    rval = fp[-1:].reshape(()) if right is None else asarray(conv(right), dtype=dtype, device=dev)
    return _core.interp(x, xp, fp, lval, rval)


# ---- trapezoid, unwrap, ediff1d -----------------------------------------------------------------

@follows_operands
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = asarray(y)
    if x is None:
        d = dx
    else:
        x = asarray(x, device=y.device) if not isinstance(x, ndarray) else x
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    nd = y.ndim
    hi, lo = _at(nd, axis, slice(1, None)), _at(nd, axis, slice(None, -1))
    return (d * (y[hi] + y[lo]) / 2.0).sum(axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * _np.pi):
    p = asarray(p)
    nd = p.ndim
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    tail = _at(nd, axis, slice(1, None))
    dtype = _np.result_type(dd.dtype, period.dtype if isinstance(period, ndarray) else period)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = _u.remainder(dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        kept = ddmod.dtype  # NumPy's copyto into ddmod: the dtype stays
        ddmod = _where((ddmod == interval_low) & (dd > 0), interval_high, ddmod).astype(kept, copy=False)
    ph_correct = ddmod - dd
    ph_correct = _where(abs(dd) < discont, 0, ph_correct).astype(ph_correct.dtype, copy=False)
    up = array(p, copy=True, dtype=dtype)
    up[tail] = p[tail] + ph_correct.cumsum(axis)
    return up


def _edge_values(values, dtype_req, dev, which):
    values = asarray(values, device=dev) if not isinstance(values, ndarray) else values
    if not _np.can_cast(values.dtype, dtype_req, casting="same_kind"):
        raise TypeError(f"dtype of `{which}` must be compatible with input `ary` under the "
                        "`same_kind` rule.")
    return values.ravel()


@follows_operands
def ediff1d(ary, to_end=None, to_begin=None):
    ary = asarray(ary).ravel()
    dtype_req = ary.dtype
    if to_begin is None and to_end is None:
        return ary[1:] - ary[:-1]
    begin = None if to_begin is None else _edge_values(to_begin, dtype_req, ary.device, "to_begin")
    end = None if to_end is None else _edge_values(to_end, dtype_req, ary.device, "to_end")
    l_begin = 0 if begin is None else len(begin)
    l_end = 0 if end is None else len(end)
    l_diff = max(len(ary) - 1, 0)
    result = empty((l_diff + l_begin + l_end,), dtype=dtype_req, device=ary.device)
    if l_begin > 0:
        result[:l_begin] = begin
    if l_end > 0:
        result[l_begin + l_diff:] = end
    result[l_begin:l_begin + l_diff] = ary[1:] - ary[:-1]
    return result


# ---- cross, kron, vander ------------------------------------------------------------------------

_CROSS_NEEDS_THREE = _np.lib.NumpyVersion(_np.__version__) >= "2.5.0.dev0"


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    dev = _device_of(a, b)
    a = asarray(a, device=dev) if not isinstance(a, ndarray) else a
    b = asarray(b, device=dev) if not isinstance(b, ndarray) else b
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = _normalize_axis_index(axisa, a.ndim, msg_prefix="axisa")
    axisb = _normalize_axis_index(axisb, b.ndim, msg_prefix="axisb")
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if _CROSS_NEEDS_THREE and (a.shape[-1] != 3 or b.shape[-1] != 3):
        # NumPy 2.5 removed the 2-element vectors deprecated in 2.0: the installed NumPy decides.
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they are {a.shape[-1]} and {b.shape[-1]} dimensional instead.")
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    shape = _np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    three = a.shape[-1] == 3 or b.shape[-1] == 3
    if three:
        axisc = _normalize_axis_index(axisc, len(shape) + 1, msg_prefix="axisc")
    dtype = _np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype), b.astype(dtype)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if not three:
        return a0 * b1 - a1 * b0
    if a.shape[-1] == 2:  # (a0, a1, 0) x (b0, b1, b2)
        b2 = b[..., 2]
        parts = (a1 * b2, -(a0 * b2), a0 * b1 - a1 * b0)
    elif b.shape[-1] == 2:  # (a0, a1, a2) x (b0, b1, 0)
        a2 = a[..., 2]
        parts = (-(a2 * b1), a2 * b0, a0 * b1 - a1 * b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        parts = (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
    cp = empty(shape + (3,), dtype=dtype, device=a.device)
    for i, part in enumerate(parts):  # one fused kernel per component, written in place
        cp[..., i] = part
    return moveaxis(cp, -1, axisc)


def kron(a, b):
    dev = _device_of(b, a)
    b = asarray(b, device=dev) if not isinstance(b, ndarray) else b
    a = array(a, copy=False, ndmin=b.ndim) if isinstance(a, ndarray) else array(a, ndmin=b.ndim, device=dev)
    ndb, nda = b.ndim, a.ndim
    nd = max(ndb, nda)
    if nda == 0 or ndb == 0:
        return _u.multiply(a, b)
    as_ = (1,) * max(0, ndb - nda) + a.shape
    bs = (1,) * max(0, nda - ndb) + b.shape
    a_arr = expand_dims(a, axis=tuple(range(ndb - nda)))
    b_arr = expand_dims(b, axis=tuple(range(nda - ndb)))
    a_arr = expand_dims(a_arr, axis=tuple(range(1, nd * 2, 2)))
    b_arr = expand_dims(b_arr, axis=tuple(range(0, nd * 2, 2)))
    return _u.multiply(a_arr, b_arr).reshape(tuple(p * q for p, q in zip(as_, bs)))


def vander(x, N=None, increasing=False):
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    if N is None:
        N = len(x)
    N = operator.index(N)
    dtype = _np.promote_types(x.dtype, int)
    v = empty((len(x), N), dtype=dtype, device=x.device)
    tmp = v if increasing else v[:, ::-1]
    if N > 0:
        tmp[:, 0] = 1
    if N > 1:  # powers as a running product, as NumPy's multiply.accumulate
        tmp[:, 1:] = cumprod(broadcast_to(x[:, None].astype(dtype), (len(x), N - 1)), axis=1)
    return v


# ---- trim_zeros, real_if_close -----------------------------------------------------------------

def trim_zeros(filt, trim="fb", axis=None):
    filt_ = asarray(filt) if not isinstance(filt, ndarray) else filt
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axis_tuple = tuple(range(filt_.ndim))
    else:
        axis_tuple = _normalize_axis_tuple(axis, filt_.ndim, argname="axis")
    if not axis_tuple:
        return filt
    found = asnumpy(argwhere(filt_))  # the bounds are data: they decide the result's shape
    if found.size == 0:
        start = stop = [0] * filt_.ndim
    else:
        start = [int(v) for v in found.min(axis=0)]
        stop = [int(v) + 1 for v in found.max(axis=0)]
        if "f" not in trim:
            start = [None] * filt_.ndim
        if "b" not in trim:
            stop = [None] * filt_.ndim
    sl = tuple(slice(start[ax], stop[ax]) if ax in axis_tuple else slice(None)
               for ax in range(filt_.ndim))
    if len(sl) == 1:
        return filt[sl[0]]
    return filt[sl]


def real_if_close(a, tol=100):
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = _np.finfo(a.dtype).eps * tol
    if bool(_all(_u.absolute(a.imag) < tol)):
        a = a.real
    return a
