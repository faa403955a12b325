"""Elementwise functions that NumPy defines outside its ufuncs, composed from ufuncs (lazily)."""
import builtins
import operator

import numpy as _np

from . import _ufuncs as _u
from ._core import ndarray, where as _where
from ._creation import asarray, follows_operands

__all__ = ["round", "around", "clip", "real", "imag", "angle", "isclose", "allclose",
           "array_equal", "isreal", "iscomplex", "isrealobj", "iscomplexobj", "nan_to_num",
           "isneginf", "isposinf", "sinc", "fix"]


def _round_real(x, decimals):
    if x.dtype.kind in "biu":
        if decimals >= 0:
            return x.copy()
        f = 10 ** (-decimals)
        # NumPy rounds integers half to even at the chosen digit.
        q = _u.floor_divide(x, f)
        r = x - q * f
        up = (r * 2 > f) | ((r * 2 == f) & (q % 2 == 1))
        return ((q + up.astype(x.dtype)) * f).astype(x.dtype)
    if decimals == 0:
        return _u.rint(x)
    f = x.dtype.type(10.0 ** builtins.abs(decimals)) if x.dtype.kind == "f" else 10.0 ** builtins.abs(decimals)
    if decimals > 0:
        return _u.rint(x * f) / f
    return _u.rint(x / f) * f


def round(a, decimals=0, out=None):  # noqa: A001
    if isinstance(out, tuple):  # NumPy's round is a method, not a ufunc
        raise TypeError("output must be an array")
    a = asarray(a)
    decimals = operator.index(decimals)
    if a.dtype.kind == "c":
        res = _round_real(a.real, decimals) + 1j * _round_real(a.imag, decimals)
        res = res.astype(a.dtype, copy=False)
    else:
        res = _round_real(a, decimals)
    return _into_out(res, out)


def _into_out(res, out):
    """`res` written into out= by a ufunc, so that out= is read as NumPy's ufuncs read it (a
    1-tuple, read-only, same_kind casting, broadcasting) for these functions made of ufuncs."""
    if out is None:
        return res
    if res.dtype == bool:
        return _u.logical_and(res, True, out=out)
    return _u.positive(res, out=out)


around = round


@follows_operands
def clip(a, a_min=_np._NoValue, a_max=_np._NoValue, out=None, *, min=_np._NoValue, max=_np._NoValue,
         **kwargs):
    lo = a_min if a_min is not _np._NoValue else (min if min is not _np._NoValue else None)
    hi = a_max if a_max is not _np._NoValue else (max if max is not _np._NoValue else None)
    a = a if isinstance(a, ndarray) else asarray(a)
    res = a
    if lo is not None:
        res = _u.maximum(res, lo, **kwargs)
    if hi is not None:
        res = _u.minimum(res, hi, **kwargs)
    if lo is None and hi is None:
        res = _u.positive(a) if a.dtype.kind != "b" else a.copy()
    return _into_out(res, out)


def real(val):
    return asarray(val).real


def imag(val):
    return asarray(val).imag


def angle(z, deg=False):
    z = asarray(z)
    if z.dtype.kind == "c":
        res = _u.arctan2(z.imag, z.real)
    else:
        res = _u.arctan2(_np.zeros((), dtype=z.dtype) if z.dtype.kind == "f" else 0.0, z)
    return _u.rad2deg(res) if deg else res


@follows_operands
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = asarray(a), asarray(b)
    dt = _np.result_type(a.dtype, b.dtype, 1.0)
    x, y = a.astype(dt, copy=False), b.astype(dt, copy=False)
    with _np.errstate(invalid="ignore"):
        res = _u.less_equal(_u.absolute(x - y), atol + rtol * _u.absolute(y))
        res = res & _u.isfinite(y) | (x == y)
    if equal_nan:
        res = res | (_u.isnan(x) & _u.isnan(y))
    return res


@follows_operands
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(_np.all(_np.asarray(isclose(a, b, rtol, atol, equal_nan))))


@follows_operands
def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return False
    eq = a1 == a2
    if equal_nan and a1.dtype.kind in "fc":
        eq = eq | (_u.isnan(a1) & _u.isnan(a2))
    return builtins.bool(_np.all(_np.asarray(eq)))


def isreal(x):
    return asarray(x).imag == 0


def iscomplex(x):
    return asarray(x).imag != 0


def isrealobj(x):
    return asarray(x).dtype.kind != "c"


def iscomplexobj(x):
    return asarray(x).dtype.kind == "c"


def isneginf(x, out=None):
    if isinstance(out, tuple):  # NumPy passes out= to logical_and positionally
        raise TypeError("return arrays must be of ArrayType")
    x = asarray(x)
    return _into_out(_u.isinf(x) & _u.signbit(x), out)


def isposinf(x, out=None):
    if isinstance(out, tuple):  # NumPy passes out= to logical_and positionally
        raise TypeError("return arrays must be of ArrayType")
    x = asarray(x)
    return _into_out(_u.isinf(x) & ~_u.signbit(x), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = asarray(x)
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    if not copy:  # NumPy replaces the values in place and returns the same array
        x[...] = nan_to_num(x, True, nan, posinf, neginf)
        return x
    def fix_part(v):
        info = _np.finfo(v.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        v = _where(_u.isnan(v), nan, v)
        v = _where(isposinf(v), hi, v)
        return _where(isneginf(v), lo, v).astype(v.dtype, copy=False)
    if x.dtype.kind == "c":
        return (fix_part(x.real) + 1j * fix_part(x.imag)).astype(x.dtype, copy=False)
    return fix_part(x)


def sinc(x):
    x = asarray(x)
    y = _np.pi * _where(x == 0, 1.0e-20, x)
    return _u.sin(y) / y


def fix(x, out=None):
    return _into_out(_u.trunc(asarray(x)), out)
