"""Python function -> CUDA C++ (a __global__ kernel or a __device__ function), typed at the call.

Types are inferred over the whole function (a variable's type is the unification of all its
assignments, as Numba does) by translating the body repeatedly until no type changes; the last
pass writes the C++. Every Python local is one C++ variable declared at the top (Python's
function scope). Entry points: translate_kernel (used by jit.py) and translate_scalar_function
(for numfuse.vectorize: scalars in, scalar out).
"""
import ast
import builtins
import hashlib
import inspect
import linecache
import re
import textwrap

import numpy as np

from . import _intrinsics as cu
from ._prelude import prelude_for
from ._translate_expr import ExprTranslator
from ._values import STATIC, UNKNOWN, Val, cast, literal, truth_code
from ._types import (INT64, ArrayType, TranslationError, TupleType, cxx_type, describe, is_int,
                     is_scalar, unify)


VOID = "void"  # the return type of a function that returns no value


def _source_lines(pyfunc):
    """(lines of pyfunc's definition, decorators included, its file, its first line).

    inspect.getsourcelines tokenizes the file (~10 ms cold): the definition is instead the lines
    from co_firstlineno while they are blank or indented deeper than its first line."""
    code = pyfunc.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, pyfunc.__globals__)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        lines, first = inspect.getsourcelines(pyfunc)  # raises OSError when there is no source
        return lines, inspect.getsourcefile(pyfunc) or filename, first
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    end = first - 1
    while end < len(lines) and not lines[end].lstrip().startswith(("def ", "async def ")):
        end += 1  # decorators
    end += 1
    while end < len(lines):
        text = lines[end]
        stripped = text.strip()
        if stripped and not stripped.startswith(("#", ")")) and len(text) - len(text.lstrip()) <= indent:
            break
        end += 1
    return lines[first - 1:end], filename, first


def _parse(pyfunc):
    """(FunctionDef, filename, first line) of a Python function."""
    try:
        lines, filename, first = _source_lines(pyfunc)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError) as e:
        raise TranslationError(f"cannot read the source of {pyfunc!r} to translate it: {e}") from None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise TranslationError(f"{filename}:{first}: only `def` functions can be translated "
                               "(not lambdas or async functions)")
    return fn, filename, first


def _assigned_names(fn):
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


class Module:
    """The device functions one kernel needs, in definition order, each translated once per
    argument types."""

    def __init__(self):
        self.functions = {}  # (id(dispatcher), arg type keys) -> (cxx name, return type)
        self.sources = []
        self.in_progress = set()


def _type_key(t):
    return t.key() if isinstance(t, ArrayType) else str(t)


def _param_type(v):
    """The parameter type of a device function called with Val v."""
    if v.array is not None:
        a = v.array[0]
        return ArrayType(a.dtype, a.ndim, a.layout if a.space == "global" else "C", "global",
                         small=a.small or a.space != "global")
    if isinstance(v.ty, TupleType):
        return v.ty
    return v.ty


