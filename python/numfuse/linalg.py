"""numfuse.linalg: NumPy's linalg namespace: products, norms, and LAPACK's factorizations,
solves and decompositions (LAPACK on the CPU, cuSOLVER on CUDA)."""
import numpy as _numpy

from . import _core
from . import _ufuncs as _u
from ._linalg import _arr, matmul, tensordot, einsum, outer, vdot  # noqa: F401
from ._norm import norm, vector_norm, matrix_norm  # noqa: F401
from ._linalg_decomp import (LinAlgError, cholesky, det, eig, eigh, eigvals, eigvalsh,  # noqa: F401
                             inv, qr, slogdet, solve, svd, svdvals)
from ._linalg_derived import (cond, lstsq, matrix_power, matrix_rank, multi_dot,  # noqa: F401
                              pinv, tensorinv, tensorsolve)

__all__ = ["matmul", "norm", "vector_norm", "matrix_norm", "tensordot", "outer", "vecdot",
           "LinAlgError", "cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "qr",
           "slogdet", "solve", "svd", "svdvals", "cond", "lstsq", "matrix_power", "matrix_rank",
           "multi_dot", "pinv", "tensorinv", "tensorsolve"]


def vecdot(x1, x2, /, *, axis=-1):
    """numpy.linalg.vecdot: conj(x1) . x2 over `axis`, broadcasting the rest."""
    x1, x2 = _arr(x1), _arr(x2)
    axis = _core._axis(axis)  # as NumPy's gufunc axis=: bools and floats refused
    if x1.dtype.kind == "c":
        x1 = _u.conjugate(x1)
    a = x1 if axis in (-1, x1.ndim - 1) else x1.swapaxes(axis, -1)
    b = x2 if axis in (-1, x2.ndim - 1) else x2.swapaxes(axis, -1)
    return _core.matmul(a.reshape(a.shape[:-1] + (1, a.shape[-1])),
                        b.reshape(b.shape + (1,))).reshape(
        _np_broadcast(a.shape[:-1], b.shape[:-1]))


def _np_broadcast(s1, s2):
    return _numpy.broadcast_shapes(tuple(s1), tuple(s2))
