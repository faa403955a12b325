"""The calls the array translator (_translate_array.py) knows: the math module and the builtins
abs, min, max, float, int, bool, complex and pow, each written with numfuse ufuncs and typed as
Python (numpy mode) or Numba (numba mode) types them."""
import ast
import builtins
import math

import numpy as _np

from ._translate_array_values import (_KIND_OF_DTYPE, _U, _WEAK_DTYPE, Weak, _astype,
                                      _is_array, _numba_widen)


# math function -> (numfuse ufunc, number of arguments); each converts its arguments to float
# and returns a Python float (floor/ceil/trunc: a Python int), as the math module does.
MATH = {getattr(math, m): (u, n) for m, u, n in [
    ("sin", "sin", 1), ("cos", "cos", 1), ("tan", "tan", 1), ("asin", "arcsin", 1),
    ("acos", "arccos", 1), ("atan", "arctan", 1), ("atan2", "arctan2", 2), ("sinh", "sinh", 1),
    ("cosh", "cosh", 1), ("tanh", "tanh", 1), ("asinh", "arcsinh", 1), ("acosh", "arccosh", 1),
    ("atanh", "arctanh", 1), ("exp", "exp", 1), ("expm1", "expm1", 1), ("log", "log", 1),
    ("log2", "log2", 1), ("log10", "log10", 1), ("log1p", "log1p", 1), ("sqrt", "sqrt", 1),
    ("fabs", "fabs", 1), ("floor", "floor", 1), ("ceil", "ceil", 1), ("trunc", "trunc", 1),
    ("copysign", "copysign", 2), ("hypot", "hypot", 2), ("pow", "power", 2),
    ("fmod", "fmod", 2), ("isnan", "isnan", 1), ("isinf", "isinf", 1), ("isfinite", "isfinite", 1),
    ("degrees", "rad2deg", 1), ("radians", "deg2rad", 1), ("cbrt", "cbrt", 1), ("exp2", "exp2", 1)]
    if hasattr(math, m)}


def _b_abs(it, args, node):
    if len(args) != 1:
        it.fail(node, "abs() with other than one argument")
    v = args[0]
    if isinstance(v, Weak):
        r = it.apply(_U["absolute"], v.array)
        return Weak(r, _KIND_OF_DTYPE[r.dtype.kind])
    return it.apply(_U["absolute"], _numba_widen(it, v, v) if it.mode == "numba" and
                    v.dtype.kind == "b" else v)


def _b_minmax(pick):
    def run(it, args, node):
        if len(args) < 2:
            it.fail(node, "min()/max() of one iterable")
        result = args[0]
        for v in args[1:]:  # Python keeps the first of equal values: replace only when strictly
            better = it.binop(ast.Lt() if pick == "min" else ast.Gt(), v, result, node, compare=True)
            result = it.merge(it.truth(better, node), v, result, node)
        return result
    return run


def _b_convert(kind):
    def run(it, args, node):
        if len(args) != 1:
            it.fail(node, f"{kind.__name__}() with other than one argument")
        v = it.strong(args[0])
        if kind is bool:
            r = it.truth(v, node)
        elif kind is int:
            if v.dtype.kind == "c":
                it.fail(node, "int() of a complex value")
            r = it.apply(_astype, v if v.dtype.kind != "f" else it.apply(_U["trunc"], v), _np.int64)
        else:
            if kind is float and v.dtype.kind == "c":
                it.fail(node, "float() of a complex value")
            r = it.apply(_astype, v, _WEAK_DTYPE[kind])
        return r if it.mode == "numba" else Weak(r, kind)
    return run


def _b_pow(it, args, node):
    if len(args) != 2:
        it.fail(node, "pow() with a modulus")
    return it.binop(ast.Pow(), args[0], args[1], node)


BUILTIN_CALLS = {id(builtins.abs): _b_abs, id(builtins.min): _b_minmax("min"),
                 id(builtins.max): _b_minmax("max"), id(builtins.float): _b_convert(float),
                 id(builtins.int): _b_convert(int), id(builtins.bool): _b_convert(bool),
                 id(builtins.complex): _b_convert(complex), id(builtins.pow): _b_pow}


def math_call(it, func, args, kwargs, node):
    """math.f(args): the ufunc on float64 (float32 kept in numba mode), a Python float or int."""
    name, nargs = MATH[func]
    if kwargs or len(args) != nargs:
        it.fail(node, f"math.{func.__name__} with {len(args)} arguments")
    floats = []
    for a in args:
        a = a.array if isinstance(a, Weak) else a
        if _is_array(a):
            if a.dtype.kind == "c":
                it.fail(node, f"math.{func.__name__} of a complex value")
            keep = a.dtype == _np.float64 or it.mode == "numba" and a.dtype == _np.float32
            a = a if keep else it.apply(_astype, a, _np.float64)
        floats.append(a)
    r = it.apply(_U[name], *floats)
    if name in ("floor", "ceil", "trunc"):
        r = it.apply(_astype, r, _np.int64)
    if it.mode == "numba":
        return r
    return Weak(r, _KIND_OF_DTYPE[r.dtype.kind])
