"""Python statements -> CUDA C++ lines: the passes of type inference and the statements
(assignments with Numba's unification of a variable's types, if/while/for-range, return,
shared/local array declarations). A mixin of _translate.FunctionScope, which provides the
scope (variables, parameters, arrays) and the output (signature, declarations)."""
import ast
import builtins

import numpy as np

from . import _intrinsics as cu
from ._types import INT64, ArrayType, TupleType, cxx_type, describe, is_int, is_scalar, unify
from ._source import assigned_names
from ._values import STATIC, UNKNOWN, Val, cast, literal, truth_code

VOID = "void"  # the return type of a function that returns no value


def _int_constant(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        k = _int_constant(node.operand)
        return None if k is None else -k
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _lower_bounds(test, body):
    """{name: k} for each `k <= name`, `k < name`, `name >= k`, `name > k` (k an integer literal)
    that must hold in `body` when `test` is true: the comparisons of a chain and of an `and`,
    for names the body never assigns (the bound then holds all through it)."""
    found = {}

    def visit(node):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for v in node.values:
                visit(v)
        elif isinstance(node, ast.Compare):
            operands = [node.left] + node.comparators
            for left, op, right in zip(operands, node.ops, operands[1:]):
                if isinstance(op, (ast.Gt, ast.GtE)):  # name > k is k < name
                    left, right, op = right, left, ast.Lt() if isinstance(op, ast.Gt) else ast.LtE()
                k = _int_constant(left)
                if k is not None and isinstance(right, ast.Name) and isinstance(op, (ast.Lt, ast.LtE)):
                    bound = k + 1 if isinstance(op, ast.Lt) else k
                    found[right.id] = max(bound, found.get(right.id, bound))
    visit(test)
    assigned = set()
    for st in body:
        assigned |= assigned_names(st)
    return {n: k for n, k in found.items() if n not in assigned}


class Statements:
    """The statement translation of FunctionScope (self.tr: its ExprTranslator)."""

    # ---- passes ---------------------------------------------------------------------------------

    def translate(self):
        self.final = False
        for _ in range(30):  # each pass can only widen types: this settles in a few passes
            self.changed = False
            self.counter = 0
            self.body(self.fn.body, 1)
            if not self.changed:
                break
        else:
            raise self.error(self.fn, "the types of the variables did not settle")
        self.final = True
        self.changed = False
        self.counter = 0
        body = self.body(self.fn.body, 1)
        assert not self.changed, "a type changed in the last pass"
        return body

    def fresh(self, stem):
        self.counter += 1
        return f"nf_{stem}{self.counter}"

    def body(self, stmts, depth):
        out = []
        for s in stmts:
            out += self.statement(s, depth)
        return out

    def statement(self, s, depth):
        method = getattr(self, "_" + type(s).__name__, None)
        if method is None:
            raise self.error(s, f"'{type(s).__name__}' statements are not supported in CUDA kernels: "
                                f"{describe(s).splitlines()[0]}")
        pad = "  " * depth
        return [pad + line if not line.startswith("#") else line for line in method(s, depth)]

    # ---- statements -----------------------------------------------------------------------------

    def _Pass(self, s, depth):
        return []

    def _Break(self, s, depth):
        return ["break;"]

    def _Continue(self, s, depth):
        return ["continue;"]

    def _Assert(self, s, depth):
        return []  # Numba compiles asserts out of CUDA kernels unless debug=True

    def _Expr(self, s, depth):
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return []  # docstring
        v = self.tr.expr(s.value)
        if v.code is None or v.ty is STATIC:
            return []
        return [v.code + ";"]

    def _If(self, s, depth):
        c = self.tr.scalar(s.test, "a condition")
        lines = [f"if ({truth_code(c) if c.ty is not UNKNOWN else '0'}) {{"]
        outer = self.lower_bounds
        self.lower_bounds = dict(outer)
        for name, k in _lower_bounds(s.test, s.body).items():
            self.lower_bounds[name] = max(k, outer.get(name, k))
        try:
            lines += self.body(s.body, 1)
        finally:
            self.lower_bounds = outer
        if s.orelse:
            lines += ["} else {"] + self.body(s.orelse, 1)
        return lines + ["}"]

    def _While(self, s, depth):
        if s.orelse:
            raise self.error(s, "while ... else is not supported in kernels")
        c = self.tr.scalar(s.test, "a condition")
        return ([f"while ({truth_code(c) if c.ty is not UNKNOWN else '0'}) {{"]
                + self.body(s.body, 1) + ["}"])

    def _For(self, s, depth):
        if s.orelse:
            raise self.error(s, "for ... else is not supported in kernels")
        it = s.iter
        fn = self.tr.expr(it.func) if isinstance(it, ast.Call) else None
        if fn is None or fn.ty is not STATIC or fn.const is not builtins.range:
            raise self.error(s, f"for loops in kernels iterate over range(...), not {describe(it)}")
        if not isinstance(s.target, ast.Name):
            raise self.error(s, "the target of a for loop over range must be one variable")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(s, "range takes 1 to 3 positional arguments")
        args = [self.tr.scalar(a, "a range argument") for a in it.args]
        if any(a.ty is UNKNOWN for a in args):
            self.assign_name(s.target.id, Val("0", UNKNOWN), s)
            self.body(s.body, 1)
            return []
        for a, n in zip(args, it.args):
            if not is_int(a.ty) and a.ty != np.dtype(bool):
                raise self.error(n, f"range() arguments must be integers, got {a.ty}: {describe(n)}")
        start, stop, step = (literal(0), args[0], literal(1)) if len(args) == 1 else \
            (args[0], args[1], literal(1)) if len(args) == 2 else args
        if step.const == 0:
            raise self.error(s, "range() arg 3 must not be zero")
        ty = INT64  # Python's ints; Numba's range over int64 too
        c = cxx_type(ty)
        up = step.const is not None and step.const > 0
        down = step.const is not None and step.const < 0
        it_var, stop_var, step_var = self.fresh("it"), self.fresh("stop"), self.fresh("step")
        # A step of 0 (Python raises ValueError) runs no iteration rather than forever.
        cond = (f"{it_var} < {stop_var}" if up else f"{it_var} > {stop_var}" if down else
                f"({step_var} > 0 ? {it_var} < {stop_var} : ({step_var} < 0 && {it_var} > {stop_var}))")
        nonneg = start.nonneg and (up or step.nonneg)
        head = [f"{{ const {c} {stop_var} = {cast(stop, ty)};",
                f"  const {c} {step_var} = {cast(step, ty)};",
                f"  for ({c} {it_var} = {cast(start, ty)}; {cond}; {it_var} += {step_var}) {{"]
        assign = self.assign_name(s.target.id, Val(it_var, ty, nonneg=nonneg), s)
        body = self.body(s.body, 2)
        return head + ["    " + a for a in assign] + body + ["  }", "}"]

    def _Return(self, s, depth):
        if self.kind == "kernel":
            if s.value is not None and not (isinstance(s.value, ast.Constant) and s.value.value is None):
                raise self.error(s, "a CUDA kernel cannot return a value (write it into an array)")
            return ["return;"]
        if s.value is None:
            self.set_return(None, s)
            return ["return;"]
        v = self.tr.expr(s.value)
        if v.ty is UNKNOWN:
            return []
        if not is_scalar(v.ty):
            raise self.error(s, f"device functions return scalars here, got {self.tr.type_name(v)}")
        self.set_return(v.ty, s)
        if self.return_type is None or self.return_type is VOID:
            return ["return;"]
        return [f"return {cast(v, self.return_type)};"]

    def set_return(self, ty, s):
        ty = VOID if ty is None else ty
        if self.return_type is None:
            self.return_type, self.changed = ty, True
            return
        if (self.return_type is VOID) != (ty is VOID):
            raise self.error(s, "a device function returns a value on some paths and none on others")
        if ty is VOID or self.return_type == ty:
            return
        u = unify(self.return_type, ty)
        if u != self.return_type:
            self.return_type, self.changed = u, True

    def _AugAssign(self, s, depth):
        op = ast.BinOp(left=_load(s.target), op=s.op, right=s.value)
        ast.copy_location(op, s)
        return self.store(s.target, self.tr.expr(op), s)

    def _AnnAssign(self, s, depth):
        if s.value is None:
            return []
        return self.store(s.target, self.tr.expr(s.value), s)

    def _Assign(self, s, depth):
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call):
            fn = self.tr.expr(s.value.func)
            if fn.ty is STATIC and (fn.const is cu.shared.array or fn.const is cu.local.array):
                self.declare(s.targets[0].id, s.value, fn.const is cu.shared.array)
                return []
        v = self.tr.expr(s.value)
        lines = []
        for t in s.targets:
            lines += self.store(t, v, s)
        return lines

    def declare(self, name, call, shared):
        args = dict(zip(("shape", "dtype"), call.args))
        args.update({k.arg: k.value for k in call.keywords})
        if set(args) != {"shape", "dtype"}:
            raise self.error(call, "cuda.shared.array / cuda.local.array take (shape, dtype)")
        shape_v = self.tr.expr(args["shape"])
        shape = shape_v.const if shape_v.const is not None else \
            tuple(i.const for i in shape_v.items) if shape_v.items else None
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, tuple) or not all(isinstance(n, int) for n in shape):
            raise self.error(call, f"the shape of a {'shared' if shared else 'local'} array must be "
                                   f"a constant int or tuple of ints: {describe(args['shape'])}")
        d = args["dtype"]
        dt = Val(None, STATIC, const=d.value) if isinstance(d, ast.Constant) and isinstance(d.value, str) \
            else self.tr.expr(d)
        try:
            dtype = np.dtype(dt.const)
            cxx = cxx_type(dtype)
        except TypeError:
            raise self.error(call, f"not a dtype: {describe(args['dtype'])}") from None
        dynamic = shared and shape == (0,)
        arr = ArrayType(dtype, len(shape), "C", "shared" if shared else "local",
                        shape=None if dynamic else shape, small=True)
        size = int(np.prod(shape)) if shape else 1
        if dynamic:
            decl = (f"extern __shared__ __align__(16) unsigned char nf_dynamic_smem[];\n"
                    f"  {cxx}* v_{name} = ({cxx}*)nf_dynamic_smem;")
        else:
            decl = f"{'__shared__ ' if shared else ''}{cxx} v_{name}[{max(size, 1)}];"
        old = self.decls.get(name)
        if old is not None and old[0] != arr:
            raise self.error(call, f"variable '{name}' is assigned two different arrays")
        if name in self.var_types or name in self.params:
            raise self.error(call, f"variable '{name}' is assigned an array and a scalar")
        if old is None:
            self.changed = True
        self.decls[name] = (arr, decl)

    def store(self, target, v, s):
        if isinstance(target, ast.Name):
            return self.assign_name(target.id, v, s)
        if isinstance(target, ast.Subscript):
            base = self.tr.expr(target.value)
            if base.ty is UNKNOWN or v.ty is UNKNOWN:
                return []
            if base.array is None:
                raise self.error(s, f"cannot assign to an element of {self.tr.type_name(base)}: "
                                    f"{describe(target)}")
            if not is_scalar(v.ty):
                raise self.error(s, f"cannot store {self.tr.type_name(v)} into an array element")
            if base.array[0].readonly:
                raise self.error(s, f"{describe(target.value)} is read-only")
            return [f"{self.tr.element(base, target)} = {cast(v, base.array[0].dtype)};"]
        if isinstance(target, (ast.Tuple, ast.List)):
            if v.ty is UNKNOWN:
                for t in target.elts:
                    if isinstance(t, ast.Name):
                        self.assign_name(t.id, Val("0", UNKNOWN), s)
                return []
            if not isinstance(v.ty, TupleType):
                raise self.error(s, f"cannot unpack {self.tr.type_name(v)}: {describe(s)}")
            if len(v.items) != len(target.elts):
                raise self.error(s, f"cannot unpack a tuple of {len(v.items)} into "
                                    f"{len(target.elts)} targets")
            # Python evaluates the whole right side first (a, b = b, a): through temporaries
            lines, temps = [], []
            for item in v.items:
                t = self.fresh("t")
                lines.append(f"const {cxx_type(item.ty)} {t} = {item.code};")
                temps.append(Val(t, item.ty, weak=item.weak, nonneg=item.nonneg, const=item.const))
            for t, tv in zip(target.elts, temps):
                lines += self.store(t, tv, s)
            return ["{"] + ["  " + ln for ln in lines] + ["}"]
        raise self.error(s, f"cannot assign to {describe(target)} in a kernel")

    def assign_name(self, name, v, s):
        if name in self.params and isinstance(self.params[name], ArrayType) or name in self.decls:
            raise self.error(s, f"variable '{name}' holds an array and cannot be reassigned")
        if v.ty is UNKNOWN:
            return []
        if v.array is not None:
            old = self.aliases.get(name)
            if old is not None and old.array != v.array:
                raise self.error(s, f"variable '{name}' is assigned two different arrays")
            if name in self.var_types:
                raise self.error(s, f"variable '{name}' is assigned an array and a {self.var_types[name]}")
            if old is None:
                self.aliases[name], self.changed = v, True
            return []
        if v.ty is STATIC:
            raise self.error(s, f"variable '{name}' cannot hold {self.tr.type_name(v)} in a kernel")
        if v.ty is None:
            raise self.error(s, f"variable '{name}' is assigned the result of a call that returns nothing")
        if name in self.aliases:
            raise self.error(s, f"variable '{name}' is assigned an array and a {v.ty}")
        old = self.var_types.get(name, self.params.get(name))
        new = unify(old, v.ty)
        if new is None:
            raise self.error(s, f"variable '{name}' is assigned {old} and {self.tr.type_name(v)}: "
                                "a variable keeps one type in a kernel")
        # a parameter's incoming value may be negative: only assignments are known
        nonneg = self.var_nonneg.get(name, name not in self.params) and v.nonneg
        if new != self.var_types.get(name) or nonneg != self.var_nonneg.get(name):
            self.var_types[name], self.var_nonneg[name], self.changed = new, nonneg, True
        if isinstance(new, TupleType):
            return [f"v{k}_{name} = {cast(i, e)};" for k, (i, e) in enumerate(zip(v.items, new.elts))]
        return [f"v_{name} = {cast(v, new)};"]


def _load(target):
    t = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(t, target) if hasattr(target, "lineno") else t
