"""The ndarray methods written in Python, attached to the C++ class once, from one table.

Everything hot (operators, properties, indexing) is bound in C++ (python/src/bind_array.cpp);
what is here is rare or argument-heavy. The top of the package's layers: it imports the modules
that implement the methods, and nothing imports it but __init__.
"""
from ._array_api import array_namespace_method
from ._core import ndarray
from ._files import METHODS as _FILE_METHODS
from ._indexing import compress, nonzero, put, take
from ._exchange import METHODS as _EXCHANGE_METHODS
from ._interop import PROTOCOLS
from ._linalg import _matmul_i, dot
from ._ndarray import METHODS as _NDARRAY_METHODS
from ._ndarray_members import METHODS as _MEMBER_METHODS
from ._printing import METHODS as _PRINTING_METHODS
from ._reductions import METHODS as _REDUCTION_METHODS
from ._shape import repeat
from ._sort import METHODS as _SORT_METHODS


def _dot(self, b, out=None):
    return dot(self, b, out=out)


def _nonzero(self):
    return nonzero(self)


def _take(self, indices, axis=None, out=None, mode="raise"):
    return take(self, indices, axis, out, mode)


def _put(self, indices, values, mode="raise"):
    return put(self, indices, values, mode)


def _compress(self, condition, axis=None, out=None):
    return compress(condition, self, axis, out)


def _repeat(self, repeats, axis=None):
    return repeat(self, repeats, axis)


TABLE = {
    **_NDARRAY_METHODS,
    **_MEMBER_METHODS,
    **_PRINTING_METHODS,
    **_FILE_METHODS,
    **_REDUCTION_METHODS,
    **_SORT_METHODS,
    **PROTOCOLS,
    **_EXCHANGE_METHODS,
    "__imatmul__": _matmul_i,
    "dot": _dot,
    "nonzero": _nonzero,
    "take": _take,
    "put": _put,
    "compress": _compress,
    "repeat": _repeat,
    "__array_namespace__": array_namespace_method,
}

for _name, _fn in TABLE.items():
    setattr(ndarray, _name, _fn)
