"""numfuse.linalg: NumPy's linalg namespace: products, norms, and LAPACK's factorizations,
solves and decompositions (LAPACK on the CPU, cuSOLVER on CUDA)."""
import numpy as _numpy

from . import _core
from ._creation import follows_operands as _follows_operands
from . import _ufuncs as _u
from ._construction import diagonal as _diagonal, trace as _trace
from ._numerical import cross as _cross
from ._shape import moveaxis as _moveaxis
from ._linalg import _arr, matmul, tensordot, einsum, outer, vdot  # noqa: F401
from ._norm import norm, vector_norm, matrix_norm  # noqa: F401
from ._linalg_decomp import (LinAlgError, cholesky, det, eig, eigh, eigvals, eigvalsh,  # noqa: F401
                             inv, qr, slogdet, solve, svd, svdvals)
from ._linalg_derived import (cond, lstsq, matrix_power, matrix_rank, multi_dot,  # noqa: F401
                              pinv, tensorinv, tensorsolve)

__all__ = ["matmul", "norm", "vector_norm", "matrix_norm", "tensordot", "outer", "vecdot",
           "cross", "matrix_transpose", "diagonal", "trace",
           "LinAlgError", "cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "qr",
           "slogdet", "solve", "svd", "svdvals", "cond", "lstsq", "matrix_power", "matrix_rank",
           "multi_dot", "pinv", "tensorinv", "tensorsolve"]


@_follows_operands
def vecdot(x1, x2, /, *, axis=-1):
    """numpy.linalg.vecdot: conj(x1) . x2 over `axis`, broadcasting the rest."""
    x1, x2 = _arr(x1), _arr(x2)
    axis = _core._axis(axis)  # as NumPy's gufunc axis=: bools and floats refused
    if x1.dtype.kind == "c":
        x1 = _u.conjugate(x1)
    # The vector axis moves last, the others keep their order (a swap would put the last one
    # in its place: (2,3,4,5) over axis -4 gave (5,3,4) where NumPy gives (3,4,5)).
    a = x1 if axis in (-1, x1.ndim - 1) else _moveaxis(x1, axis, -1)
    b = x2 if axis in (-1, x2.ndim - 1) else _moveaxis(x2, axis, -1)
    return _core.matmul(a.reshape(a.shape[:-1] + (1, a.shape[-1])),
                        b.reshape(b.shape + (1,))).reshape(
        _np_broadcast(a.shape[:-1], b.shape[:-1]))


def _np_broadcast(s1, s2):
    return _numpy.broadcast_shapes(tuple(s1), tuple(s2))


@_follows_operands
def cross(x1, x2, /, *, axis=-1):
    """numpy.linalg.cross: the cross product of 3-element vectors along `axis` (numfuse.cross
    also takes 2-element ones; this one, as NumPy's, does not)."""
    x1, x2 = _arr(x1), _arr(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {x1.shape[axis]} and {x2.shape[axis]} dimensional instead.")
    return _cross(x1, x2, axis=axis)


def matrix_transpose(x, /):
    """The last two axes swapped (numpy.linalg.matrix_transpose, numpy.matrix_transpose)."""
    x = _arr(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.swapaxes(-1, -2)


def diagonal(x, /, *, offset=0):
    """numpy.linalg.diagonal: the diagonals of the last two axes (a view, as NumPy's)."""
    return _diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """numpy.linalg.trace: the sums of the diagonals of the last two axes."""
    return _trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)
