"""Reductions and scans under NumPy's names: sum, mean, var, argmax, cumsum, nan-variants, diff...

The reductions themselves (sum, prod, max, min, fmax, fmin, any, all, argmax, argmin) and the
scans (cumsum, cumprod) are one C++ node each (``_core.reduce`` / ``_core.scan``); everything
else is composed from them and from ufuncs, lazily, the way NumPy's own _methods.py composes it,
so results and dtypes follow NumPy's.
"""
import builtins
import warnings as _warnings

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index as _normalize_axis_index
from numpy.lib.array_utils import normalize_axis_tuple as _normalize_axis_tuple

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, empty, follows_operands, full, zeros

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "any", "all",
           "count_nonzero", "ptp", "mean", "var", "std", "nansum", "nanprod", "nanmean",
           "nanmin", "nanmax", "nanargmin", "nanargmax", "nanvar", "nanstd", "cumsum", "cumprod",
           "nancumsum", "nancumprod", "diff", "average", "cumulative_sum", "cumulative_prod"]

_NoValue = _np._NoValue


def _reduce(op, a, axis=None, keepdims=False, dtype=None, out=None, initial=None, where=None):
    if isinstance(out, ndarray) and not isinstance(a, ndarray):  # a list, NumPy a: out's device
        a = asarray(a, device=out.device)
    res = _core.reduce(op, a, axis, keepdims, dtype, out, initial, where)
    return res if out is None else _given(out)


def _scan(op, a, axis=None, dtype=None, out=None):
    if isinstance(out, ndarray) and not isinstance(a, ndarray):
        a = asarray(a, device=out.device)
    res = _core.scan(op, a, axis, dtype, out)
    return res if out is None else _given(out)


def _array_out(out):
    """out= of NumPy's reduction functions (not ufunc.reduce): an array, never a tuple."""
    if isinstance(out, tuple):
        raise TypeError("return arrays must be of ArrayType")
    return out


def _given(out):
    """NumPy returns the out= object itself (out=(arr,) gives arr)."""
    return out[0] if isinstance(out, tuple) else out


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _init(initial):
    return None if initial is _NoValue else initial


def _where(where):
    return None if where is True else where


# ---- the reductions the C++ core computes --------------------------------------------------------

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: A001
    if out is None and where is True and initial is _NoValue:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("sum", a, axis, keepdims, dtype, None, None, None)
    return _reduce("sum", a, axis, keepdims, dtype, _array_out(out), _init(initial), _where(where))


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    if out is None and where is True and initial is _NoValue:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("prod", a, axis, keepdims, dtype, None, None, None)
    return _reduce("prod", a, axis, keepdims, dtype, _array_out(out), _init(initial), _where(where))


