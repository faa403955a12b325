"""What a call in a kernel translates to: math, builtins, dtype casts, NumPy math and cuda.*.

CALLS maps a Python object (found by identity: ``math.sqrt``, ``cuda.grid``, ``numpy.float32``...)
to a handler ``(translator, call_node) -> Val``.
"""
import ast
import builtins
import math

import numpy as np

from . import _intrinsics as cu
from ._values import UNKNOWN, Val, cast, literal
from ._types import BOOL, FLOAT32, FLOAT64, INT64, TupleType, describe, is_complex, is_float, is_int


class _Table:
    def __init__(self):
        self._by_id = {}

    def add(self, obj, handler):
        self._by_id[id(obj)] = (obj, handler)

    def lookup(self, obj):
        hit = self._by_id.get(id(obj))
        return hit[1] if hit is not None and hit[0] is obj else None


CALLS = _Table()


def _args(tr, node, n_min, n_max=None, scalar=True):
    n_max = n_min if n_max is None else n_max
    if node.keywords:
        raise tr.error(node, f"{describe(node.func)} takes no keyword arguments in kernels")
    if not n_min <= len(node.args) <= n_max:
        want = str(n_min) if n_min == n_max else f"{n_min} to {n_max}"
        raise tr.error(node, f"{describe(node.func)} takes {want} arguments, got {len(node.args)}")
    vals = [tr.scalar(a, "an argument") if scalar else tr.expr(a) for a in node.args]
    return vals


def _unknown(vals):
    return Val("0", UNKNOWN) if any(v.ty is UNKNOWN for v in vals) else None


_val = Val
_cast = cast


# ---- math ----------------------------------------------------------------------------------------

_UNARY_FLOAT = {"sqrt": "sqrt", "exp": "exp", "log10": "log10", "log2": "log2", "log1p": "log1p",
                "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
                "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
                "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "fabs": "fabs", "erf": "erf",
                "erfc": "erfc", "gamma": "tgamma", "lgamma": "lgamma", "cbrt": "cbrt", "exp2": "exp2"}
_NP_UNARY = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log10": "log10", "log2": "log2",
             "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan",
             "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh",
             "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
             "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint",
             "cbrt": "cbrt", "exp2": "exp2"}
_BINARY_FLOAT = {"pow": "pow", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign",
                 "fmod": "fmod"}
_NP_BINARY = {"power": "pow", "arctan2": "atan2", "hypot": "hypot", "copysign": "copysign",
              "fmod": "fmod"}


def _float_call(cname, nargs, to_int=False):
    def handler(tr, node):
        vals = _args(tr, node, nargs)
        u = _unknown(vals)
        if u:
            return u
        for v, a in zip(vals, node.args):
            if is_complex(v.ty):
                raise tr.error(a, f"{describe(node.func)} of a complex number is not supported in kernels")
        if nargs == 1:
            ty = tr.float_type(vals[0])
        else:  # float32 when every typed operand is float32 (literals are weak), else float64
            typed = [v.ty for v in vals if not v.weak]
            ty = FLOAT32 if typed and all(t == FLOAT32 for t in typed) else FLOAT64
        code = f"{tr.math_name(cname, ty)}(" + ", ".join(_cast(v, ty) for v in vals) + ")"
        if to_int:
            return _val(f"((long long){code})", INT64)
        return _val(code, ty)
    return handler


def _log(tr, node):
    vals = _args(tr, node, 1, 2)
    u = _unknown(vals)
    if u:
        return u
    ty = tr.float_type(vals[0])
    code = f"{tr.math_name('log', ty)}({_cast(vals[0], ty)})"
    if len(vals) == 2:
        code = f"({code} / {tr.math_name('log', ty)}({_cast(vals[1], ty)}))"
    return _val(code, ty)


def _int_round(cname):
    # math.floor/ceil/trunc and round(x) return an int (Numba: int64); of an int, the int itself.
    # round is rint: halves to even, as Python's round.
    def handler(tr, node):
        (v,) = _args(tr, node, 1)
        if _unknown([v]):
            return _unknown([v])
        if is_int(v.ty) or v.ty == BOOL:
            return _val(_cast(v, INT64), INT64, nonneg=v.nonneg)
        ty = tr.float_type(v)
        return _val(f"((long long){tr.math_name(cname, ty)}({_cast(v, ty)}))", INT64)
    return handler


def _predicate(cname):
    def handler(tr, node):
        (v,) = _args(tr, node, 1)
        if _unknown([v]):
            return _unknown([v])
        if not is_float(v.ty):
            return _val("true" if cname == "isfinite" else "false", BOOL)
        return _val(f"({cname}({_cast(v, tr.float_type(v))}))", BOOL)
    return handler


