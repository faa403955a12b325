"""The values the array translator (_translate_array.py) works on, and their typing: numfuse
arrays with NumPy dtypes (strong), `Weak` arrays of Python numbers (numpy.vectorize hands the
function Python numbers; NEP 50 treats them as weak), Python constants; and the errstates its
operations run under."""
import ast
import types

import numpy as _np

from . import _core


_U = _core.ufuncs


class Untranslatable(Exception):
    """The function uses a construct that has no array form; the message names file:line."""


class Weak:
    """An array of Python numbers (float(x), math.sin(x), ...): NEP 50 treats them as weak."""

    __slots__ = ("array", "kind")

    def __init__(self, array, kind):
        self.array, self.kind = array, kind


_STABLE = (bool, int, float, complex, str, bytes, type(None), tuple, frozenset, range,
           _np.generic, _np.dtype, type, types.ModuleType, types.FunctionType,
           types.BuiltinFunctionType, _np.ufunc, _core.ufunc, _core.ndarray)
# The errstate of a recorded operation (_translate_array_trace.py replays it): both branches of an
# array condition run quietly; a division of Python numbers raises where Python would.
ERRSTATE_QUIET = {"all": "ignore"}
ERRSTATE_STRICT = {"divide": "raise", "invalid": "raise"}


_PY_NUMBERS = (bool, int, float, complex)
_KIND_OF_DTYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_WEAK_DTYPE = {bool: _np.dtype(bool), int: _np.dtype(_np.int64), float: _np.dtype(_np.float64),
               complex: _np.dtype(_np.complex128)}


def _astype(v, dtype):
    return v.astype(dtype)


def _is_array(v):
    return isinstance(v, (_core.ndarray, Weak))


def _is_py_number(v):
    """A Python bool, int, float or complex (numpy.float64 subclasses float: it is not one)."""
    return isinstance(v, _PY_NUMBERS) and not isinstance(v, _np.generic)


def _is_strong(v):
    """A value with a NumPy dtype of its own (not a Python number): NEP 50 lets it decide."""
    return isinstance(v, (_core.ndarray, _np.generic))


def python_numbers(a):
    """An array's elements as the Python numbers numpy.vectorize and frompyfunc hand the function
    (their object loops call it with int, float, complex or bool, not NumPy scalars)."""
    kind = _KIND_OF_DTYPE[a.dtype.kind]
    want = _WEAK_DTYPE[kind]
    return Weak(a if a.dtype == want else a.astype(want), kind)


def dtype_of(v):
    """The NumPy dtype of a value: an array's, a NumPy scalar's, a Python number's as NumPy stores it."""
    if isinstance(v, Weak):
        return _WEAK_DTYPE[v.kind]
    if isinstance(v, _core.ndarray):
        return v.dtype
    return _np.asarray(v).dtype


def _type_key(v):
    if isinstance(v, Weak):
        return ("weak", v.kind)
    if _is_py_number(v):
        return ("weak", type(v))
    return ("strong", dtype_of(v))


_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor)


def _bool_as_int(it, v):
    """Python's arithmetic on bools is on the ints 0 and 1."""
    if isinstance(v, Weak) and v.kind is bool:
        return Weak(it.apply(_astype, v.array, _np.int64), int)
    return v


def _numba_widen(it, v, partner):
    """Numba computes integer (and bool) arithmetic in 64 bits: int32 + int32 is int64."""
    dt = dtype_of(v)
    if dt.kind in "biu" and dt.itemsize < 8 or dt.kind == "b":
        unsigned = dt.kind == "u" and dtype_of(partner).kind in "ub"
        target = _np.dtype(_np.uint64 if unsigned else _np.int64)
        return it.apply(_astype, v, target) if _is_array(v) else target.type(v)
    return v
