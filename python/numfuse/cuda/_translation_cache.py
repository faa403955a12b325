"""The translations of @cuda.jit kernels on disk, so that a new process's first launch of a kernel
the kernel cache already holds skips the translation (inspect the source, parse, type and write
C++: 0.3-0.7 ms for a small kernel, more for a large one) as well as NVRTC.

An entry is keyed by everything the translation reads: the translator's own files (size and
modification time), the function's source lines, file and first line, the argument types, the
options, and the value of every global or closure name the function (or a device function it
calls) may read. Names whose value cannot be fingerprinted exactly (an array, an object of the
user's class, a user module whose attributes the kernel may read) make the kernel uncacheable:
it is translated every time, as before. Entries live beside the compiled kernels (the kernel
cache directory, private to the user), written to a temporary name and renamed, with a SHA-256
of their content: a damaged entry reads as absent and is rewritten.
"""
import hashlib
import math
import os
import sys
import types

import numpy as np

from .. import _core
from . import _intrinsics
from ._source import source_lines
from ._types import ArrayType, TupleType

_FORMAT = "numfuse jit translation 1"
# Modules whose attributes a kernel may read and whose values do not change between processes.
_FIXED_MODULES = ("math", "cmath", "operator", "numpy", "numfuse", "numba")
_INTRINSICS = {id(v): name for name, v in vars(_intrinsics).items()
               if not name.startswith("_") and not isinstance(v, (types.ModuleType, type))}
_translator_print = None


def _is_fixed_module(name):
    return any(name == m or name.startswith(m + ".") for m in _FIXED_MODULES)


def _translator_fingerprint():
    """The translator's files (size and mtime), NumPy's version (its promotion types the C++)
    and Python's (its ast): an edited or upgraded translator never reads old entries."""
    global _translator_print
    if _translator_print is None:
        here = os.path.dirname(os.path.abspath(__file__))
        parts = [_FORMAT, np.__version__, sys.version]
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(here, name))
                parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        _translator_print = "\n".join(parts)
    return _translator_print


def _type_print(t):
    if isinstance(t, ArrayType):
        return f"A{t.key()}{t.readonly}"
    if isinstance(t, TupleType):
        return "T(" + ",".join(_type_print(e) for e in t.elts) + ")"
    return f"S{np.dtype(t).str}"


def _value_print(v, seen):
    """A string that changes whenever the translation of a read of `v` may change; None when
    no such string is known."""
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        if isinstance(v, float) and math.isnan(v):
            return "float:nan"
        return f"{type(v).__name__}:{v!r}"
    if isinstance(v, np.generic):
        return f"np:{v.dtype.str}:{v.tobytes().hex()}"
    if isinstance(v, np.dtype):
        return f"dtype:{v.str}"
    if isinstance(v, tuple):
        items = [_value_print(e, seen) for e in v]
        return None if None in items else "(" + ",".join(items) + ")"
    if id(v) in _INTRINSICS and getattr(_intrinsics, _INTRINSICS[id(v)], None) is v:
        return f"cuda:{_INTRINSICS[id(v)]}"
    if isinstance(v, types.ModuleType):
        return f"module:{v.__name__}" if _is_fixed_module(v.__name__) else None
    if getattr(v, "_nf_device_function", False) and hasattr(v, "py_func"):
        inner = _function_print(v.py_func, seen)
        return None if inner is None else "device:" + inner
    if isinstance(v, (type, types.BuiltinFunctionType, np.ufunc)) or callable(v):
        module = getattr(v, "__module__", None) or ""
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
        if name and _is_fixed_module(module) and not isinstance(v, types.FunctionType):
            return f"object:{module}.{name}"
        if name and isinstance(v, types.FunctionType) and _is_fixed_module(module):
            return f"function:{module}.{name}"
    return None


def _names_read(code):
    """Every global or attribute name code (and code nested in it) may read."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names_read(c)
    return names


def _function_print(pyfunc, seen):
    """The source of pyfunc and the values of the names it reads, or None (uncacheable)."""
    if id(pyfunc) in seen:
        return f"recursive:{pyfunc.__qualname__}"  # the translator reports the recursion itself
    seen = seen | {id(pyfunc)}
    try:
        lines, filename, first = source_lines(pyfunc)
    except (OSError, TypeError):
        return None
    code = pyfunc.__code__
    parts = [filename, str(first), pyfunc.__qualname__, "".join(lines)]
    env = pyfunc.__globals__
    for name in sorted(_names_read(code)):
        if name in env:
            p = _value_print(env[name], seen)
            if p is None:
                return None
            parts.append(f"g:{name}={p}")
        # names not among the globals are attributes or builtins: fixed by the translator
    for name, cell in zip(code.co_freevars, pyfunc.__closure__ or ()):
        try:
            p = _value_print(cell.cell_contents, seen)
        except ValueError:  # an empty cell
            return None
        if p is None:
            return None
        parts.append(f"c:{name}={p}")
    return "\n".join(parts)


def key(pyfunc, arg_types, options):
    """The hex key of a kernel's translation for these types and options, or None when the
    kernel reads a value that cannot be fingerprinted."""
    fn = _function_print(pyfunc, frozenset())
    if fn is None:
        return None
    h = hashlib.sha256()
    for part in (_translator_fingerprint(), fn, ";".join(_type_print(t) for t in arg_types),
                 "\0".join(options)):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _path(directory, k):
    return os.path.join(directory, f"jit-{k}.nft")


def load(directory, k):
    """(source, kernel name) stored under k, or None (absent, damaged or unreadable)."""
    try:
        with open(_path(directory, k), "rb") as f:
            data = f.read()
    except OSError:
        return None
    head, _, body = data.partition(b"\n")
    if head != f"{_FORMAT} {hashlib.sha256(body).hexdigest()}".encode():
        return None
    name, _, source = body.decode("utf-8", "surrogatepass").partition("\n")
    return (source, name) if name else None


def store(directory, k, source, name):
    """Writes an entry atomically; a failure only costs the next process a translation."""
    body = f"{name}\n{source}".encode("utf-8", "surrogatepass")
    data = f"{_FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body
    path = _path(directory, k)
    tmp = f"{path}.tmp.{os.getpid()}.{id(data)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def translate_cached(pyfunc, arg_types, options, translate):
    """translate(pyfunc, arg_types, options) -> (source, name), from the disk when it holds it."""
    directory = _core.cuda.kernel_cache_dir()
    k = key(pyfunc, arg_types, options) if directory else None
    if k is not None:
        hit = load(directory, k)
        if hit is not None:
            return hit
    source, name = translate(pyfunc, list(arg_types), options)
    if k is not None:
        store(directory, k, source, name)
    return source, name
