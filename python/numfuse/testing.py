"""numfuse.testing: numpy.testing for numfuse arrays (CuPy's cupy.testing idea).

Every assert_* of numpy.testing is here under its name; numfuse arrays among its arguments
(also inside lists, tuples and dicts, which assert_equal walks) are read to the host first, so
``numfuse.testing.assert_allclose(a, b)`` compares values, dtypes and shapes exactly as NumPy does,
with NumPy's messages. A numfuse array and a NumPy array compare alike. Everything else of
numpy.testing (suppress_warnings, IS_PYPY, tempdir ...) is NumPy's own object.
"""
import functools

import numpy.testing as _npt

from ._core import ndarray
from ._creation import asnumpy

__all__ = list(_npt.__all__)


def _host(value):
    if isinstance(value, ndarray):
        return asnumpy(value)
    if type(value) in (list, tuple):
        return type(value)(_host(v) for v in value)
    if type(value) is dict:
        return {k: _host(v) for k, v in value.items()}
    return value


def _on_host(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        __tracebackhide__ = True  # pytest shows the caller's line, as for NumPy's own asserts
        return fn(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
    return wrapper


# The comparisons that read values; assert_raises, assert_warns and friends take callables and
# need nothing converted.
_COMPARISONS = {"assert_equal", "assert_almost_equal", "assert_approx_equal", "assert_array_equal",
                "assert_array_less", "assert_string_equal", "assert_array_almost_equal",
                "assert_", "assert_array_almost_equal_nulp", "assert_array_max_ulp",
                "assert_allclose", "assert_array_compare", "print_assert_equal", "build_err_msg"}

for _name in __all__:
    _obj = getattr(_npt, _name)
    globals()[_name] = _on_host(_obj) if _name in _COMPARISONS else _obj

del _name, _obj
