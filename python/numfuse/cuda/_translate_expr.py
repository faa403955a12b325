"""Python expression AST -> typed CUDA C++ expression, with NumPy 2's promotion.

Entry point: ``ExprTranslator(scope).expr(node) -> Val``. The scope (see _translate.FunctionScope)
answers for local variables, global names, device-function calls and errors; this module knows
only expressions: literals, names, arithmetic, comparisons, calls of math/builtins/dtype casts and
of the cuda intrinsics, array indexing, attributes (.shape, .size, .real...) and tuples.
"""
import ast
import operator
import types

import numpy as np

from . import _intrinsics as cu
from ._calls import CALLS
from ._types import (BOOL, FLOAT32, FLOAT64, INT64, TupleType, cxx_type, describe, is_complex,
                     is_float, is_int, is_scalar, resolve)
from ._values import STATIC, UNKNOWN, Val, cast, literal, truth_code


_BINOPS = {ast.Add: ("add", "+"), ast.Sub: ("subtract", "-"), ast.Mult: ("multiply", "*"),
           ast.Div: ("true_divide", "/"), ast.FloorDiv: ("floor_divide", None),
           ast.Mod: ("remainder", None), ast.Pow: ("power", None),
           ast.BitAnd: ("bitwise_and", "&"), ast.BitOr: ("bitwise_or", "|"),
           ast.BitXor: ("bitwise_xor", "^"), ast.LShift: ("left_shift", "<<"),
           ast.RShift: ("right_shift", ">>")}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_HELPERS = {"floor_divide": "nf_floordiv", "remainder": "nf_mod", "power": "nf_pow"}



_FOLD = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
         "true_divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
         "power": operator.pow, "left_shift": operator.lshift, "right_shift": operator.rshift,
         "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor}


def _fold(name, x, y):
    """Python's value of two weak literals combined, when it is a literal again (else None)."""
    try:
        v = _FOLD[name](x, y)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(v, int) and not -2**63 <= v < 2**63:
        return None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _offset_nonneg(name, a, b, ty):
    """v - c or v + c is >= 0 when an enclosing `if` bounds v below by at least c (the neighbour
    reads a[y - 1, x] of a guarded stencil need no negative-index wrapping)."""
    if name == "add" and a.low is None:
        a, b = b, a  # c + v
    if name not in ("add", "subtract") or not is_int(ty) or a.low is None or not b.weak:
        return False
    if not isinstance(b.const, int) or isinstance(b.const, bool):
        return False
    # Only a step down (v - c, v + -c): it cannot wrap around in any integer type.
    step = b.const if name == "add" else -b.const
    return step <= 0 and a.low + step >= 0


