"""The ufunc objects (implemented in C++) under NumPy's names and aliases."""
from . import _core

ufunc = _core.ufunc
_u = _core.ufuncs

globals().update(_u)

# NumPy's aliases.
true_divide = _u["divide"]
mod = _u["remainder"]
abs = _u["absolute"]  # noqa: A001
conj = _u["conjugate"]
bitwise_not = _u["invert"]
bitwise_invert = _u["invert"]
bitwise_left_shift = _u["left_shift"]
bitwise_right_shift = _u["right_shift"]
pow = _u["power"]  # noqa: A001
acos, asin, atan, atan2 = _u["arccos"], _u["arcsin"], _u["arctan"], _u["arctan2"]
acosh, asinh, atanh = _u["arccosh"], _u["arcsinh"], _u["arctanh"]
radians, degrees = _u["deg2rad"], _u["rad2deg"]

__all__ = list(_u) + [
    "ufunc", "true_divide", "mod", "abs", "conj", "bitwise_not", "bitwise_invert",
    "bitwise_left_shift", "bitwise_right_shift", "pow", "acos", "asin", "atan", "atan2",
    "acosh", "asinh", "atanh", "radians", "degrees",
]

_where = _core.where
