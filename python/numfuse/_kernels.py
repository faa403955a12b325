"""CUDA C++ kernels written by users, under CuPy's names: RawKernel and RawModule.

Sources are compiled by NVRTC through numfuse's kernel cache (memory and disk, keyed by the
source, options, architecture and NVRTC version), on first use. NVRTC needs no GPU, so
``compile()``, compile errors (``numfuse.cuda.CompileError``, with NVRTC's log and the numbered
source) and lowered names work anywhere; a launch needs a CUDA device and raises
``numfuse.cuda.CUDAError`` naming why when there is none.

A call ``kern(grid, block, args, shared_mem=0, stream=None)`` takes numfuse arrays (pending ones
are evaluated first; the kernel may write them, so every pending reader of their old values runs
first and later reads see what the kernel wrote), NumPy scalars, Python scalars and device
allocations. When the kernel's signature can be read from the source, the number of arguments and
each one's kind are checked (TypeError naming the parameter) and Python scalars take the declared
type; otherwise they are typed as CuPy types them (int -> long long, float -> double,
bool -> bool, complex -> complex<double>).
"""
import os
import re

import numpy as _np

from ._core import kernels as _k

__all__ = ["RawKernel", "RawModule"]

_ATTRIBUTES = {  # CUfunction_attribute numbers
    "max_threads_per_block": 0, "shared_size_bytes": 1, "const_size_bytes": 2,
    "local_size_bytes": 3, "num_regs": 4, "ptx_version": 5, "binary_version": 6,
    "cache_mode_ca": 7, "max_dynamic_shared_size_bytes": 8,
    "preferred_shared_memory_carveout": 9,
}

# C parameter types a scalar argument can be checked against -> NumPy dtype names.
_C_TYPES = {
    "bool": "bool", "char": "int8", "signed char": "int8", "unsigned char": "uint8",
    "short": "int16", "short int": "int16", "signed short": "int16", "unsigned short": "uint16",
    "unsigned short int": "uint16", "int": "int32", "signed": "int32", "signed int": "int32",
    "unsigned": "uint32", "unsigned int": "uint32", "long": "int64", "long int": "int64",
    "unsigned long": "uint64", "unsigned long int": "uint64", "long long": "int64",
    "long long int": "int64", "unsigned long long": "uint64", "unsigned long long int": "uint64",
    "float": "float32", "double": "float64", "int8_t": "int8", "uint8_t": "uint8",
    "int16_t": "int16", "uint16_t": "uint16", "int32_t": "int32", "uint32_t": "uint32",
    "int64_t": "int64", "uint64_t": "uint64", "size_t": "uint64", "ptrdiff_t": "int64",
    "half": "float16", "__half": "float16", "complex<float>": "complex64",
    "thrust::complex<float>": "complex64", "cuComplex": "complex64",
    "cuFloatComplex": "complex64", "complex<double>": "complex128",
    "thrust::complex<double>": "complex128", "cuDoubleComplex": "complex128",
}
# NumPy dtype -> the C++ type generated kernels of users' code spell it with.
_CUDA_TYPES = {"bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
               "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int",
               "int64": "long long", "uint64": "unsigned long long", "float16": "__half",
               "float32": "float", "float64": "double",
               "complex64": "cuda::std::complex<float>", "complex128": "cuda::std::complex<double>"}


def _cuda_type(dtype):
    return _CUDA_TYPES[_np.dtype(dtype).name]


def _type_headers(dtypes):
    """The #include lines the types of `dtypes` need."""
    kinds = {_np.dtype(d).name for d in dtypes}
    heads = []
    if kinds & {"complex64", "complex128"}:
        heads.append("#include <cuda/std/complex>")
    if "float16" in kinds:
        heads.append("#include <cuda_fp16.h>")
    return "\n".join(heads)


_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct"}


def _strip_comments(code):
    code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    return re.sub(r"//[^\n]*", " ", code)


def _split_top_level(text):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def _param_spec(text, index):
    """(name, 'p' | 's' | '?', dtype name) of one C parameter declaration."""
    text = text.split("=")[0].strip()
    m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*$", text, flags=re.S)
    type_part, name = (m.group(1), m.group(2)) if m else (text, f"arg{index}")
    if not type_part.strip() or type_part.strip().endswith("::"):
        type_part, name = text, f"arg{index}"  # an unnamed parameter: `int`
    if "*" in type_part or "[" in text:
        return (name, "p", "")
    words = [w for w in re.sub(r"\s*([<>:])\s*", r"\1", type_part).split() if w not in _QUALIFIERS]
    dtype = _C_TYPES.get(" ".join(words).replace("std::", ""))
    return (name, "s", dtype) if dtype else (name, "?", "")


def _kernel_params(code, name):
    """The parameters of `__global__ ... name(...)` in code, or None when not exactly one is found."""
    code = _strip_comments(code)
    found = []
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), code):
        before = code[:m.start()]
        start = max(before.rfind(";"), before.rfind("}"), before.rfind("{"))
        if "__global__" not in before[start + 1:]:
            continue
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        inside = code[m.end():i - 1].strip()
        found.append([] if inside in ("", "void") else
                     [_param_spec(p, k) for k, p in enumerate(_split_top_level(inside))])
    # A declaration and its definition read alike; overloads and templates are left unknown.
    return found[0] if found and all(f == found[0] for f in found) else None


