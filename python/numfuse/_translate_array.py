"""A scalar Python function run over whole numfuse arrays: the translator behind numfuse.vectorize,
numfuse.stencil and the translated path of numpy.vectorize / frompyfunc.

The function's AST is interpreted with lazy arrays in place of its scalars (once per operand
types: _translate_array_trace.py records the operations and replays them after), so its
arithmetic, comparisons and math calls become ufunc nodes of the lazy graph and fuse with the
expressions around them on every backend (the planner and the CUDA code generator see ordinary
element-wise nodes). The constructs and how they map:
- arithmetic, comparisons (chained), `and`/`or`/`not` -> ufuncs; Python scalars stay Python values
  and are folded by Python itself until they meet an array;
- `if`/`else` statements and conditional expressions on array conditions -> `where` over both
  branches, each computed under errstate(all='ignore') so a discarded branch stays quiet; a
  condition that is a Python value (a constant, a loop counter) picks one branch as Python does;
- locals -> Python variables holding lazy arrays; `for` over range() or a Python sequence and
  `while` on Python conditions are unrolled; a `return` under an array condition duplicates the
  rest of the block into both branches;
- math.*, abs/min/max/float/int/bool/complex/pow, NumPy or numfuse ufuncs, NumPy scalar types
  (casts), numpy.where, and plain Python functions (translated in turn, inlined).
What cannot be rewritten (a loop or `break` on an array condition, recursion, subscripts of
arrays outside a stencil, calls of unknown objects, `*args`) raises Untranslatable naming
file:line and the construct; callers fall back (vectorize) or report it (stencil).

Typing has two modes. "numpy": the values are NumPy scalars, as numpy.vectorize gives the function:
NEP 50 promotion, Python scalars weak, and the results of math.*/float()/int() are Python numbers,
weak too (the `Weak` wrapper keeps that). "numba": Numba's typing, for numfuse.vectorize with
signatures and numfuse.stencil: literals are int64/float64, integer arithmetic is done in 64 bits,
math.* keeps float32. When the two branches of an array condition have different types the
result's type depends on the data; the translator promotes and sets `mixed_types`, and
numpy.vectorize then takes NumPy's first-element rule (see _vectorize.py).
"""
import ast
import builtins
import inspect
import operator
import types

import numpy as _np

from . import _core
from ._creation import asarray
from ._translate_array_calls import BUILTIN_CALLS, MATH, math_call
from ._translate_array_source import contains, parse
from ._translate_array_values import (  # noqa: F401  (dtype_of, python_numbers: the API)
    ERRSTATE_QUIET, ERRSTATE_STRICT, Untranslatable, Weak, _BITWISE, _KIND_OF_DTYPE,
    _PY_NUMBERS, _STABLE, _U, _WEAK_DTYPE, _astype, _bool_as_int, _is_array, _is_py_number,
    _is_strong, _numba_widen, _type_key, dtype_of, python_numbers)
