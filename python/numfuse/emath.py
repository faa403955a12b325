"""numfuse.emath (numpy.emath, numpy.lib.scimath): the math functions whose result is complex
where the input leaves the real domain, as NumPy's: emath.sqrt(-1) is 1j, emath.log(-1) is pi*1j.

The same rules as numpy/lib/_scimath_impl.py: a real input with a value outside the domain is
converted to complex first (complex64 for float32 and the small integers, complex128 otherwise);
an input inside the domain keeps its dtype. Whether any value is outside decides the result's
dtype, so that one boolean is read on the host, as NumPy reads it.
"""
import numpy as _np

from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray
from ._reductions import any as _any

__all__ = ["sqrt", "log", "log2", "logn", "log10", "power", "arccos", "arcsin", "arctanh"]

# numpy's _tocomplex: these become complex64, every other real dtype complex128
_TO_CSINGLE = (_np.single, _np.byte, _np.short, _np.ubyte, _np.ushort, _np.csingle)


def _arr(x):
    return x if isinstance(x, ndarray) else asarray(x)


def _tocomplex(x):
    if issubclass(x.dtype.type, _TO_CSINGLE):
        return x.astype(_np.csingle)
    return x.astype(_np.cdouble)


def _is_real_dtype(x):
    return x.dtype.kind != "c"  # NumPy's isreal(x) is True everywhere for a real dtype


def _fix_real_lt_zero(x):
    x = _arr(x)
    if _is_real_dtype(x) and bool(_any(_u.less(x, 0))):
        x = _tocomplex(x)
    return x


def _fix_int_lt_zero(x):
    x = _arr(x)
    if _is_real_dtype(x) and bool(_any(_u.less(x, 0))):
        x = x * 1.0
    return x


def _fix_real_abs_gt_1(x):
    x = _arr(x)
    if _is_real_dtype(x) and bool(_any(_u.greater(_u.absolute(x), 1))):
        x = _tocomplex(x)
    return x


def sqrt(x):
    return _u.sqrt(_fix_real_lt_zero(x))


def log(x):
    return _u.log(_fix_real_lt_zero(x))


def log10(x):
    return _u.log10(_fix_real_lt_zero(x))


def log2(x):
    return _u.log2(_fix_real_lt_zero(x))


def logn(n, x):
    x = _fix_real_lt_zero(x)
    n = _fix_real_lt_zero(n)
    return _u.true_divide(_u.log(x), _u.log(n))


def power(x, p):
    return _u.power(_fix_real_lt_zero(x), _fix_int_lt_zero(p))


def arccos(x):
    return _u.arccos(_fix_real_abs_gt_1(x))


def arcsin(x):
    return _u.arcsin(_fix_real_abs_gt_1(x))


def arctanh(x):
    return _u.arctanh(_fix_real_abs_gt_1(x))


for _name in __all__:
    globals()[_name].__doc__ = getattr(_np.emath, _name).__doc__
