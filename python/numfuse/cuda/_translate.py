"""Python function -> CUDA C++ (a __global__ kernel or a __device__ function), typed at the call.

Types are inferred over the whole function (a variable's type is the unification of all its
assignments, as Numba does) by translating the body repeatedly until no type changes; the last
pass writes the C++. Every Python local is one C++ variable declared at the top (Python's
function scope). Entry points: translate_kernel (used by _dispatcher.py) and translate_scalar_function
(for numfuse.vectorize: scalars in, scalar out).
"""
import builtins
import hashlib
import inspect
import re

import numpy as np

from ._prelude import prelude_for
from ._source import assigned_names, parse_function
from ._translate_expr import ExprTranslator
from ._translate_stmt import VOID, Statements
from ._types import INT64, ArrayType, TranslationError, TupleType, cxx_type, describe, is_int
from ._values import STATIC, UNKNOWN, Val, cast, literal


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


class FunctionScope(Statements):
    """One function being translated with given argument types.

    C++ names, by prefix so that no two Python names can meet: a_x (scalar parameter), ak_x
    (element k of a tuple parameter), p_x / nk_x / sk_x (array parameter: pointer, extent and
    element stride of dimension k), v_x (local variable, or shared/local array), vk_x (element
    k of a tuple variable), nf_* (the translator's own temporaries and helpers)."""

    def __init__(self, pyfunc, arg_types, kind, module, cxx_name):
        self.pyfunc, self.kind, self.module, self.cxx_name = pyfunc, kind, module, cxx_name
        self.fn, self.filename, self.first_line = parse_function(pyfunc)
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
        self.assigned = assigned_names(self.fn)
        self.var_types, self.var_nonneg, self.aliases, self.decls = {}, {}, {}, {}
        self.lower_bounds = {}  # integer name -> k while an enclosing `if` guarantees name >= k
        self.return_type = None
        self.tr = ExprTranslator(self)
        self.counter = 0

    # ---- the scope interface of ExprTranslator ------------------------------------------------

    def error(self, node, message):
        line = getattr(node, "lineno", 1) + self.first_line - 1
        return TranslationError(f"{self.filename}:{line}: {message} (in {self.kind} "
                                f"'{self.pyfunc.__name__}')")

    def local(self, name, node):
        v = self._local(name, node)
        if v is not None and name in self.lower_bounds and is_int(v.ty) and v.items is None:
            low = self.lower_bounds[name]
            v = Val(v.code, v.ty, weak=v.weak, nonneg=v.nonneg or low >= 0, const=v.const, low=low)
        return v

    def _local(self, name, node):
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
