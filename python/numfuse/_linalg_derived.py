"""numpy.linalg's functions composed of the LAPACK operations of _linalg_decomp and products:
lstsq, pinv, matrix_rank, matrix_power, cond, multi_dot, tensorinv, tensorsolve. Each follows
numpy/linalg/_linalg.py step by step, with numfuse arrays, so it runs on the arrays' device.
"""
import operator

import numpy as _np

from ._creation import follows_operands
from . import _core
from . import _creation as _c
from . import _reductions as _r
from . import _shape as _s
from . import _ufuncs as _u
from ._linalg import dot
from ._norm import norm as _norm

from ._linalg_decomp import (LinAlgError, _arr, _assert_2d, _assert_stacked_square, _cast,
                             _common_type, _inv_or_nan, _real, inv, solve, svd)


@follows_operands
def lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq through the SVD: x = V diag(1/s) U^H b over the singular values above
    rcond * max(s) (what gelsd drops), residuals when a has full column rank and m > n."""
    a, b = _arr(a), _arr(b)
    is_1d = b.ndim == 1
    if is_1d:
        b = b[:, None]
    _assert_2d(a, b)
    m, n = a.shape[-2:]
    m2, n_rhs = b.shape[-2:]
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t, result_t = _common_type(a, b)
    result_real_t = _real(result_t)
    if rcond is None:
        rcond = _np.finfo(t).eps * max(n, m)
    at, bt = _cast(a, t), _cast(b, t)
    u, s, vh = svd(at, full_matrices=False)
    smax = float(_c.asnumpy(s).max()) if s.shape[0] else 0.0
    thresh = (rcond if rcond >= 0 else _np.finfo(t).eps) * smax
    large = s > thresh
    rank = int(_r.count_nonzero(large))
    s_inv = _core.where(large, 1.0 / _core.where(large, s, 1.0), 0.0)
    uhb = _core.matmul(_u.conjugate(u).T, bt)
    x = _core.matmul(_u.conjugate(vh).T, s_inv[:, None] * uhb)
    if rank == n and m > n:
        r = bt - _core.matmul(at, x)
        resids = _r.sum((r.real ** 2 + r.imag ** 2) if t.kind == "c" else r * r, axis=0)
    else:
        resids = _c.asarray(_np.array([], result_real_t), device=a.device)
    if is_1d:
        x = x[:, 0]
    return (_cast(x, result_t), _cast(resids, result_real_t), _np.int32(rank),
            _cast(s, result_real_t))


_NoValue = _np._NoValue


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    """numpy.linalg.pinv: the pseudo-inverse through the SVD, dropping singular values at or
    under rcond (rtol) times the largest."""
    a = _arr(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * _np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    rcond = _c.asarray(rcond, device=a.device)
    if a.size == 0 and _np.prod(a.shape[-2:]) == 0:
        m, n = a.shape[-2:]
        return _c.empty(a.shape[:-2] + (n, m), dtype=a.dtype, device=a.device)
    a = _u.conjugate(a)
    u, s, vt = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = rcond[..., None] * _r.amax(s, axis=-1, keepdims=True)
    large = s > cutoff
    s = _core.where(large, 1 / _core.where(large, s, 1), 0).astype(s.dtype, copy=False)
    return _core.matmul(vt.swapaxes(-1, -2), s[..., None] * u.swapaxes(-1, -2))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """numpy.linalg.matrix_rank: singular values above tol (default max(s) * max(M, N) * eps)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _arr(A)
    if A.ndim < 2:
        return int(not bool(_r.all(A == 0)))
    S = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * _np.finfo(S.dtype).eps
        else:
            rtol = _c.asarray(rtol, device=A.device)[..., None]
        smax = (_r.amax(S, axis=-1, keepdims=True) if S.shape[-1]
                else _c.zeros(S.shape[:-1] + (1,), dtype=S.dtype, device=A.device))
        tol = smax * rtol
    else:
        tol = _c.asarray(tol, device=A.device)[..., None]
    return _r.count_nonzero(S > tol, axis=-1)