class ExprTranslator:
    """Translates expressions in one function's scope."""

    def __init__(self, scope):
        self.scope = scope

    def error(self, node, message):
        return self.scope.error(node, message)

    def expr(self, node):
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} expressions are not supported in CUDA "
                                   f"kernels: {describe(node)}")
        return method(node)

    def scalar(self, node, what="value"):
        v = self.expr(node)
        if v.ty is UNKNOWN:
            return v
        if not is_scalar(v.ty):
            raise self.error(node, f"{what} must be a scalar, got {self.type_name(v)}: {describe(node)}")
        return v

    @staticmethod
    def type_name(v):
        if v.ty is STATIC:
            return f"the Python object {v.const!r}"
        return str(v.ty)

    # ---- leaves -------------------------------------------------------------------------------

    def _Constant(self, node):
        v = literal(node.value)
        if v is None:
            raise self.error(node, f"the constant {node.value!r} is not supported in CUDA kernels")
        return v

    def _Name(self, node):
        local = self.scope.local(node.id, node)
        if local is not None:
            return local
        return self.static(self.scope.global_value(node.id, node), node)

    def static(self, obj, node):
        """The Val of a Python object found at translation (a global or an attribute of one)."""
        if isinstance(obj, (bool, int, float, complex)) and not isinstance(obj, np.generic):
            return literal(obj)  # global constants are frozen, as Numba does
        if isinstance(obj, np.generic) and obj.dtype.kind in "biufc":
            return Val(cast(literal(obj.item()), obj.dtype), obj.dtype, nonneg=bool(obj.real >= 0),
                       const=obj.item())
        if isinstance(obj, tuple) and all(isinstance(x, (bool, int, float)) for x in obj):
            items = [literal(x) for x in obj]
            return Val(None, TupleType([i.ty for i in items]), items=items, const=obj)
        return Val(None, STATIC, const=obj)

    def _Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if base.ty is STATIC:
            obj = base.const
            if isinstance(obj, cu.Dim3) and attr in ("x", "y", "z"):
                return Val(f"((long long){obj.name}.{attr})", INT64, nonneg=True)
            try:
                return self.static(getattr(obj, attr), node)
            except AttributeError:
                raise self.error(node, f"{describe(node.value)} has no attribute {attr!r}") from None
        if base.array is not None:
            return self.array_attribute(base, attr, node)
        if isinstance(base.ty, TupleType):
            raise self.error(node, f"tuples have no attribute {attr!r} in kernels")
        if is_scalar(base.ty):
            if attr in ("real", "imag"):
                if is_complex(base.ty):
                    part = np.dtype(base.ty.char.lower())
                    return Val(f"(({base.code}).{attr[:2]})", part)
                return base if attr == "real" else Val(cast(literal(0), base.ty), base.ty, nonneg=True)
        if base.ty is UNKNOWN:
            return base
        raise self.error(node, f"attribute {attr!r} of {self.type_name(base)} is not supported in kernels")

    def array_attribute(self, base, attr, node):
        arr, name = base.array
        if attr == "shape":
            items = [self.scope.dim(base, k) for k in range(arr.ndim)]
            return Val(None, TupleType([INT64] * arr.ndim), items=items)
        if attr == "size":
            dims = [self.scope.dim(base, k).code for k in range(arr.ndim)] or ["1LL"]
            return Val("(" + " * ".join(dims) + ")", INT64, nonneg=True)
        if attr == "ndim":
            return literal(arr.ndim)
        if attr == "dtype":
            return Val(None, STATIC, const=arr.dtype)
        raise self.error(node, f"array attribute {attr!r} is not supported in kernels "
                               "(shape, size, ndim and dtype are)")

    def _Tuple(self, node):
        items = [self.expr(e) for e in node.elts]
        for e, v in zip(node.elts, items):
            if not is_scalar(v.ty) and v.ty is not UNKNOWN:
                raise self.error(e, f"tuples in kernels hold scalars, got {self.type_name(v)}")
        return Val(None, TupleType([v.ty for v in items]), items=items)

    # ---- indexing -----------------------------------------------------------------------------

    def _Subscript(self, node):
        base = self.expr(node.value)
        if base.ty is UNKNOWN:
            return base
        if isinstance(base.ty, TupleType):
            k = self.expr(node.slice)
            if not isinstance(k.const, int) or isinstance(k.const, bool):
                raise self.error(node, f"a tuple can only be indexed by a constant integer in "
                                       f"kernels: {describe(node)}")
            n = len(base.items)
            if not -n <= k.const < n:
                raise self.error(node, f"tuple index {k.const} out of range for a tuple of {n}")
            return base.items[k.const]
        if base.array is None:
            raise self.error(node, f"{self.type_name(base)} is not subscriptable: {describe(node)}")
        arr, name = base.array
        return Val(self.element(base, node), arr.dtype)

    def element(self, base, node):
        """C++ lvalue of base[node.slice] (all indices given, each wrapped as Python's)."""
        arr, name = base.array
        s = node.slice
        if isinstance(s, ast.Slice) or (isinstance(s, ast.Tuple) and any(isinstance(e, ast.Slice)
                                                                          for e in s.elts)):
            raise self.error(node, f"array slicing is not supported in CUDA kernels: {describe(node)} "
                                   "(index every dimension with integers)")
        idx = self.expr(s)
        items = idx.items if isinstance(idx.ty, TupleType) else [idx]
        if len(items) != arr.ndim:
            raise self.error(node, f"{describe(node)}: {len(items)} indices for a {arr.ndim}-d array "
                                   "(kernels index every dimension with integers; slicing is not supported)")
        terms = []
        for k, i in enumerate(items):
            if i.ty is UNKNOWN:
                terms.append("0")
                continue
            if not (is_int(i.ty) or i.ty == BOOL):
                raise self.error(node, f"array index must be an integer, got {i.ty}: {describe(node)}")
            code = cast(i, INT64)
            if not i.nonneg:
                code = f"nf_wrap({code}, {self.scope.dim(base, k).code})"
            terms.append(code)
        return self.scope.element_code(base, terms)

    # ---- arithmetic ---------------------------------------------------------------------------

    def _BinOp(self, node):
        a, b = self.scalar(node.left, "an operand"), self.scalar(node.right, "an operand")
        if a.ty is UNKNOWN or b.ty is UNKNOWN:
            return Val("0", UNKNOWN)
        if type(node.op) not in _BINOPS:
            raise self.error(node, f"operator {type(node.op).__name__} is not supported in kernels")
        name, sym = _BINOPS[type(node.op)]
        return self.binary(name, sym, a, b, node)

    def binary(self, name, sym, a, b, node):
        if a.weak and b.weak and a.const is not None and b.const is not None:
            folded = _fold(name, a.const, b.const)  # TPB * 2 in a shared array's shape
            if folded is not None:
                return literal(folded)
        ty = resolve(name, a.ty, a.weak, b.ty, b.weak)
        if ty is None:
            raise self.error(node, f"unsupported operand types for {name}: {a.ty} and {b.ty}: "
                                   f"{describe(node)}")
        weak = a.weak and b.weak
        nonneg = a.nonneg and b.nonneg and name in ("add", "multiply", "true_divide", "floor_divide",
                                                    "remainder", "bitwise_and", "right_shift")
        nonneg = nonneg or _offset_nonneg(name, a, b, ty)
        if name == "power" and weak and is_int(ty) and isinstance(b.const, int) and b.const < 0:
            ty = FLOAT64  # Python: 2 ** -1 == 0.5
        ca, cb = cast(a, ty), cast(b, ty)
        if name in _HELPERS:
            code = f"{_HELPERS[name]}({ca}, {cb})"
        elif name in ("left_shift", "right_shift") or ty == BOOL or ty.itemsize < 4:
            # C++ promotes narrow operands to int: convert the result back
            code = f"(({cxx_type(ty)})({ca} {sym} {cb}))"
        else:
            code = f"({ca} {sym} {cb})"
        return Val(code, ty, weak=weak, nonneg=nonneg)

    def _UnaryOp(self, node):
        v = self.scalar(node.operand, "an operand")
        if v.ty is UNKNOWN:
            return v
        if isinstance(node.op, ast.Not):
            return Val(f"(!{truth_code(v)})", BOOL, nonneg=True)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            if v.ty == BOOL:
                raise self.error(node, "the unary - of a bool is not supported (NumPy raises)")
            if v.const is not None and not isinstance(v.const, bool):
                return literal(-v.const) if v.weak else Val(f"(-{v.code})", v.ty)
            return Val(f"(({cxx_type(v.ty)})(-{v.code}))", v.ty, weak=v.weak)
        if isinstance(node.op, ast.Invert):
            if v.ty == BOOL:
                return Val(f"(!{v.code})", BOOL)
            if not is_int(v.ty):
                raise self.error(node, f"~ needs an integer or bool, got {v.ty}")
            return Val(f"(({cxx_type(v.ty)})(~{v.code}))", v.ty, weak=v.weak)
        raise self.error(node, f"unary operator {type(node.op).__name__} is not supported")

    def _BoolOp(self, node):
        vals = [self.scalar(e, "an operand of and/or") for e in node.values]
        if any(v.ty is UNKNOWN for v in vals):
            return Val("0", UNKNOWN)
        sym = " && " if isinstance(node.op, ast.And) else " || "
        return Val("(" + sym.join(truth_code(v) for v in vals) + ")", BOOL, nonneg=True)

    def _Compare(self, node):
        operands = [self.scalar(node.left, "an operand")] + [self.scalar(c, "an operand")
                                                             for c in node.comparators]
        if any(v.ty is UNKNOWN for v in operands):
            return Val("0", UNKNOWN)
        parts = []
        for a, op, b in zip(operands, node.ops, operands[1:]):
            if type(op) not in _CMPOPS:
                raise self.error(node, f"comparison {type(op).__name__} is not supported in kernels "
                                       f"(<, <=, >, >=, ==, != are): {describe(node)}")
            ty = resolve("less" if type(op) not in (ast.Eq, ast.NotEq) else "equal", a.ty, a.weak,
                         b.ty, b.weak)
            if ty is None:  # the result is bool: the loop's input type is what is compared
                raise self.error(node, f"cannot compare {a.ty} and {b.ty}: {describe(node)}")
            common = self.common_type(a, b, node)
            parts.append(f"({cast(a, common)} {_CMPOPS[type(op)]} {cast(b, common)})")
        return Val("(" + " && ".join(parts) + ")" if len(parts) > 1 else parts[0], BOOL, nonneg=True)

    def common_type(self, a, b, node):
        """The type two operands are converted to (NumPy's, Python literals weak)."""
        ty = resolve("maximum", a.ty, a.weak, b.ty, b.weak)
        if ty is None:
            raise self.error(node, f"no common type for {a.ty} and {b.ty}: {describe(node)}")
        return ty

    def _IfExp(self, node):
        c = self.scalar(node.test, "a condition")
        a, b = self.expr(node.body), self.expr(node.orelse)
        if UNKNOWN in (c.ty, a.ty, b.ty):
            return Val("0", UNKNOWN) if a.ty is UNKNOWN or b.ty is UNKNOWN else a
        if not (is_scalar(a.ty) and is_scalar(b.ty)):
            raise self.error(node, f"both branches of a conditional expression must be scalars: "
                                   f"{describe(node)}")
        ty = self.common_type(a, b, node)
        return Val(f"({truth_code(c)} ? {cast(a, ty)} : {cast(b, ty)})", ty,
                   weak=a.weak and b.weak, nonneg=a.nonneg and b.nonneg)

    # ---- calls --------------------------------------------------------------------------------

    def _Call(self, node):
        if node.keywords and not all(k.arg for k in node.keywords):
            raise self.error(node, f"**kwargs calls are not supported in kernels: {describe(node)}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error(node, f"*args calls are not supported in kernels: {describe(node)}")
        fn = self.expr(node.func)
        if fn.ty is not STATIC:
            raise self.error(node, f"{describe(node.func)} is not callable in kernels")
        obj = fn.const
        if self.scope.is_device_function(obj):
            if node.keywords:
                raise self.error(node, "device functions take positional arguments in kernels")
            return self.scope.device_call(obj, [self.expr(a) for a in node.args], node)
        handler = CALLS.lookup(obj)
        if handler is None:
            hint = " (decorate it with @cuda.jit(device=True) to call it from kernels)" \
                if isinstance(obj, types.FunctionType) else ""
            raise self.error(node, f"calling {describe(node.func)} is not supported in CUDA kernels{hint}")
        return handler(self, node)

    # helpers for _calls.py

    def float_type(self, v):
        """The floating type math functions compute v in (Numba: float32 stays, else float64)."""
        if is_float(v.ty) and v.ty.itemsize >= 4 and not v.weak:
            return v.ty
        if is_float(v.ty) and v.ty.itemsize < 4:
            return FLOAT32
        return FLOAT64

    def math_name(self, name, ty):
        return name + "f" if ty == FLOAT32 else name


__all__ = ["ExprTranslator", "Val", "literal", "cast", "truth_code", "STATIC", "UNKNOWN"]