def _stream_handle(stream):
    if stream is None:
        return None
    return getattr(stream, "_s", stream)


class _KernelBase:
    """What RawKernel and a RawModule's functions share: the launch and the attributes."""

    _fn = None

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        _k.launch(self._fn, grid, block, args, shared_mem,
                  None if stream is None else getattr(stream, "_s", stream))

    @property
    def kernel(self):
        return self

    @property
    def attributes(self):
        """The CUDA attributes of the kernel on the current device (needs a GPU)."""
        return {name: self._fn.attribute(num) for name, num in _ATTRIBUTES.items()}

    def lowered_name(self):
        """The kernel's symbol in the compiled module (its mangled name for a C++ kernel)."""
        return self._fn.lowered_name()


def _attribute_property(name, number, settable):
    def get(self):
        return self._fn.attribute(number)

    def set_(self, value):
        self._fn.set_attribute(number, int(value))
    return property(get, set_ if settable else None, doc=f"cuFuncGetAttribute({name}) on the current device")


for _name, _num in _ATTRIBUTES.items():
    setattr(_KernelBase, _name, _attribute_property(
        _name, _num, _name in ("max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")))


def _check_backend(backend):
    if backend not in ("nvrtc", "nvcc"):
        raise ValueError(f"backend must be 'nvrtc' or 'nvcc', got {backend!r}")


def _option_list(options):
    if isinstance(options, str):
        return [options]
    return [str(o) for o in options]


class RawKernel(_KernelBase):
    """A CUDA C++ kernel from source (CuPy's RawKernel).

    ``name`` is the kernel's name: an ``extern "C"`` name, a C++ name or a template instance
    (``"k<float>"``), looked up through NVRTC's name expressions. ``backend='nvcc'`` and ``jitify``
    compile with NVRTC too (numfuse has one compiler path); ``translate_cucomplex`` is accepted
    (``cuComplex.h`` compiles under NVRTC as it is).
    """

    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        _check_backend(backend)
        self.code, self.name = code, name
        self.options = tuple(_option_list(options))
        self.backend = backend
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        self._module = _k.Module(code, [name], list(self.options))
        self._fn = _k.Function(self._module, name, f"kernel '{name}'", self.enable_cooperative_groups)
        params = _kernel_params(code, name)
        if params is not None:
            self._fn.set_params(params)

    def compile(self, log_stream=None):
        """Compiles now (for the current GPU, or sm_90 without one): CompileError on failure."""
        self._module.compile()


class _ModuleFunction(_KernelBase):
    def __init__(self, module, name, code):
        self.name = name
        self.module = module
        self._fn = _k.Function(module._module, name, f"kernel '{name}'", module.enable_cooperative_groups)
        params = _kernel_params(code, name.split("<")[0].strip()) if code and "<" not in name else None
        if params is not None:
            self._fn.set_params(params)


class RawModule:
    """A CUDA C++ module (CuPy's RawModule): ``code=`` source, or ``path=`` a .cu source, a
    cubin or a PTX file. ``name_expressions`` lists the template instances (and C++ names) to
    instantiate; ``get_function`` accepts them and the extern "C" names."""

    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False):
        _check_backend(backend)
        if (code is None) == (path is None):
            raise TypeError("RawModule takes exactly one of code= and path=")
        self.options = tuple(_option_list(options))
        self.backend = backend
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        self.name_expressions = tuple(name_expressions or ())
        if path is not None:
            path = os.fspath(path)
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith((".cu", ".cuh")):
                code = data.decode()
            else:
                self.code = None
                self._module = _k.Module.from_binary(data, path.endswith(".ptx") or not data.startswith(b"\x7fELF"))
                return
        self.code = code
        self._module = _k.Module(code, list(self.name_expressions), list(self.options))

    def compile(self, log_stream=None):
        """Compiles now (for the current GPU, or sm_90 without one): CompileError on failure."""
        self._module.compile()

    def get_function(self, name):
        return _ModuleFunction(self, name, self.code)

    def _lowered_name(self, name_expression):
        return self._module.lowered_name(name_expression)


def launch(code, name, grid, block, args, shared_mem=0, stream=None, options=(), check_params=True):
    """Compiles (cached) and launches kernel `name` of `code`: CUDA C++ source (str) or a
    compiled cubin / PTX (bytes). The internal entry point other front ends (the Python
    translator) launch through; arguments as RawKernel's call takes them. check_params=False
    skips reading the kernel's signature from the source (a front end that packs every argument
    with its exact type: reading it costs a regular-expression pass over the whole source)."""
    key = (code, name, tuple(options))
    fn = _LAUNCH_CACHE.get(key)
    if fn is None:
        if isinstance(code, (bytes, bytearray)):
            module = _k.Module.from_binary(bytes(code), not bytes(code).startswith(b"\x7fELF"))
        else:
            module = _k.Module(code, [name], list(options))
        fn = _k.Function(module, name, f"kernel '{name}'")
        if isinstance(code, str) and check_params:
            params = _kernel_params(code, name)
            if params is not None:
                fn.set_params(params)
        _LAUNCH_CACHE[key] = fn
    _k.launch(fn, grid, block, args, shared_mem, _stream_handle(stream))


_LAUNCH_CACHE = {}