class FunctionScope:
    """One function being translated with given argument types.

    C++ names, by prefix so that no two Python names can meet: a_x (scalar parameter), ak_x
    (element k of a tuple parameter), p_x / nk_x / sk_x (array parameter: pointer, extent and
    element stride of dimension k), v_x (local variable, or shared/local array), vk_x (element
    k of a tuple variable), nf_* (the translator's own temporaries and helpers)."""

    def __init__(self, pyfunc, arg_types, kind, module, cxx_name):
        self.pyfunc, self.kind, self.module, self.cxx_name = pyfunc, kind, module, cxx_name
        self.fn, self.filename, self.first_line = _parse(pyfunc)
        params = [a.arg for a in self.fn.args.args]
        a = self.fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            raise self.error(self.fn, "kernels take plain positional parameters (no defaults, "
                                      "*args, **kwargs or keyword-only parameters)")
        if len(params) != len(arg_types):
            raise TypeError(f"{pyfunc.__name__}() takes {len(params)} arguments, got {len(arg_types)}")
        self.params = dict(zip(params, arg_types))
        self.globals = dict(pyfunc.__globals__)
        if pyfunc.__closure__:
            for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                self.globals[name] = cell.cell_contents
        self.assigned = _assigned_names(self.fn)
        self.var_types, self.var_nonneg, self.aliases, self.decls = {}, {}, {}, {}
        self.return_type = None
        self.tr = ExprTranslator(self)
        self.counter = 0

    # ---- the scope interface of ExprTranslator ------------------------------------------------

    def error(self, node, message):
        line = getattr(node, "lineno", 1) + self.first_line - 1
        return TranslationError(f"{self.filename}:{line}: {message} (in {self.kind} "
                                f"'{self.pyfunc.__name__}')")

    def local(self, name, node):
        if name in self.aliases:
            return self.aliases[name]
        if name in self.decls:
            arr = self.decls[name][0]
            return Val(None, arr, array=(arr, name))
        if name in self.var_types:
            return self.variable(name)
        if name in self.params:
            return self.param_val(name)
        if name in self.assigned:
            if self.final:
                raise self.error(node, f"local variable '{name}' is used before it is assigned")
            return Val("0", UNKNOWN)
        return None

    def variable(self, name):
        t = self.var_types[name]
        if isinstance(t, TupleType):
            items = [Val(f"v{k}_{name}", e) for k, e in enumerate(t.elts)]
            return Val(None, t, items=items)
        return Val("v_" + name, t, nonneg=self.var_nonneg.get(name, False))

    def param_val(self, name):
        t = self.params[name]
        if isinstance(t, ArrayType):
            return Val(None, t, array=(t, name))
        if isinstance(t, TupleType):
            return Val(None, t, items=[Val(f"a{k}_{name}", e) for k, e in enumerate(t.elts)])
        return Val("a_" + name, t)

    def global_value(self, name, node):
        if name in self.globals:
            return self.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined")

    def dim(self, base, k):
        arr, name = base.array
        if arr.space != "global":
            if arr.shape is None:  # dynamic shared memory: its size is the launch's
                return Val(f"((long long)(nf_dynamic_smem_bytes() / {arr.dtype.itemsize}))", INT64,
                           nonneg=True)
            return literal(arr.shape[k])
        return Val(f"((long long)n{k}_{name})", INT64, nonneg=True)

    def element_code(self, base, terms):
        arr, name = base.array
        if arr.ndim == 0:
            return f"p_{name}[0]" if arr.space == "global" else f"v_{name}[0]"
        ptr = f"p_{name}" if arr.space == "global" else f"v_{name}"
        idx = "int" if arr.small else "long long"
        terms = [f"(({idx}){t})" for t in terms]
        if arr.layout == "A":
            lin = " + ".join(f"{t} * s{k}_{name}" for k, t in enumerate(terms))
        else:
            lin = terms[0]
            for k in range(1, arr.ndim):
                n = str(arr.shape[k]) if arr.space != "global" else f"n{k}_{name}"
                lin = f"({lin} * {n} + {terms[k]})"
        return f"{ptr}[{lin}]"

    def is_device_function(self, obj):
        return getattr(obj, "_nf_device_function", False)

    def device_call(self, dispatcher, args, node):
        if any(a.ty is UNKNOWN for a in args):
            return Val("0", UNKNOWN)
        for a, n in zip(args, node.args):
            if a.ty is STATIC:
                raise self.error(n, f"cannot pass {describe(n)} to a device function")
        types = [_param_type(a) for a in args]
        name, ret = translate_device(dispatcher.py_func, types, self.module)
        if ret is None:
            ret_ty = None
        else:
            ret_ty = ret
        parts = []
        for a, t in zip(args, types):
            if isinstance(t, ArrayType):
                arr, base = a.array
                parts.append(f"p_{base}" if arr.space == "global" else f"&v_{base}[0]")
                parts += [self.dim(a, k).code for k in range(arr.ndim)]
                if t.layout == "A":
                    parts += [f"s{k}_{base}" for k in range(arr.ndim)]
            elif isinstance(t, TupleType):
                parts += [cast(i, e) for i, e in zip(a.items, t.elts)]
            else:
                parts.append(cast(a, t))
        return Val(f"{name}({', '.join(parts)})", ret_ty)

    # ---- passes ---------------------------------------------------------------------------------

    def translate(self):
        self.final = False
        for _ in range(30):
            self.changed = False
            self.counter = 0
            self.body(self.fn.body, 1)
            if not self.changed:
                break
        self.final = True
        self.changed = False
        self.counter = 0
        body = self.body(self.fn.body, 1)
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
        lines += self.body(s.body, 1)
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

    # ---- output -----------------------------------------------------------------------------------

    def signature(self):
        parts = []
        for name, t in self.params.items():
            if isinstance(t, ArrayType):
                const = "const " if t.readonly else ""
                parts.append(f"{const}{cxx_type(t.dtype)}* p_{name}")
                idx = "int" if t.small else "long long"
                parts += [f"{idx} n{k}_{name}" for k in range(t.ndim)]
                if t.layout == "A":
                    parts += [f"long long s{k}_{name}" for k in range(t.ndim)]
            elif isinstance(t, TupleType):
                parts += [f"{cxx_type(e)} a{k}_{name}" for k, e in enumerate(t.elts)]
            else:
                parts.append(f"{cxx_type(t)} a_{name}")
        return ", ".join(parts)

    def declarations(self):
        lines = [decl for _, decl in self.decls.values()]
        for name, t in self.var_types.items():
            if isinstance(t, TupleType):
                if name in self.params:
                    lines += [f"{cxx_type(e)} v{k}_{name} = a{k}_{name};" for k, e in enumerate(t.elts)]
                else:
                    lines += [f"{cxx_type(e)} v{k}_{name}{{}};" for k, e in enumerate(t.elts)]
            elif name in self.params:
                lines.append(f"{cxx_type(t)} v_{name} = {cast(self.param_val(name), t)};")
            else:
                lines.append(f"{cxx_type(t)} v_{name}{{}};")
        return ["  " + ln for ln in lines]