def matrix_power(a, n):
    """numpy.linalg.matrix_power: repeated squaring; n < 0 inverts first."""
    a = _arr(a)
    _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        out = _c.empty_like(a)
        out[...] = _c.eye(a.shape[-2], dtype=a.dtype, device=a.device)
        return out
    if n < 0:
        a = inv(a)
        n = abs(n)
    if n == 1:
        return a
    if n == 2:
        return _core.matmul(a, a)
    if n == 3:
        return _core.matmul(_core.matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _core.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _core.matmul(result, z)
    return result


def cond(x, p=None):
    """numpy.linalg.cond: through the singular values (p None, 2, -2), else norm(x) *
    norm(inv(x)) with inf where x is singular."""
    x = _arr(x)
    if x.size == 0 and _np.prod(x.shape[-2:]) == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    with _np.errstate(all="ignore"):
        if p is None or p in {2, -2}:
            s = svd(x, compute_uv=False)
            r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
        else:
            _assert_stacked_square(x)
            t, result_t = _common_type(x)
            invx = _inv_or_nan(x, t)
            r = _norm(_cast(x, t), p, axis=(-2, -1)) * _norm(invx, p,
                                                                               axis=(-2, -1))
            r = _cast(r, _real(result_t))
    nan_mask = _u.isnan(r)
    if bool(nan_mask.any()):
        nan_mask = nan_mask & ~_u.isnan(x).any(axis=(-2, -1))
        if r.ndim > 0:
            r[nan_mask] = _np.inf
        elif bool(nan_mask):
            r = r.dtype.type(_np.inf)
    return r


@follows_operands
def multi_dot(arrays, *, out=None):
    """numpy.linalg.multi_dot: the product of the chain in the order of fewest multiplications
    (NumPy's dynamic programme)."""
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    arrays = [_arr(a) for a in arrays]
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if arrays[0].ndim == 1:
        arrays[0] = arrays[0].reshape(1, -1)
    if arrays[-1].ndim == 1:
        arrays[-1] = arrays[-1].reshape(1, -1).T
    _assert_2d(*arrays)
    if n == 3:
        A, B, C = arrays
        a0, a1b0 = A.shape
        b1c0, c1 = C.shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            result = dot(dot(A, B), C, out=out)
        else:
            result = dot(A, dot(B, C), out=out)
    else:
        from numpy.linalg._linalg import _multi_dot_matrix_chain_order
        order = _multi_dot_matrix_chain_order(arrays)

        def chain(i, j, out=None):
            if i == j:
                return arrays[i]
            return dot(chain(i, order[i, j]), chain(order[i, j] + 1, j), out=out)
        result = chain(0, n - 1, out=out)
    if ndim_first == 1 and ndim_last == 1:
        return result[0, 0]
    if ndim_first == 1 or ndim_last == 1:
        return _s.ravel(result)
    return result


def tensorinv(a, ind=2):
    """numpy.linalg.tensorinv: inv of a reshaped to a square matrix, reshaped back."""
    a = _arr(a)
    oldshape = a.shape
    prod = 1
    if ind > 0:
        invshape = oldshape[ind:] + oldshape[:ind]
        for k in oldshape[ind:]:
            prod *= k
    else:
        raise ValueError("Invalid ind argument.")
    return inv(a.reshape(prod, -1)).reshape(*invshape)


@follows_operands
def tensorsolve(a, b, axes=None):
    """numpy.linalg.tensorsolve: solve of a reshaped to a square matrix against b raveled."""
    a, b = _arr(a), _arr(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = a.transpose(allaxes)
    oldshape = a.shape[-(an - b.ndim):]
    prod = 1
    for k in oldshape:
        prod *= k
    if a.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(prod, prod), b.reshape(-1)).reshape(oldshape)
