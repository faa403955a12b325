"""NumPy's families whose data numfuse arrays cannot hold: dates and times, matrices, masked and
record arrays, strings, f2py and the numpy.core shim.

numfuse has no datetime64/timedelta64, string, object or structured dtype (creating such an
array raises TypeError naming the dtype), so these names are NumPy's own and run on the host:
- the datetime scalars and functions take NumPy (or numfuse) inputs; a numfuse argument is read
  to the host first, a result of a dtype numfuse holds (busday_count's integers, is_busday's
  booleans) comes back as a numfuse array, one of a datetime dtype stays a NumPy array;
  isnat of a numfuse array raises NumPy's TypeError (numfuse arrays are never datetimes).
- matrix is numpy.matrix: asmatrix and bmat give numpy.matrix of the host values
  (docs/decisions.md, "matrix"): matrix semantics (2-d only, * is matmul) stay NumPy's.
- ma, rec (recarray, record), char, strings, f2py, core are NumPy's modules. (numfuse.polynomial
  is numfuse's own: numpy.polynomial over numfuse points, python/numfuse/polynomial/.)
"""
import functools

import numpy as _np

from ._core import ndarray
from ._creation import asarray, asnumpy

__all__ = ["datetime64", "timedelta64", "isnat", "datetime_as_string", "datetime_data",
           "busday_count", "busday_offset", "is_busday", "busdaycalendar", "matrix", "asmatrix",
           "bmat", "ma", "rec", "recarray", "record", "char", "strings", "f2py", "core"]

# NumPy's own objects (those the installed NumPy has: numfuse follows it)
for _name in ("datetime64", "timedelta64", "datetime_data", "busdaycalendar", "matrix", "recarray",
              "record", "ma", "rec", "char", "strings", "f2py",
              "core"):  # core: NumPy 2's backward-compatibility shim (its own warnings)
    if hasattr(_np, _name):
        globals()[_name] = getattr(_np, _name)


def _host(v):
    if isinstance(v, ndarray):
        return asnumpy(v)
    if type(v) in (list, tuple):
        return type(v)(_host(x) for x in v)
    return v


def _on_host(fn, numfuse_result):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        res = fn(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
        if numfuse_result and kwargs.get("out") is None and isinstance(res, _np.ndarray):
            return asarray(res)  # integers or booleans
        return res
    return wrapper


datetime_as_string = _on_host(_np.datetime_as_string, numfuse_result=False)
busday_offset = _on_host(_np.busday_offset, numfuse_result=False)
busday_count = _on_host(_np.busday_count, numfuse_result=True)
is_busday = _on_host(_np.is_busday, numfuse_result=True)


def isnat(x, /, out=None, **kwargs):
    """numpy.isnat: NumPy's for NumPy inputs; a numfuse array (never a datetime) gets NumPy's
    TypeError for a non-datetime operand."""
    if isinstance(x, ndarray):
        raise TypeError("ufunc 'isnat' is only defined for np.datetime64 and np.timedelta64.")
    return _np.isnat(x, out=out, **kwargs) if out is not None else _np.isnat(x, **kwargs)


def asmatrix(data, dtype=None):
    """numpy.asmatrix of the host values: a numpy.matrix (docs/decisions.md, "matrix")."""
    return _np.asmatrix(_host(data), dtype=dtype)


def bmat(obj, ldict=None, gdict=None):
    """numpy.bmat with numfuse blocks read to the host: a numpy.matrix."""
    return _np.bmat(_host(obj) if not isinstance(obj, str) else obj, ldict, gdict)


__all__ = [n for n in __all__ if hasattr(_np, n)]  # numfuse follows the installed NumPy