def _load(target):
    t = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(t, target) if hasattr(target, "lineno") else t


def _cxx_ident(name):
    return re.sub(r"\W", "_", name)


def translate_device(pyfunc, arg_types, module):
    """Translates a device function for arg_types into module; returns (cxx name, return type)."""
    key = (id(pyfunc), tuple(_type_key(t) for t in arg_types))
    if key in module.functions:
        return module.functions[key]
    if key in module.in_progress:
        raise TranslationError(f"device function '{pyfunc.__name__}' is recursive: recursion is "
                               "not supported in CUDA kernels")
    module.in_progress.add(key)
    name = f"nf_dev_{_cxx_ident(pyfunc.__name__)}_{len(module.functions)}"
    scope = FunctionScope(pyfunc, arg_types, "device function", module, name)
    body = scope.translate()
    ret = scope.return_type
    void = ret is None or ret is VOID  # (a dtype == None is True: NumPy's default dtype)
    ret_cxx = "void" if void else cxx_type(ret)
    src = "\n".join([f"static __device__ __forceinline__ {ret_cxx} {name}({scope.signature()}) {{"]
                    + scope.declarations() + body + ["}"])
    module.sources.append(src)
    module.in_progress.discard(key)
    result = (name, None if void else ret)
    module.functions[key] = result
    return result


def translate_kernel(pyfunc, arg_types, options=()):
    """CUDA C++ of kernel pyfunc for arg_types: (source, extern "C" name)."""
    module = Module()
    base = f"nf_kernel_{_cxx_ident(pyfunc.__name__)}"
    scope = FunctionScope(pyfunc, arg_types, "kernel", module, base)
    body = scope.translate()
    sig = scope.signature()
    text = "\n".join(module.sources + [f'extern "C" __global__ void {base}({sig}) {{']
                     + scope.declarations() + body + ["}", ""])
    return prelude_for(text) + text, base


def translate_scalar_function(pyfunc, arg_dtypes, name=None):
    """For numfuse.vectorize: a function of scalars -> (C++ source, function name, result dtype).

    The source holds the prelude and a `static __device__ __forceinline__` function named
    `name` (default nf_dev_<function>_0) taking the arguments by value."""
    module = Module()
    types = [np.dtype(t) for t in arg_dtypes]
    cname, ret = translate_device(pyfunc, types, module)
    src = "\n".join(module.sources)
    src = prelude_for(src) + src
    if name is not None:
        src = src.replace(cname, name)
        cname = name
    if ret is None:
        raise TranslationError(f"'{pyfunc.__name__}' returns no value")
    return src, cname, ret


def source_key(pyfunc):
    """A hash of a function's source and of those of the functions it may call (for caches)."""
    try:
        text = inspect.getsource(pyfunc)
    except (OSError, TypeError):
        text = repr(pyfunc)
    return hashlib.sha1(text.encode()).hexdigest()[:16]
