"""Products: matmul, dot, vdot, inner, outer, tensordot, einsum.

Every product is one C++ matmul (BLAS underneath) between views: transposes and reshapes put the
contracted axes last on the left operand and second-to-last on the right one, as NumPy's own
tensordot does. einsum (_einsum.py) is built the same way. The BLAS library is NumPy's own
OpenBLAS, found at run time; it runs on all the cores this process may use.
"""
import operator
import os

import numpy as _np

from . import _core
from . import _ufuncs as _u  # through the module: see _indexing.py on ufunc objects in globals
from ._einsum import einsum as _einsum
from ._core import ndarray
from ._creation import asarray, follows_operands

__all__ = ["matmul", "matvec", "vecmat", "dot", "vdot", "inner", "outer", "tensordot", "einsum"]


def _available_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# NumPy's OpenBLAS starts with its own idea of the thread count (OPENBLAS_NUM_THREADS, or every
# core of the machine even where this process is confined to fewer): use the cores we may run on,
# unless the user said otherwise through the usual variables.
if not any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                       "NUMFUSE_BLAS_THREADS")):
    _core.set_blas_threads(_available_cores())
elif os.environ.get("NUMFUSE_BLAS_THREADS"):
    _core.set_blas_threads(int(os.environ["NUMFUSE_BLAS_THREADS"]))


def _arr(x):
    return x if isinstance(x, ndarray) else asarray(x)


def _write_out(res, out, casting="same_kind", name="matmul"):
    """Stores res into out= as a ufunc does (shape must match, cast under `casting`)."""
    if not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    if tuple(out.shape) != tuple(res.shape):
        raise ValueError(f"{name}: output operand 0 has shape {tuple(out.shape)}, "
                         f"the result has shape {tuple(res.shape)}")
    if not _np.can_cast(res.dtype, out.dtype, casting):
        raise _core.UFuncTypeError(
            f"Cannot cast ufunc '{name}' output from {res.dtype!r} to {out.dtype!r} with "
            f"casting rule '{casting}'")
    out[...] = res
    return out


def matmul(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True,
           signature=None, axes=None, axis=None):
    """numpy.matmul: batched matrix product with broadcasting (BLAS underneath)."""
    if axes is not None or axis is not None:
        raise NotImplementedError("numfuse.matmul: axes= and axis= are not supported")
    if signature is not None and dtype is None:
        dtype = signature[-1] if isinstance(signature, tuple) else signature
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    res = _core.matmul(x1, x2, dtype, casting)
    if out is not None:
        return _write_out(res, out, casting)
    return _core.as_result(res)  # two vectors: NumPy's scalar on the CPU


def _core_dims(name, signature, operands, needed):
    """NumPy's gufunc error for an operand of too few dimensions."""
    for k, (x, need) in enumerate(zip(operands, needed)):
        if x.ndim < need:
            raise ValueError(f"{name}: Input operand {k} does not have enough dimensions (has "
                             f"{x.ndim}, gufunc core with signature {signature} requires {need})")


@follows_operands
def matvec(x1, x2, /, out=None, *, casting="same_kind", dtype=None):
    """numpy.matvec (NumPy 2.2): matrix-vector products over stacks, (..., m, n) by (..., n)."""
    x1, x2 = _arr(x1), _arr(x2)
    _core_dims("matvec", "(m,n),(n)->(m)", (x1, x2), (2, 1))
    res = _core.matmul(x1, x2[..., None], dtype, casting)[..., 0]
    return res if out is None else _write_out(res, out[0] if isinstance(out, tuple) else out, casting)


@follows_operands
def vecmat(x1, x2, /, out=None, *, casting="same_kind", dtype=None):
    """numpy.vecmat (NumPy 2.2): conj(vector)-matrix products over stacks, (..., n) by (..., n, m)."""
    x1, x2 = _arr(x1), _arr(x2)
    _core_dims("vecmat", "(n),(n,m)->(m)", (x1, x2), (1, 2))
    if x1.dtype.kind == "c":
        x1 = _u.conjugate(x1)
    res = _core.matmul(x1[..., None, :], x2, dtype, casting)[..., 0, :]
    return res if out is None else _write_out(res, out[0] if isinstance(out, tuple) else out, casting)


def _matmul_i(self, other):
    """a @= b: NumPy computes matmul(a, b, out=a)."""
    res = _core.matmul(self, other)
    if tuple(res.shape) != tuple(self.shape):
        # NumPy's wording for the output's core dimension, when the shapes differ only there.
        if res.ndim == self.ndim and res.shape[:-1] == self.shape[:-1]:
            raise ValueError(
                "matmul: Output operand 0 has a mismatch in its core dimension 1, with gufunc "
                f"signature (n?,k),(k,m?)->(n?,m?) (size {res.shape[-1]} is different from "
                f"{self.shape[-1]})")
        raise ValueError(f"non-broadcastable output operand with shape {tuple(self.shape)} "
                         f"doesn't match the broadcast shape {tuple(res.shape)}")
    return _write_out(res, self, "same_kind")


def _not_aligned(a, b, da, db):
    sa = "(" + ",".join(str(s) for s in a.shape) + ("," if a.ndim == 1 else "") + ")"
    sb = "(" + ",".join(str(s) for s in b.shape) + ("," if b.ndim == 1 else "") + ")"
    return ValueError(f"shapes {sa} and {sb} not aligned: {a.shape[da]} (dim {da}) != "
                      f"{b.shape[db]} (dim {db})")


