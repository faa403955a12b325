"""numpy.linalg.norm, vector_norm and matrix_norm, composed from ufuncs and reductions.

NumPy's own algorithm (numpy/linalg/_linalg.py) step by step, so results, dtypes and errors agree:
the default norm of a whole array is sqrt(x . x) (one matrix product); sums along axes use
numfuse.sum where it exists, else a product with a vector of ones (BLAS). max/min norms need
numfuse.max/min. ord=2/-2/'nuc' for matrices reduce the singular values (_linalg_decomp.svd).
"""

import numpy as _np

from . import _core
from . import _creation as _c
from . import _reductions as _r
from . import _shape as _s
from . import _ufuncs as u
from ._linalg_decomp import svd
from ._core import ndarray
from ._creation import asarray, ones

__all__ = ["norm", "vector_norm", "matrix_norm"]



def _normalize_axes(axis, ndim):
    out = []
    for a in axis:
        a = _core._axis(a)  # NumPy's reductions read axes so: bools refused, C int range
        if not -ndim <= a < ndim:
            raise _np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return tuple(out)


def _keep(ret, shape, axes):
    """ret with the reduced axes put back as ones (keepdims)."""
    return ret.reshape(tuple(1 if i in axes else s for i, s in enumerate(shape)))


def _sum(x, axes):
    """Sum over `axes` (sorted, non-negative), axes removed."""
    fn = getattr(_r, "sum", None)
    if fn is not None:
        return fn(x, axis=tuple(axes))
    kept = [i for i in range(x.ndim) if i not in axes]
    n = 1
    for a in axes:
        n *= x.shape[a]
    y = x.transpose(kept + list(axes)).reshape([x.shape[i] for i in kept] + [n])
    return _core.matmul(y, ones(n, x.dtype, device=x.device))


def _extreme(x, axis, name):
    fn = getattr(_r, name, None)
    if fn is None:
        raise NotImplementedError(f"numfuse.linalg.norm: this order needs numfuse.{name}, "
                                  "which is not available yet")
    if x.shape[axis] == 0:
        raise ValueError(f"zero-size array to reduction operation {'maximum' if name == 'max' else 'minimum'} "
                         "which has no identity")
    return fn(x, axis=axis)


def _svd_norm(x, row_axis, col_axis, ord):
    """NumPy's _multi_svd_norm: the largest (2), smallest (-2) or sum ('nuc') of the singular
    values of the matrices over (row_axis, col_axis)."""
    s = svd(_s.moveaxis(x, (row_axis, col_axis), (-2, -1)), compute_uv=False)
    if ord == "nuc":
        return _r.sum(s, axis=-1)
    if s.shape[-1] == 0 and ord == 2:  # amax with initial=0, as NumPy
        return _c.zeros(s.shape[:-1], dtype=s.dtype, device=s.device)
    return _extreme(s, s.ndim - 1, "max" if ord == 2 else "min")


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: vector norms (any ord) and the Frobenius / 1 / inf matrix norms."""
    x = x if isinstance(x, ndarray) else asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(_np.float64)
    if axis is None:
        nd = x.ndim
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            v = x.reshape(-1)
            if v.dtype.kind == "c":
                re, im = v.real, v.imag
                sq = _core.matmul(re, re) + _core.matmul(im, im)
            else:
                sq = _core.matmul(v, v)
            ret = u.sqrt(sq)
            return ret.reshape((1,) * nd) if keepdims else ret
    nd = x.ndim
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)  # as NumPy: int(), so axis=1.0 is accepted
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
        axis = (axis,)
    if len(axis) == 1:
        (ax,) = _normalize_axes(axis, nd)
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        if ord == _np.inf:
            ret = _extreme(u.absolute(x), ax, "max")
        elif ord == -_np.inf:
            ret = _extreme(u.absolute(x), ax, "min")
        elif ord == 0:
            ret = _sum((u.not_equal(x, 0)).astype(x.real.dtype), (ax,))
        elif ord == 1:
            ret = _sum(u.absolute(x), (ax,))
        elif ord is None or ord == 2:
            s = u.multiply(u.conjugate(x), x).real if x.dtype.kind == "c" else u.multiply(x, x)
            ret = u.sqrt(_sum(s, (ax,)))
        else:
            absx = u.absolute(x)
            absx = u.power(absx, ord)
            ret = _sum(absx, (ax,))
            ret = u.power(ret, u.reciprocal(_np.asarray(ord, dtype=ret.dtype)).item())
        return _keep(ret, x.shape, (ax,)) if keepdims else ret
    if len(axis) == 2:
        row_axis, col_axis = axis
        row_axis = _normalize_axes((row_axis,), nd)[0]
        col_axis = _normalize_axes((col_axis,), nd)[0]
        if row_axis == col_axis:
            raise ValueError("Duplicate axes given.")
        if ord in (2, -2, "nuc"):
            ret = _svd_norm(x, row_axis, col_axis, ord)
            return _keep(ret, x.shape, (row_axis, col_axis)) if keepdims else ret
        absx = u.absolute(x)
        if ord == 1 or ord == -1:
            c = col_axis - 1 if col_axis > row_axis else col_axis
            ret = _extreme(_sum(absx, (row_axis,)), c, "max" if ord == 1 else "min")
        elif ord == _np.inf or ord == -_np.inf:
            r = row_axis - 1 if row_axis > col_axis else row_axis
            ret = _extreme(_sum(absx, (col_axis,)), r, "max" if ord == _np.inf else "min")
        elif ord in (None, "fro", "f"):
            s = u.multiply(u.conjugate(x), x).real if x.dtype.kind == "c" else u.multiply(x, x)
            ret = u.sqrt(_sum(s, tuple(sorted((row_axis, col_axis)))))
        else:
            raise ValueError("Invalid norm order for matrices.")
        return _keep(ret, x.shape, (row_axis, col_axis)) if keepdims else ret
    raise ValueError("Improper number of dimensions to norm.")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """numpy.linalg.vector_norm: the norm of the elements over `axis` (all of them if None)."""
    x = x if isinstance(x, ndarray) else asarray(x)
    shape = x.shape
    if axis is None:
        res = norm(x.reshape(-1), ord=ord, axis=0)
        return res.reshape((1,) * len(shape)) if keepdims else res
    if isinstance(axis, tuple) and len(axis) != 1:
        # Several axes as one (NumPy's transpose and reshape); axis=() as an axis of length one,
        # so the norm of each element alone (|x| for every finite ord but 0).
        axes = _normalize_axes(axis, x.ndim)
        rest = [i for i in range(x.ndim) if i not in axes]
        n = 1
        for a in axes:
            n *= shape[a]
        y = x.transpose(rest + list(axes)).reshape([shape[i] for i in rest] + [n])
        res = norm(y, ord=ord, axis=-1)
        return _keep(res, shape, axes) if keepdims else res
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """numpy.linalg.matrix_norm: the norm over the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