_MAX_UNROLL = 100_000  # iterations of one unrolled loop: beyond it a loop is data-sized, not a stencil
_MAX_INLINE_DEPTH = 32


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_NO_RETURN = object()
_UNDEFINED = object()
class Interpreter:
    """Runs one Python function's AST over array values (see the module's docstring)."""

    def __init__(self, mode="numpy", subscript=None, trace=None, python_errors=True):
        self.mode = mode
        self.python_errors = python_errors  # divisions of Python numbers raise (numpy mode)
        self.subscript = subscript  # stencil hook: (value, index, node, apply) -> value
        self.trace = trace  # records every array operation (_translate_trace.py) when set
        self.mixed_types = False
        self.replayable = True  # False once a value was read from a mutable Python object
        self.functions = []  # every function interpreted (their globals key a recorded trace)
        self._depth = 0
        self._quiet = 0
        self._strict = False

    def apply(self, fn, *args):
        """fn(*args) for an operation on arrays: the one door every array operation goes
        through, so that a recorded trace can replay the call without the AST."""
        r = fn(*args)
        if self.trace is not None:
            self.trace.add(fn, args, r, ERRSTATE_QUIET if self._quiet else
                           ERRSTATE_STRICT if self._strict else None)
        return r

    def outside(self, value):
        """Notes a Python object read by value (subscript, attribute, call): a trace of this
        call would keep what it read, so it is replayable only for objects that cannot change."""
        if not isinstance(value, _STABLE) or \
                (isinstance(value, tuple) and not all(isinstance(v, _STABLE) for v in value)):
            self.replayable = False

    # ---- entry -----------------------------------------------------------------------------
    def call(self, func, args):
        if not isinstance(func, types.FunctionType):
            raise Untranslatable(f"{func!r} is not a Python function")
        if self._depth >= _MAX_INLINE_DEPTH:
            raise Untranslatable(self._loc(None, func) + ": recursion")
        node, filename = parse(func)
        self.functions.append(func)
        code = func.__code__
        if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or node.args.kwonlyargs:
            raise Untranslatable(f"{filename}:{node.lineno}: *args, **kwargs or keyword-only "
                                 "parameters")
        names = [a.arg for a in node.args.args]
        defaults = func.__defaults__ or ()
        if len(args) > len(names) or len(args) < len(names) - len(defaults):
            raise Untranslatable(f"{filename}:{node.lineno}: called with {len(args)} arguments")
        values = list(args) + list(defaults[len(defaults) - (len(names) - len(args)):])
        env = dict(zip(names, values))
        saved = (getattr(self, "_func", None), getattr(self, "_filename", None))
        self._func, self._filename = func, filename
        self._depth += 1
        try:
            if isinstance(node, ast.Lambda):
                return self.expr(node.body, env)
            r = self.block(node.body, env, in_loop=False)
            return None if r is _NO_RETURN else r
        finally:
            self._depth -= 1
            self._func, self._filename = saved

    def _loc(self, node, func=None):
        func = func or self._func
        line = getattr(node, "lineno", None) or func.__code__.co_firstlineno
        return f"{func.__code__.co_filename}:{line}"

    def fail(self, node, what):
        raise Untranslatable(f"{self._loc(node)}: {what}")

    # ---- statements --------------------------------------------------------------------------
    def block(self, stmts, env, in_loop):
        for i, st in enumerate(stmts):
            if isinstance(st, ast.Return):
                return None if st.value is None else self.expr(st.value, env)
            if isinstance(st, ast.If):
                cond = self.expr(st.test, env)
                if not _is_array(cond):
                    r = self.block(st.body if cond else st.orelse, env, in_loop)
                    if r is not _NO_RETURN:
                        return r
                    continue
                returns = contains(st, ast.Return)
                if in_loop and (returns or contains(st, (ast.Break, ast.Continue))):
                    self.fail(st, "return, break or continue under an array condition inside a loop")
                mask = self.truth(cond, st.test)
                if returns:  # the rest of the block runs on both paths
                    rest = stmts[i + 1:]
                    rt = self.branch(st.body + rest, dict(env), in_loop)
                    rf = self.branch(st.orelse + rest, dict(env), in_loop)
                    return self.merge(mask, rt, rf, st)
                env_t, env_f = dict(env), dict(env)
                self.branch(st.body, env_t, in_loop)
                self.branch(st.orelse, env_f, in_loop)
                for name in set(env_t) | set(env_f):
                    a, b = env_t.get(name, _UNDEFINED), env_f.get(name, _UNDEFINED)
                    env[name] = a if a is b else _UNDEFINED if _UNDEFINED in (a, b) \
                        else self.merge(mask, a, b, st)
                continue
            self.statement(st, env, in_loop)
        return _NO_RETURN

    def branch(self, stmts, env, in_loop):
        self._quiet += 1
        try:
            with _np.errstate(all="ignore"):  # both branches run: a discarded one must not warn
                r = self.block(stmts, env, in_loop)
        finally:
            self._quiet -= 1
        return None if r is _NO_RETURN else r

    def statement(self, st, env, in_loop):
        if isinstance(st, ast.Assign):
            value = self.expr(st.value, env)
            for target in st.targets:
                self.assign(target, value, env)
        elif isinstance(st, ast.AugAssign):
            if not isinstance(st.target, ast.Name):
                self.fail(st, "augmented assignment to a subscript or attribute")
            env[st.target.id] = self.binop(st.op, self.name(st.target, env),
                                           self.expr(st.value, env), st)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.assign(st.target, self.expr(st.value, env), env)
        elif isinstance(st, ast.For):
            self.for_loop(st, env)
        elif isinstance(st, ast.While):
            self.while_loop(st, env)
        elif isinstance(st, ast.Break):
            raise _Break
        elif isinstance(st, ast.Continue):
            raise _Continue
        elif isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and
                                          isinstance(st.value, ast.Constant)):
            pass
        else:
            self.fail(st, f"the statement {type(st).__name__}")

    def assign(self, target, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)) \
                and len(value) == len(target.elts):
            for t, v in zip(target.elts, value):
                self.assign(t, v, env)
        else:
            self.fail(target, "assignment to a subscript, attribute or unpacking of an array")

    def for_loop(self, st, env):
        seq = self.expr(st.iter, env)
        if _is_array(seq) or not hasattr(seq, "__iter__"):
            self.fail(st, "a for loop over an array (the number of iterations depends on data)")
        for count, item in enumerate(seq):
            if count >= _MAX_UNROLL:
                self.fail(st, f"a loop of more than {_MAX_UNROLL} iterations")
            self.assign(st.target, item, env)
            if not self.loop_iteration(st, env):
                return
        self.block(st.orelse, env, in_loop=False)

    def while_loop(self, st, env):
        for _ in range(_MAX_UNROLL):
            cond = self.expr(st.test, env)
            if _is_array(cond):
                self.fail(st, "a while loop on an array condition (data-dependent loop)")
            if not cond:
                self.block(st.orelse, env, in_loop=False)
                return
            if not self.loop_iteration(st, env):
                return
        self.fail(st, f"a loop of more than {_MAX_UNROLL} iterations")

    def loop_iteration(self, st, env):
        """Runs one pass of a loop's body; False when it ends the loop with break."""
        try:
            r = self.block(st.body, env, in_loop=True)
        except _Break:
            return False
        except _Continue:
            return True
        if r is not _NO_RETURN:
            self.fail(st, "return inside a loop")
        return True

    # ---- expressions -------------------------------------------------------------------------
    def expr(self, node, env):
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"the expression {type(node).__name__}")
        return method(node, env)

    def e_Constant(self, node, env):
        return node.value

    def e_Name(self, node, env):
        return self.name(node, env)

    def name(self, node, env):
        if node.id in env:
            v = env[node.id]
            if v is _UNDEFINED:
                self.fail(node, f"'{node.id}' is assigned on only one side of an array condition")
            return v
        func = self._func
        if node.id in func.__code__.co_freevars and func.__closure__:
            cell = func.__closure__[func.__code__.co_freevars.index(node.id)]
            return cell.cell_contents
        if node.id in func.__globals__:
            return func.__globals__[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        self.fail(node, f"name '{node.id}' is not defined")

    def e_Tuple(self, node, env):
        return tuple(self.expr(e, env) for e in node.elts)

    e_List = e_Tuple

    def e_Attribute(self, node, env):
        value = self.expr(node.value, env)
        if isinstance(value, Weak):
            if node.attr in ("real", "imag"):
                return Weak(self.apply(getattr, value.array, node.attr),
                            float if value.kind is complex
                            else value.kind)
            self.fail(node, f"the attribute .{node.attr} of a Python number")
        if isinstance(value, _core.ndarray) and node.attr not in ("real", "imag", "dtype"):
            self.fail(node, f"the attribute .{node.attr} of an element")
        if isinstance(value, _core.ndarray):
            return self.apply(getattr, value, node.attr)
        self.outside(value)
        return getattr(value, node.attr)

    def e_Subscript(self, node, env):
        value = self.expr(node.value, env)
        index = self.expr(node.slice, env)
        if self.subscript is not None:
            r = self.subscript(value, index, node, self.apply)
            if r is not NotImplemented:
                return r
        if _is_array(value) or _is_array(index) or \
                (isinstance(index, tuple) and any(_is_array(i) for i in index)):
            self.fail(node, "indexing an element or indexing with an element")
        self.outside(value)
        return value[index]

    def e_Slice(self, node, env):
        part = [None if p is None else self.expr(p, env) for p in (node.lower, node.upper, node.step)]
        return slice(*part)

    def e_BinOp(self, node, env):
        return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env), node)

    def e_UnaryOp(self, node, env):
        v = self.expr(node.operand, env)
        if not _is_array(v):
            return _UNARY[type(node.op)](v)
        if isinstance(node.op, ast.Not):
            r = self.apply(_U["logical_not"], self.truth(v, node))
            return Weak(r, bool) if self.mode == "numpy" else r
        if isinstance(v, Weak):
            r = self.apply(_UNARY[type(node.op)], _bool_as_int(self, v).array)
            return Weak(r, _KIND_OF_DTYPE[r.dtype.kind])
        if self.mode == "numba" and not isinstance(node.op, ast.Not):
            v = _numba_widen(self, v, v)
        return self.apply(_UNARY[type(node.op)], v)

    def e_BoolOp(self, node, env):
        values = [self.expr(v, env) for v in node.values]
        result = values[0]
        for v in values[1:]:
            if not _is_array(result):  # Python's short circuit on a Python value
                result = v if (bool(result) if isinstance(node.op, ast.And) else not result) \
                    else result
                continue
            mask = self.truth(result, node)
            if isinstance(node.op, ast.And):
                result = self.merge(mask, v, result, node)
            else:
                result = self.merge(mask, result, v, node)
        return result

    def e_Compare(self, node, env):
        left = self.expr(node.left, env)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node, env)
            if type(op) not in _COMPARE:
                self.fail(node, f"the comparison {type(op).__name__}")
            r = self.binop(op, left, right, node, compare=True)
            result = r if result is True else self.binop(ast.BitAnd(), result, r, node)
            left = right
        return result

    def e_IfExp(self, node, env):
        cond = self.expr(node.test, env)
        if not _is_array(cond):
            return self.expr(node.body if cond else node.orelse, env)
        mask = self.truth(cond, node.test)
        self._quiet += 1
        try:
            with _np.errstate(all="ignore"):
                a, b = self.expr(node.body, env), self.expr(node.orelse, env)
        finally:
            self._quiet -= 1
        return self.merge(mask, a, b, node)

    def e_Call(self, node, env):
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            self.fail(node, "*args or **kwargs in a call")
        func = self.expr(node.func, env)
        args = [self.expr(a, env) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, env) for k in node.keywords}
        return self.call_value(func, args, kwargs, node)

    # ---- operations on values ----------------------------------------------------------------
    def call_value(self, func, args, kwargs, node):
        arrays = any(_is_array(a) for a in list(args) + list(kwargs.values()))
        if not arrays and (isinstance(func, (types.BuiltinFunctionType, type, _np.ufunc)) or
                           getattr(func, "__module__", None) in ("math", "cmath", "numpy")):
            for a in list(args) + list(kwargs.values()):
                self.outside(a)
            return func(*args, **kwargs)  # Python folds what does not involve an element
        special = BUILTIN_CALLS.get(id(func))
        if special is not None and not kwargs:
            return special(self, args, node)
        if isinstance(func, types.BuiltinFunctionType) and func in MATH:
            return math_call(self, func, args, kwargs, node)
        name = getattr(func, "__name__", None)
        if isinstance(func, (_np.ufunc, _core.ufunc)) and name in _U and not kwargs:
            return self.ufunc(_U[name], *args)
        if func is _np.where or getattr(func, "__name__", None) == "where" and \
                getattr(func, "__module__", "").startswith("numfuse"):
            if len(args) != 3 or kwargs:
                self.fail(node, "where with other than three arguments")
            return self.merge(self.truth(args[0], node), args[1], args[2], node, promote=True)
        if isinstance(func, type) and issubclass(func, _np.generic) and len(args) == 1 and not kwargs:
            return self.cast(args[0], _np.dtype(func))
        if isinstance(func, types.FunctionType) and not kwargs:
            return self.call(func, args)
        self.fail(node, f"a call to {getattr(func, '__qualname__', func)!r}")

    def strong(self, v, partner=None):
        """The value as a numfuse array (or Python scalar) with NumPy's dtype for this mode."""
        if isinstance(v, Weak):
            if not _is_strong(partner):
                return v.array
            target = _np.result_type(dtype_of(partner), v.kind(0))
            return self.apply(_astype, v.array, target) if target != v.array.dtype else v.array
        if self.mode == "numba" and _is_py_number(v):
            return _np.dtype(_WEAK_DTYPE[type(v)]).type(v)
        return v

    def binop(self, op, a, b, node, compare=False):
        fn = (_COMPARE if compare else _BINARY).get(type(op))
        if fn is None:
            self.fail(node, f"the operator {type(op).__name__}")
        if not _is_array(a) and not _is_array(b):
            return fn(a, b)
        weak = self.mode == "numpy" and not _is_strong(a) and not _is_strong(b)
        if weak and (compare and type(op) not in (ast.Eq, ast.NotEq) or
                     type(op) in (ast.FloorDiv, ast.Mod)) and \
                complex in (_type_key(a)[1], _type_key(b)[1]):
            raise TypeError("Python complex numbers have no order, // or %")
        if weak and not compare and type(op) not in _BITWISE:  # Python: True + True == 2
            a, b = _bool_as_int(self, a), _bool_as_int(self, b)
        x, y = self.strong(a, b), self.strong(b, a)
        if self.mode == "numba" and not compare:
            x, y = _numba_widen(self, x, y), _numba_widen(self, y, x)
        if weak and type(op) in (ast.Div, ast.FloorDiv, ast.Mod) and not self._quiet and \
                self.python_errors:
            # Python raises ZeroDivisionError where NumPy's array op warns: raise instead of
            # giving inf or nan (FloatingPointError when the value is read).
            self._strict = True
            try:
                with _np.errstate(**ERRSTATE_STRICT):
                    r = self.apply(fn, x, y)
            finally:
                self._strict = False
        else:
            r = self.apply(fn, x, y)
        return Weak(r, _KIND_OF_DTYPE[r.dtype.kind]) if weak else r

    def ufunc(self, uf, *args):
        vals = [self.strong(a, next((b for b in args if b is not a and _is_strong(b)), None))
                for a in args]
        return self.apply(uf, *vals)

    def cast(self, v, dtype):
        v = self.strong(v)
        return self.apply(_astype, v, dtype) if _is_array(v) else dtype.type(v)

    def truth(self, v, node):
        """A bool array: where the value is true as Python's bool() sees it."""
        v = self.strong(v)
        if not _is_array(v):
            return v
        return v if v.dtype == _np.bool_ else self.apply(_U["not_equal"], v, 0)

    def merge(self, mask, a, b, node, promote=False):
        """where(mask, a, b), both values computed; tuples merge element by element."""
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                self.fail(node, "branches return different numbers of values")
            return tuple(self.merge(mask, x, y, node) for x, y in zip(a, b))
        for v in (a, b):
            if not (_is_array(v) or isinstance(v, (_PY_NUMBERS, _np.generic))):
                self.fail(node, f"a branch under an array condition gives {type(v).__name__}")
        if not _is_array(mask):
            return a if mask else b
        if self.mode == "numpy" and not promote and _type_key(a) != _type_key(b):
            self.mixed_types = True
        weak = self.mode == "numpy" and not promote and not _is_strong(a) and not _is_strong(b)
        x, y = self.strong(a, b), self.strong(b, a)
        if self.mode == "numpy" and not _is_array(x) and not _is_array(y):
            x = self.apply(asarray, x)
        r = self.apply(_core.where, mask, x, y)
        return Weak(r, _KIND_OF_DTYPE[r.dtype.kind]) if weak else r


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}


def run(func, args, mode="numpy", subscript=None):
    """func(*args) over arrays: (result, mixed_types). Raises Untranslatable."""
    it = Interpreter(mode, subscript)
    return it.call(func, args), it.mixed_types