def dot(a, b, out=None):
    """numpy.dot: the sum product over a's last axis and b's second-to-last (its only, if 1-D)."""
    if out is None:
        # CPU vectors and a matrix, as a Python loop's np.dot(A[i, :j], A[j, :j]): no node (two
        # vectors give NumPy's scalar).
        r = _core.product_now(a, b)
        if r is not None:
            return r
    return _dot(a, b, out)


@follows_operands
def _dot(a, b, out=None):
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        res = _u.multiply(a, b)  # both are arrays here: no weak-scalar promotion, as in NumPy
    else:
        da, db = a.ndim - 1, max(b.ndim - 2, 0)
        if a.shape[da] != b.shape[db]:
            raise _not_aligned(a, b, da, db)
        if a.ndim <= 2 or b.ndim <= 1:
            # matmul's rules agree with dot's when a is at most 2-D, or b is 1-D.
            if b.ndim <= 2 or a.ndim == 1:
                res = _core.matmul(a, b)
            else:  # a 2-D, b N-D: (i, k) x (j..., k, m) -> (i, j..., m)
                res = _core.matmul(a, b)  # (j..., i, m)
                res = _move_axis_to_front(res, res.ndim - 2)
        else:
            k = a.shape[-1]
            a2 = a.reshape(-1, k)
            res = _core.matmul(a2, b)  # (j..., I, m) or (I, m) or (I,)
            if b.ndim >= 3:
                res = _move_axis_to_front(res, res.ndim - 2)
            res = res.reshape(a.shape[:-1] + b.shape[:-2] + b.shape[-1:])
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("'out' must be an array")
        if out.dtype != res.dtype or tuple(out.shape) != tuple(res.shape):
            raise ValueError("output array is not acceptable (must have the right datatype, "
                             "number of dimensions, and be a C-Array)")
        out[...] = res
        return out
    return _core.as_result(res)  # two vectors (or 0-d operands): NumPy's scalar on the CPU


def _move_axis_to_front(x, axis):
    perm = [axis] + [i for i in range(x.ndim) if i != axis]
    return x.transpose(perm)


@follows_operands
def vdot(a, b, /):
    """numpy.vdot: both flattened, the first conjugated (complex), then the inner product."""
    a, b = _arr(a), _arr(b)
    a = a.reshape(-1)
    b = b.reshape(a.size)
    if a.dtype.kind == "c":
        a = _u.conjugate(a)
    return _core.as_result(_core.matmul(a, b))  # NumPy's scalar on the CPU


@follows_operands
def inner(a, b, /):
    """numpy.inner: the sum product over the last axes of a and b."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _u.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise _not_aligned(a, b, a.ndim - 1, b.ndim - 1)
    # Two vectors: NumPy's scalar on the CPU (tensordot itself gives a 0-d array, as NumPy's).
    return _core.as_result(tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1])))


@follows_operands
def outer(a, b, out=None):
    """numpy.outer: a.ravel()[:, None] * b.ravel()[None, :] (elementwise, fusable)."""
    if isinstance(out, tuple):  # NumPy passes out= to multiply positionally: an array only
        raise TypeError("return arrays must be of ArrayType")
    a, b = _arr(a).reshape(-1), _arr(b).reshape(-1)
    if out is None:  # the operator's slot: the short path of `outer(col, row)` in a loop
        return a.reshape(a.size, 1) * b.reshape(1, b.size)
    return _u.multiply(a.reshape(a.size, 1), b.reshape(1, b.size), out=out)


@follows_operands
def tensordot(a, b, axes=2):
    """numpy.tensordot: sum products over the given axes, as one matrix product."""
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        axes_a = list(range(-n, 0))
        axes_b = list(range(0, n))
    else:
        axes_a, axes_b = axes
    try:
        na = len(axes_a)
        axes_a = list(axes_a)
    except TypeError:
        axes_a, na = [axes_a], 1
    try:
        nb = len(axes_b)
        axes_b = list(axes_b)
    except TypeError:
        axes_b, nb = [axes_b], 1
    a, b = _arr(a), _arr(b)
    as_, bs = a.shape, b.shape
    equal = na == nb
    if equal:
        for k in range(na):
            if as_[axes_a[k]] != bs[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += a.ndim
            if axes_b[k] < 0:
                axes_b[k] += b.ndim
    if not equal:
        raise ValueError("shape-mismatch for sum")
    free_a = [k for k in range(a.ndim) if k not in axes_a]
    free_b = [k for k in range(b.ndim) if k not in axes_b]
    k = 1
    for ax in axes_a:
        k *= as_[ax]
    m = 1
    for ax in free_a:
        m *= as_[ax]
    n = 1
    for ax in free_b:
        n *= bs[ax]
    at = a.transpose(free_a + axes_a).reshape(m, k)
    bt = b.transpose(axes_b + free_b).reshape(k, n)
    res = _core.matmul(at, bt)
    return res.reshape([as_[ax] for ax in free_a] + [bs[ax] for ax in free_b])


@follows_operands
def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """numpy.einsum through transposes, diagonals, reshapes and matrix products (see _einsum)."""
    return _einsum(*operands, out=out, dtype=dtype, casting=casting)
