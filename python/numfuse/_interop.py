"""NumPy's dispatch protocols: numpy.sin(numfuse_array) and numpy.sum(numfuse_array) run numfuse.

__array_ufunc__ maps a NumPy ufunc to numfuse's ufunc of the same name; __array_function__ maps
a NumPy function to numfuse's function of the same name. Anything numfuse lacks gives
NotImplemented, so NumPy raises TypeError rather than silently computing on the host.
"""
import inspect

import numpy as _np

from . import _core
from ._core import ndarray


def _numfuse():
    import numfuse
    return numfuse


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    nf = _numfuse()
    ours = getattr(nf, ufunc.__name__, None)
    if not isinstance(ours, nf.ufunc):
        # Generalized ufuncs (matmul) are plain functions in numfuse.
        if method == "__call__" and ufunc.signature is not None and callable(ours):
            return ours(*inputs, **kwargs)
        return NotImplemented
    if method == "__call__":
        return ours(*inputs, **kwargs)
    fn = getattr(ours, method, None)
    return NotImplemented if fn is None else fn(*inputs, **kwargs)


def _lookup(func):
    nf = _numfuse()
    obj = nf
    parts = func.__module__.split(".")[1:] if func.__module__.startswith("numpy.") else []
    for p in parts:
        if p.startswith("_"):
            continue
        obj = getattr(obj, p, None)
        if obj is None:
            return None
    fn = getattr(obj, func.__name__, None)
    return fn if callable(fn) and fn is not func else None


# NumPy function -> whether numfuse's function of its name has a like= parameter. Keyed by NumPy's
# function: a numfuse (nanobind) function held in a module global outlives nanobind's shutdown.
_TAKES_LIKE = {}


def _takes_like(func, ours):
    found = _TAKES_LIKE.get(func)
    if found is None:
        try:
            found = "like" in inspect.signature(ours).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            found = False
        _TAKES_LIKE[func] = found
    return found


def __array_function__(self, func, types, args, kwargs):
    if not all(issubclass(t, (ndarray, _np.ndarray)) for t in types):
        return NotImplemented
    ours = _lookup(func)
    if ours is None:
        return NotImplemented
    if "like" not in kwargs and _takes_like(func, ours):
        # NumPy's creation functions dispatch only on like= and drop it from kwargs, calling the
        # like array's __array_function__: self is that array, and numfuse creates on its device
        # (Dask's asarray_safe(x, like=meta) and arange_safe).
        kwargs = dict(kwargs, like=self)
    return ours(*args, **kwargs)


def get_array_module(*args):
    """numfuse when any argument is a numfuse array, else numpy (CuPy's get_array_module), for
    code written once for both: ``xp = numfuse.get_array_module(x)``."""
    return _numfuse() if any(isinstance(a, ndarray) for a in args) else _np


# __array_ufunc__ is _core's: a positional call of a ufunc numfuse has goes straight to it (a
# NumPy scalar times a numfuse array comes this way: 0.6 us less than through Python); every
# other call to the Python function above.
PROTOCOLS = {"__array_ufunc__": _core.array_ufunc_method, "__array_function__": __array_function__}
