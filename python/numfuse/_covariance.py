"""cov and corrcoef under NumPy's names, NumPy's algorithm (numpy/lib/_function_base_impl.py)
step for step over numfuse arrays: the weighted mean by ``average``, the centred product by
``dot`` (BLAS on the CPU, cuBLAS on CUDA). The checks of the weights are reductions whose one
bool comes back to the host, as NumPy's do."""
import warnings

import numpy as _np

from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, follows_operands
from ._linalg import dot
from ._math import clip, imag, real
from ._ranges import diag
from ._reductions import all as _all, any as _any, average, sum as _sum
from ._shape import atleast_2d, concatenate, squeeze

__all__ = ["cov", "corrcoef"]


def _arr(a):
    return a if isinstance(a, ndarray) else asarray(a)


def _obs_weights(w, n, name):
    w = _arr(w).astype(_np.float64)
    if name == "fweights" and not bool(_all(_u.equal(w, _u.rint(w)))):
        raise TypeError("fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if bool(_any(_u.less(w, 0))):
        raise ValueError(f"{name} cannot be negative")
    return w


@follows_operands
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """numpy.cov: the covariance of the rows (columns when not rowvar) of m and y."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _arr(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = _arr(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = _np.result_type(m.dtype, _np.float64) if y is None else \
            _np.result_type(m.dtype, y.dtype, _np.float64)
    X = atleast_2d(m.astype(dtype))
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return asarray(_np.array([]).reshape(0, 0), device=m.device)
    if y is not None:
        y = atleast_2d(y.astype(dtype))
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        w = _obs_weights(fweights, X.shape[1], "fweights")
    if aweights is not None:
        aweights = _obs_weights(aweights, X.shape[1], "aweights")
        w = aweights if w is None else _u.multiply(w, aweights)
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    # The weights are real: the sum average returns in X's (maybe complex) dtype has no imaginary
    # part, and a GPU element is a 0-d array, which float() refuses when it is complex.
    w_sum = float(w_sum[0].real) if w is not None else X.shape[1]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * float(_sum(_u.multiply(w, aweights))) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X = _u.subtract(X, avg[:, None])
    X_T = X.T if w is None else _u.multiply(X, w).T
    # NumPy's X_T.conj(): the array itself when real (no copy: BLAS reads the transpose).
    c = dot(X, _u.conjugate(X_T) if X_T.dtype.kind == "c" else X_T)
    with _np.errstate(divide="ignore"):
        scale = _np.true_divide(1, fact)
    c = _u.multiply(c, scale).astype(c.dtype, copy=False)
    return squeeze(c)


@follows_operands
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """numpy.corrcoef: cov scaled by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:  # NumPy's diag raises for a 0-d cov: one variable gives c / c
        return _u.true_divide(c, c)
    d = diag(c)
    stddev = _u.sqrt(real(d))
    c = _u.true_divide(c, stddev[:, None])
    c = _u.true_divide(c, stddev[None, :])
    if c.dtype.kind == "c":
        return _u.add(clip(real(c), -1, 1), _u.multiply(clip(imag(c), -1, 1), 1j)).astype(c.dtype)
    return clip(c, -1, 1)