for _n, _c in _UNARY_FLOAT.items():
    if hasattr(math, _n):
        CALLS.add(getattr(math, _n), _float_call(_c, 1))
for _n, _c in _BINARY_FLOAT.items():
    CALLS.add(getattr(math, _n), _float_call(_c, 2))
for _n in ("floor", "ceil", "trunc"):
    CALLS.add(getattr(math, _n), _int_round(_n))
for _n in ("isnan", "isinf", "isfinite"):
    CALLS.add(getattr(math, _n), _predicate(_n))
    CALLS.add(getattr(np, _n), _predicate(_n))
CALLS.add(math.log, _log)
for _n, _c in _NP_UNARY.items():
    CALLS.add(getattr(np, _n), _float_call(_c, 1))
for _n, _c in _NP_BINARY.items():
    CALLS.add(getattr(np, _n), _float_call(_c, 2))


# ---- builtins ------------------------------------------------------------------------------------

def _abs(tr, node):
    (v,) = _args(tr, node, 1)
    if _unknown([v]):
        return _unknown([v])
    if is_complex(v.ty):
        part = np.dtype(v.ty.char.lower())
        return _val(f"nf_cabs({v.code})", part, nonneg=True)
    if is_float(v.ty):
        return _val(f"{tr.math_name('fabs', v.ty)}({v.code})", v.ty, weak=v.weak, nonneg=True)
    if v.ty == BOOL or v.ty.kind == "u":
        return v
    return _val(f"nf_abs({v.code})", v.ty, weak=v.weak, nonneg=True)


def _minmax(which):
    def handler(tr, node):
        if len(node.args) == 1:
            raise tr.error(node, f"{which}() of one iterable is not supported in kernels; "
                                 f"pass the values: {which}(a, b)")
        vals = _args(tr, node, 2, 16)
        u = _unknown(vals)
        if u:
            return u
        acc = vals[0]
        for v in vals[1:]:
            ty = tr.common_type(acc, v, node)
            acc = _val(f"nf_{which}({_cast(acc, ty)}, {_cast(v, ty)})", ty, weak=acc.weak and v.weak,
                       nonneg=(acc.nonneg and v.nonneg) or (which == "max" and (acc.nonneg or v.nonneg)))
        return acc
    return handler


def _to(ty):
    def handler(tr, node):
        if not node.args:
            return _val(_cast(literal(0), ty), ty, nonneg=True)
        (v,) = _args(tr, node, 1)
        if _unknown([v]):
            return _unknown([v])
        if is_complex(v.ty) and not is_complex(ty):
            raise tr.error(node, f"cannot convert complex to {ty} in a kernel: {describe(node)}")
        return _val(_cast(v, ty), ty, nonneg=v.nonneg and not is_complex(ty))
    return handler


def _complex(tr, node):
    vals = _args(tr, node, 1, 2)
    if _unknown(vals):
        return _unknown(vals)
    if len(vals) == 1:
        return _val(_cast(vals[0], np.dtype(np.complex128)), np.dtype(np.complex128))
    return _val(f"nf_c128({_cast(vals[0], FLOAT64)}, {_cast(vals[1], FLOAT64)})", np.dtype(np.complex128))


def _len(tr, node):
    (v,) = _args(tr, node, 1, scalar=False)
    if isinstance(v.ty, TupleType):
        return literal(len(v.items))
    if v.array is not None:
        if v.array[0].ndim == 0:
            raise tr.error(node, "len() of a 0-d array")
        return tr.scope.dim(v, 0)
    raise tr.error(node, f"len() of {tr.type_name(v)} is not supported in kernels")


def _range(tr, node):
    raise tr.error(node, "range() can only be iterated by a for loop in kernels")


def _c_string(text):
    """text as the inside of a C string literal and printf format (octal escapes: never greedy)."""
    out = []
    for b in text.encode():
        ch = chr(b)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch if 32 <= b < 127 else f"\\{b:03o}")
    return "".join(out)