def max(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: A001
    if out is None and where is True and initial is _NoValue:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("max", a, axis, keepdims, None, None, None, None)
    return _reduce("max", a, axis, keepdims, None, _array_out(out), _init(initial), _where(where))


def min(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: A001
    if out is None and where is True and initial is _NoValue:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("min", a, axis, keepdims, None, None, None, None)
    return _reduce("min", a, axis, keepdims, None, _array_out(out), _init(initial), _where(where))


amax, amin = max, min


def any(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    if out is None and where is True:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("any", a, axis, keepdims, None, None, None, None)
    return _reduce("any", a, axis, keepdims, None, _array_out(out), None, _where(where))


def all(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    if out is None and where is True:  # the common call, without the helpers' frames (a loop's small sums)
        return _core.reduce("all", a, axis, keepdims, None, None, None, None)
    return _reduce("all", a, axis, keepdims, None, _array_out(out), None, _where(where))


def _arg(name, a, axis, out, keepdims):
    a = _arr(a)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("output must be an array")
    if out is not None and not _np.can_cast(out.dtype, _np.intp, "safe"):  # as NumPy checks it
        raise TypeError(f"Cannot cast array data from {out.dtype!r} to dtype('int64') according "
                        "to the rule 'safe'")
    if axis is not None and a.ndim == 0:
        # NumPy makes a 0-d input 1-d, then checks the axis: axis 0 and -1 give the one element.
        _normalize_axis_index(_core_index(axis), 1)
        return _reduce(name, a, None, False, None, out)
    if axis is not None:
        axis = _normalize_axis_index(_core_index(axis), a.ndim)
    res = _reduce(name, a, axis, keepdims and axis is not None, None,
                  None if keepdims and axis is None else out)
    if keepdims and axis is None:  # NumPy keeps every dim as 1
        res = res.reshape((1,) * a.ndim)
        if out is not None:
            out[...] = res
            return out
    return res


def _core_index(axis):
    if isinstance(axis, _np.bool_):  # NumPy refuses bools as axes
        raise TypeError("an integer is required for the axis")
    return _core._axis(axis)  # bools refused, C int range


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arg("argmax", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arg("argmin", a, axis, out, keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    a = _arr(a)
    return _reduce("sum", a.astype(bool, copy=False), axis, keepdims, _np.intp)


def ptp(a, axis=None, out=None, keepdims=False):
    a = _arr(a)
    out = _array_out(out)
    return _u.subtract(max(a, axis, None, keepdims), min(a, axis, None, keepdims), out=out)


# ---- mean, var, std (NumPy's _methods.py, lazily) ------------------------------------------------

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    for ax in axis:  # NumPy counts the items first (normalize_axis_index's C int: OverflowError)
        if not isinstance(ax, (builtins.bool, _np.bool_)) and \
                not -2 ** 31 <= _core._index(ax) < 2 ** 31:
            raise OverflowError("Python int too large to convert to C int")
    return tuple(_normalize_axis_index(_core_index(ax), ndim) for ax in axis)


def _count(a, axis, keepdims, where):
    """The number of elements each result reduces: an int, or an array when `where` is given."""
    if where is True:
        n = 1
        for ax in _axes(axis, a.ndim):
            n *= a.shape[ax]
        return n
    mask = _u.logical_or(asarray(where, dtype=bool, device=a.device), zeros(a.shape, dtype=bool, device=a.device))  # broadcast
    return _reduce("sum", mask, axis, keepdims, _np.intp)


def _finish(res, out):
    if out is not None:
        # A reduction's out= has the result's shape exactly, as NumPy's reductions check it.
        if isinstance(out, ndarray) and out.shape != res.shape:
            raise ValueError(f"output parameter for reduction has the wrong shape: found {out.shape}, "
                             f"expected {res.shape}")
        out[...] = res
        return out
    return res


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a = _arr(a)
    n = _count(a, axis, keepdims, where)
    if (n == 0) if isinstance(n, int) else bool(_u.equal(n, 0).any()):  # NumPy's _mean warns so
        _warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    f16 = False
    if dtype is None:
        if a.dtype.kind in "biu":
            dtype = _np.float64
        elif a.dtype == _np.float16:
            dtype, f16 = _np.float32, True
    res = _reduce("sum", a, axis, keepdims, dtype, None, None, _where(where))
    res = _u.true_divide(res, n, dtype=res.dtype, casting="unsafe")
    if f16:
        res = res.astype(a.dtype)
    return _finish(res, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    a = _arr(a)
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    n = _count(a, axis, keepdims, where)
    dof = None
    if isinstance(n, int):
        # NumPy's _var: `ddof >= rcount` then `maximum(rcount - ddof, 0)` with an intp count, so
        # ddof's errors (a string, an int past int64) and its broadcasting (a list) are NumPy's.
        rcount = _np.intp(n)
        if ddof >= rcount:  # NumPy's _var warns so (and raises so for a bad ddof)
            _warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        dof = _np.maximum(rcount - ddof, 0)
        dof = dof.item() if dof.ndim == 0 else asarray(dof)
    if dtype is None and a.dtype.kind in "biu":
        dtype = _np.float64
    if (_np.ndim(ddof) == 0 and mean is _NoValue and where is True and a.device != "cpu" and a.dtype.kind in "biuf"
            and a.dtype != _np.float16 and _np.dtype(dtype or a.dtype) in (_np.float32, _np.float64)):
        # On the GPU: one pass (Welford and Chan), one kernel with the expression that feeds it
        # (and with sqrt for std). The CPU keeps NumPy's two passes and their exact rounding.
        res = _reduce("var", a, axis, keepdims, dtype, None, _np.float64(ddof), None)
        return _finish(res, out)
    if mean is not _NoValue:
        m = _arr(mean)
    else:
        m = _reduce("sum", a, axis, True, dtype, None, None, _where(where))
        div = n if isinstance(n, int) else _count(a, axis, True, where)
        m = _u.true_divide(m, div, dtype=m.dtype, casting="unsafe")
    x = _u.subtract(a, m)
    if x.dtype.kind == "c":
        re, im = x.real, x.imag
        x = _u.add(_u.multiply(re, re), _u.multiply(im, im))
    else:
        x = _u.square(x)  # NumPy squares here: an overflow warns "in square"
    res = _reduce("sum", x, axis, keepdims, dtype, None, None, _where(where))
    if dof is None:
        if bool(_u.greater_equal(ddof, n).any()):
            _warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        dof = _u.maximum(n - ddof, 0)
    res = _u.true_divide(res, dof, dtype=res.dtype, casting="unsafe")
    return _finish(res, out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
        correction=_NoValue):
    res = _u.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
                      correction=correction))
    return _finish(res, out)


# ---- the nan-variants (numpy/lib/_nanfunctions_impl.py) ------------------------------------------

def _replace_nan(a, val):
    """a with NaNs replaced by val (lazily), and the NaN mask; (a, None) for exact dtypes."""
    a = _arr(a)
    if a.dtype.kind not in "fc":
        return a, None
    mask = _u.isnan(a)
    return _core.where(mask, val, a), mask


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    a, _ = _replace_nan(a, 0)
    return sum(a, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    a, _ = _replace_nan(a, 1)
    return prod(a, axis, dtype, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("fmax", a, axis, keepdims, None, out, _init(initial), _where(where))


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _reduce("fmin", a, axis, keepdims, None, out, _init(initial), _where(where))


def _nanarg(name, a, axis, out, keepdims, fill):
    a, mask = _replace_nan(a, fill)
    if mask is not None and mask.size:
        if bool(any(all(mask, axis=axis))):
            raise ValueError("All-NaN slice encountered")
    return _arg(name, a, axis, out, keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    return _nanarg("argmax", a, axis, out, keepdims, -_np.inf)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    return _nanarg("argmin", a, axis, out, keepdims, _np.inf)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        return mean(arr, axis, dtype, out, keepdims, where=where)
    cnt = _reduce("sum", _u.logical_not(mask), axis, keepdims, _np.intp, None, None, _where(where))
    tot = _reduce("sum", arr, axis, keepdims, dtype, None, None, _where(where))
    return _finish(_u.true_divide(tot, cnt, dtype=tot.dtype, casting="unsafe"), out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
           correction=_NoValue):
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        return var(arr, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    w = _where(where)
    keep = _u.logical_not(mask)
    cnt = _reduce("sum", keep, axis, True, _np.intp, None, None, w)
    if mean is not _NoValue:
        avg = _arr(mean)
    else:
        avg = _reduce("sum", arr, axis, True, dtype, None, None, w)
        avg = _u.true_divide(avg, cnt, dtype=avg.dtype, casting="unsafe")
    x = _core.where(keep, _u.subtract(arr, avg), 0)
    if x.dtype.kind == "c":
        x = _u.add(_u.multiply(x.real, x.real), _u.multiply(x.imag, x.imag))
    else:
        x = _u.multiply(x, x)
    res = _reduce("sum", x, axis, keepdims, dtype, None, None, w)
    cnt = _reduce("sum", keep, axis, keepdims, _np.intp, None, None, w)
    dof = _u.subtract(cnt, ddof)
    res = _u.true_divide(res, dof, dtype=res.dtype, casting="unsafe")
    res = _core.where(_u.greater(dof, 0), res, _np.nan)
    return _finish(res, out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
           correction=_NoValue):
    res = _u.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
                         correction=correction))
    return _finish(res, out)


# ---- scans ---------------------------------------------------------------------------------------

def cumsum(a, axis=None, dtype=None, out=None):
    if isinstance(out, tuple):  # NumPy's cumsum(), not ufunc.accumulate
        raise TypeError("output must be an array")
    return _scan("cumsum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    if isinstance(out, tuple):  # NumPy's cumprod(), not ufunc.accumulate
        raise TypeError("output must be an array")
    return _scan("cumprod", a, axis, dtype, out)


def _cumulative(op, identity, x, axis, dtype, out, include_initial):
    """numpy.cumulative_sum / cumulative_prod (the Array API's): a 0-d input is one element; an
    input of more dims needs `axis`; include_initial puts the identity first along it."""
    x = _arr(x)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is "
                             "required.")
        axis = 0
    axis = _normalize_axis_index(_core_index(axis), x.ndim)
    res = _scan(op, x, axis, dtype, None)
    if include_initial:
        shape = list(res.shape)
        shape[axis] += 1
        full_res = zeros(shape, res.dtype, device=res.device)
        if identity:
            full_res[(slice(None),) * axis + (0,)] = identity
        full_res[(slice(None),) * axis + (slice(1, None),)] = res
        res = full_res
    if out is not None:
        out[...] = res
        return out
    return res


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative("cumsum", 0, x, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative("cumprod", 1, x, axis, dtype, out, include_initial)


def nancumsum(a, axis=None, dtype=None, out=None):
    a, _ = _replace_nan(a, 0)
    return cumsum(a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    a, _ = _replace_nan(a, 1)
    return cumprod(a, axis, dtype, out)


def _concatenate(parts, axis):
    dt = _np.result_type(*[p.dtype for p in parts])
    shape = list(parts[0].shape)
    shape[axis] = builtins.sum(p.shape[axis] for p in parts)
    res = empty(tuple(shape), dtype=dt, device=parts[0].device)
    pos = 0
    for p in parts:
        idx = [slice(None)] * len(shape)
        idx[axis] = slice(pos, pos + p.shape[axis])
        res[tuple(idx)] = p
        pos += p.shape[axis]
    return res


@follows_operands
def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _arr(a)
    nd = a.ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _normalize_axis_index(axis, nd)
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append(a)
        elif extra is not _NoValue:
            extra = extra if isinstance(extra, ndarray) else asarray(extra, device=a.device)
            if extra.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                extra = _core_broadcast(extra, tuple(shape))
            parts.append(extra)
    if len(parts) > 1:
        a = _concatenate(parts, axis)
    lo = [slice(None)] * nd
    hi = [slice(None)] * nd
    lo[axis] = slice(1, None)
    hi[axis] = slice(None, -1)
    lo, hi = tuple(lo), tuple(hi)
    op = _u.not_equal if a.dtype == _np.bool_ else _u.subtract
    for _ in range(n):
        a = op(a[lo], a[hi])
    return a


def _core_broadcast(x, shape):
    if x.dtype == _np.bool_:
        return _u.logical_or(x, zeros(shape, dtype=bool, device=x.device))
    return _u.add(x, zeros(shape, dtype=x.dtype, device=x.device))


@follows_operands
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    a = _arr(a)
    if axis is not None:  # NumPy's average reads axes with normalize_axis_tuple (bools, lists)
        axis = _normalize_axis_tuple(axis, a.ndim, argname="axis")
        if len(axis) == 1 and weights is not None:
            axis = axis[0]
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        scl = full(avg.shape, a.size / builtins.max(avg.size, 1), dtype=avg.dtype, device=avg.device)
    else:
        wgt = _arr(weights)
        rdt = _np.result_type(a.dtype, wgt.dtype, "f8") if a.dtype.kind in "biu" else \
            _np.result_type(a.dtype, wgt.dtype)
        if a.shape != wgt.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if wgt.ndim != 1:
                raise TypeError("1D weights expected when shapes of a and weights differ.")
            ax = _normalize_axis_index(axis, a.ndim)
            if wgt.shape[0] != a.shape[ax]:
                raise ValueError("Length of weights not compatible with specified axis.")
            shape = [1] * a.ndim
            shape[ax] = wgt.shape[0]
            wgt = wgt.reshape(tuple(shape))
        scl = sum(wgt, axis, dtype=rdt, keepdims=keepdims)
        if bool(any(scl == 0.0)):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _u.true_divide(sum(_u.multiply(a, wgt, dtype=rdt), axis, keepdims=keepdims), scl)
    if returned:
        if scl.shape != avg.shape:
            scl = _core_broadcast(scl, avg.shape)
        return avg, scl
    return avg


# ---- ufunc.reduce / ufunc.accumulate -------------------------------------------------------------

_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
                 "fmax": "fmax", "fmin": "fmin", "logical_and": "all", "logical_or": "any"}


def _ufunc_reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NoValue,
                  where=True):
    op = _UFUNC_REDUCE.get(self.__name__)
    if op is None:
        raise NotImplementedError(f"numfuse: {self.__name__}.reduce is not supported yet")
    if op in ("any", "all"):
        dtype = None
    return _reduce(op, array, axis, keepdims, dtype, out, _init(initial), _where(where))


def _ufunc_accumulate(self, array, axis=0, dtype=None, out=None):
    op = {"add": "cumsum", "multiply": "cumprod"}.get(self.__name__)
    if op is None:
        raise NotImplementedError(f"numfuse: {self.__name__}.accumulate is not supported yet")
    array = _arr(array)
    if array.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    return _scan(op, array, axis, dtype, out)


_core.ufunc.reduce = _ufunc_reduce
_core.ufunc.accumulate = _ufunc_accumulate


# ---- ndarray methods -----------------------------------------------------------------------------

def _m_arg(fn):
    def method(self, axis=None, out=None, *, keepdims=False):
        return fn(self, axis, out, keepdims=keepdims)
    return method


def _m_scan(fn):
    def method(self, axis=None, dtype=None, out=None):
        return fn(self, axis, dtype, out)
    return method


# The reductions as ndarray methods (attached by _methods.py).
METHODS = {
    "sum": sum, "prod": prod, "max": max, "min": min, "any": any, "all": all,
    "mean": mean, "var": var, "std": std,
    "argmax": _m_arg(argmax), "argmin": _m_arg(argmin),
    "cumsum": _m_scan(cumsum), "cumprod": _m_scan(cumprod),
}
