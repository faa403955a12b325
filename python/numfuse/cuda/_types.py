"""Types of the Python -> CUDA translator: scalars are NumPy dtypes, plus arrays and tuples.

Promotion is NumPy 2's (NEP 50): a Python literal is *weak* (``a[i] * 2.0`` on float32 stays
float32), typed values are strong. A local variable takes Numba's defaults: int64 for Python
ints, float64 for Python floats, complex128 for complex.
"""
import ast
import functools

import numpy as np


class TranslationError(TypeError, NotImplementedError):
    """A construct the translator does not support, or a type error, at file:line of the kernel.

    A TypeError (as Numba's TypingError) and a NotImplementedError, so either ``except`` works."""


BOOL = np.dtype(np.bool_)
INT32 = np.dtype(np.int32)
INT64 = np.dtype(np.int64)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
COMPLEX128 = np.dtype(np.complex128)

CXX_SCALAR = {
    "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short", "H": "unsigned short",
    "i": "int", "I": "unsigned int", "l": "long long", "q": "long long", "L": "unsigned long long",
    "Q": "unsigned long long", "f": "float", "d": "double", "F": "nf_c64", "D": "nf_c128",
}


def cxx_type(dt):
    """The C++ spelling of a scalar dtype (complex types come from the prelude)."""
    try:
        return CXX_SCALAR[dt.char]
    except KeyError:
        raise TranslationError(f"dtype {dt} is not supported in CUDA kernels") from None


class ArrayType:
    """An array parameter or a shared/local array: dtype, rank and where its memory is.

    space: 'global' (a kernel argument), 'shared' or 'local' (fixed shape, known at translation).
    layout: 'C' (contiguous: strides come from the shape) or 'A' (any element strides).
    small: every linear index fits in 32 bits, so index arithmetic is done in int.
    """
    __slots__ = ("dtype", "ndim", "layout", "space", "shape", "small", "readonly")

    def __init__(self, dtype, ndim, layout="C", space="global", shape=None, small=False, readonly=False):
        self.dtype, self.ndim, self.layout, self.space = np.dtype(dtype), ndim, layout, space
        self.shape, self.small, self.readonly = shape, small, readonly

    def key(self):
        return ("array", self.dtype.str, self.ndim, self.layout, self.space, self.shape, self.small)

    def __eq__(self, other):
        return isinstance(other, ArrayType) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        dims = ", ".join([":"] * self.ndim)
        return f"{self.dtype}[{dims}]" + ("" if self.layout == "A" else f"(layout={self.layout})")


class TupleType:
    """A fixed-length tuple of scalars (shapes, cuda.grid(2), unpacking)."""
    __slots__ = ("elts",)

    def __init__(self, elts):
        self.elts = tuple(elts)

    def __eq__(self, other):
        return isinstance(other, TupleType) and self.elts == other.elts

    def __hash__(self):
        return hash(("tuple",) + self.elts)

    def __repr__(self):
        return "UniTuple(" + ", ".join(str(e) for e in self.elts) + ")"


def is_scalar(t):
    return isinstance(t, np.dtype)


def is_int(t):
    return is_scalar(t) and t.kind in "iu"


def is_float(t):
    return is_scalar(t) and t.kind == "f"


def is_complex(t):
    return is_scalar(t) and t.kind == "c"


def weak_python_type(t):
    """What NumPy's resolve_dtypes takes for a weak literal of dtype t."""
    return {"i": int, "u": int, "f": float, "c": complex}.get(t.kind, t)


@functools.lru_cache(maxsize=None)
def resolve(ufunc_name, a, a_weak, b, b_weak):
    """NumPy's result dtype of ufunc on (a, b), Python literals weak (NEP 50); None when NumPy
    has no loop for them."""
    uf = getattr(np, ufunc_name)
    x = weak_python_type(a) if a_weak else a
    y = weak_python_type(b) if b_weak else b
    try:
        return uf.resolve_dtypes((x, y, None))[-1]
    except Exception:  # NumPy has no loop for these types (its exception class is private)
        return None


def unify(a, b):
    """Numba's unification of two assignments to one variable; None when they do not unify."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if is_scalar(a) and is_scalar(b):
        return np.promote_types(a, b)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elts) == len(b.elts):
        elts = [unify(x, y) for x, y in zip(a.elts, b.elts)]
        return None if any(e is None or not is_scalar(e) for e in elts) else TupleType(elts)
    return None


def default_of_literal(value):
    """The strong type a Python literal takes when stored in a variable (Numba's defaults)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT64
    if isinstance(value, float):
        return FLOAT64
    if isinstance(value, complex):
        return COMPLEX128
    return None


def where(node, filename, first_line):
    """'file.py:LINE' of an AST node of a function parsed from its dedented source."""
    line = getattr(node, "lineno", 1) + first_line - 1
    return f"{filename}:{line}"


def describe(node):
    """A short text of a construct for error messages."""
    try:
        text = ast.unparse(node)
    except Exception:
        text = type(node).__name__
    return text if len(text) < 80 else text[:77] + "..."