def _print(tr, node):
    """print(...) in a kernel: printf, as Numba's CUDA target does (ints, floats, bools, strings)."""
    if node.keywords:
        raise tr.error(node, "print() in kernels takes no keyword arguments (sep=, end=, file=)")
    fmt, values = [], []
    for a in node.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            fmt.append(_c_string(a.value))
            continue
        v = tr.scalar(a, "a print() argument")
        if _unknown([v]):
            return _unknown([v])
        if is_complex(v.ty):
            fmt.append("(%g%+gj)")
            values += [f"(double)({v.code}).re", f"(double)({v.code}).im"]
        elif is_float(v.ty):
            fmt.append("%g")
            values.append(_cast(v, FLOAT64))
        elif v.ty == BOOL:
            fmt.append("%s")
            values.append(f'({v.code} ? "True" : "False")')
        elif v.ty.kind == "u":
            fmt.append("%llu")
            values.append(f"(unsigned long long)({v.code})")
        else:
            fmt.append("%lld")
            values.append(_cast(v, INT64))
    args = "".join(", " + x for x in values)
    return _val(f'printf("{" ".join(fmt)}\\n"{args})', None)


CALLS.add(builtins.print, _print)
CALLS.add(builtins.abs, _abs)
CALLS.add(np.abs, _abs)
CALLS.add(np.absolute, _abs)
CALLS.add(builtins.min, _minmax("min"))
CALLS.add(builtins.max, _minmax("max"))
CALLS.add(np.minimum, _minmax("min"))
CALLS.add(np.maximum, _minmax("max"))
CALLS.add(builtins.complex, _complex)
CALLS.add(builtins.round, _int_round("rint"))
CALLS.add(builtins.len, _len)
CALLS.add(builtins.range, _range)
# Casts: a call of the type converts its one argument (no argument: zero) to the dtype.
_CASTS = {builtins.int: INT64, builtins.float: FLOAT64, builtins.bool: BOOL}
_CASTS.update((t, np.dtype(t)) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                         np.uint32, np.int64, np.uint64, np.float32, np.float64,
                                         np.complex64, np.complex128))
for _t, _ty in _CASTS.items():
    CALLS.add(_t, _to(_ty))


# ---- cuda.* --------------------------------------------------------------------------------------

def _grid(kind):
    def handler(tr, node):
        (n,) = _args(tr, node, 1)
        if n.const not in (1, 2, 3):
            raise tr.error(node, f"cuda.{kind}(ndim) needs a constant ndim of 1, 2 or 3")
        items = []
        for axis in "xyz"[:n.const]:
            if kind == "grid":
                code = f"((long long)blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis})"
            else:
                code = f"((long long)gridDim.{axis} * blockDim.{axis})"
            items.append(_val(code, INT64, nonneg=True))
        return items[0] if n.const == 1 else _val(None, TupleType([INT64] * n.const), items=items)
    return handler


def _statement(code):
    def handler(tr, node):
        _args(tr, node, 0)
        return _val(code, None)
    return handler


def _declaration(tr, node):
    raise tr.error(node, f"{describe(node.func)}(...) must be assigned to a variable: "
                         f"name = {describe(node)}")


def _atomic(op):
    def handler(tr, node):
        nargs = 4 if op == "cas" else 3
        if len(node.args) != nargs or node.keywords:
            raise tr.error(node, f"cuda.atomic.{op} takes {nargs} positional arguments")
        target = ast.copy_location(ast.Subscript(value=node.args[0], slice=node.args[1],
                                                 ctx=ast.Load()), node)
        arr = tr.expr(node.args[0])
        if arr.array is None:
            if arr.ty == "unknown":
                return arr
            raise tr.error(node, f"cuda.atomic.{op} needs an array, got {tr.type_name(arr)}")
        ty = arr.array[0].dtype
        ok = {"add": "iIlqLQfd", "sub": "iIlqLQfd", "max": "iIlqLQfd", "min": "iIlqLQfd",
              "exch": "iIlqLQfd", "cas": "iIlqLQ"}[op]
        if ty.char not in ok:
            raise tr.error(node, f"cuda.atomic.{op} does not support arrays of {ty}")
        vals = [tr.scalar(a, "an atomic operand") for a in node.args[2:]]
        if _unknown(vals):
            return _unknown(vals)
        lvalue = tr.element(arr, target)
        operands = ", ".join(_cast(v, ty) for v in vals)
        return _val(f"nf_atomic_{op}(&{lvalue}, {operands})", ty)
    return handler


CALLS.add(cu.grid, _grid("grid"))
CALLS.add(cu.gridsize, _grid("gridsize"))
CALLS.add(cu.syncthreads, _statement("__syncthreads()"))
CALLS.add(cu.threadfence, _statement("__threadfence()"))
CALLS.add(cu.shared.array, _declaration)
CALLS.add(cu.local.array, _declaration)
for _op in ("add", "sub", "max", "min", "cas", "exch"):
    CALLS.add(getattr(cu.atomic, _op), _atomic(_op))
del _n, _c, _t, _ty, _op
__all__ = ["CALLS"]
