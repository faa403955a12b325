"""NumPy's legacy polynomial functions (poly, roots, polyadd ... polyfit) and the poly1d class,
over numfuse arrays: the same algorithms as numpy/lib/_polynomial_impl.py. roots are the
eigenvalues of the companion matrix (numfuse.linalg.eigvals), polyfit a scaled least-squares
problem (numfuse.linalg.lstsq). Decisions that depend on values (leading zeros, rank warnings,
whether roots come in conjugate pairs) read those few values on the host, as NumPy does."""
import functools
import warnings

import numpy as _np

from . import _ufuncs as _u
from ._core import ndarray
from ._convolve import convolve
from ._creation import arange, asarray, asnumpy, follows_operands, ones, zeros, zeros_like
from ._indexing import flatnonzero
from ._ranges import diag
from ._linalg_decomp import eigvals, inv
from ._linalg_derived import lstsq
from ._numerical import trim_zeros, vander
from ._shape import atleast_1d, concatenate

__all__ = ["poly", "roots", "polyint", "polyder", "polyfit", "polyval", "polyadd", "polysub",
           "polymul", "polydiv", "poly1d"]


def _arr(v):
    if isinstance(v, poly1d):
        return v.coeffs
    return v if isinstance(v, ndarray) else asarray(v)


def _1d(v):
    return atleast_1d(_arr(v))


def poly(seq_of_zeros):
    if (seq_of_zeros.ndim if isinstance(seq_of_zeros, ndarray) else _np.ndim(seq_of_zeros)) == 0:
        # NumPy's dispatcher returns its argument as the iterable of relevant arguments
        raise TypeError("dispatcher for __array_function__ did not return an iterable")
    seq_of_zeros = _1d(seq_of_zeros)
    sh = seq_of_zeros.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        seq_of_zeros = eigvals(seq_of_zeros)
    elif len(sh) == 1:
        seq_of_zeros = seq_of_zeros.astype(_np.mintypecode(seq_of_zeros.dtype.char))
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if len(seq_of_zeros) == 0:
        return 1.0
    dt = seq_of_zeros.dtype
    a = ones((1,), dtype=dt, device=seq_of_zeros.device)
    zero = zeros((1,), dtype=dt, device=seq_of_zeros.device)
    for k in range(len(seq_of_zeros)):
        # convolve(a, [1, -z]) of NumPy: a[i] + (-z) * a[i - 1], the same two roundings
        a = concatenate((a, zero)) + (-seq_of_zeros[k]) * concatenate((zero, a))
    if a.dtype.kind == "c":
        r = _np.asarray(asnumpy(seq_of_zeros), complex)
        if _np.all(_np.sort(r) == _np.sort(r.conjugate())):
            a = a.real.copy()
    return a


@functools.cache
def _numpy_roots_can_be_real():
    """Whether the installed NumPy's roots returns real roots as real (asked once)."""
    return _np.roots([1.0, -1.0]).dtype.kind != "c"


def roots(p):
    p = _1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    non_zero = asnumpy(flatnonzero(p))
    if len(non_zero) == 0:
        return asarray(_np.array([]), device=p.device)
    trailing_zeros = len(p) - int(non_zero[-1]) - 1
    p = p[int(non_zero[0]):int(non_zero[-1]) + 1]
    if p.dtype.kind not in "fc":
        p = p.astype(float)
    n = len(p)
    if n > 1:
        a = diag(ones((n - 2,), p.dtype, device=p.device), -1)
        a[0, :] = -p[1:] / p[0]
        found = eigvals(a)
        if found.dtype.kind == "c" and p.dtype.kind != "c" and _numpy_roots_can_be_real() \
                and bool((found.imag == 0).all()):
            # NumPy 2.5's eigvals is always complex, its roots still real when every root is:
            # the installed NumPy's roots decides, as eig's rule does (_linalg_decomp).
            found = found.real
    else:
        found = asarray(_np.array([]), device=p.device)
    return concatenate((found, zeros(trailing_zeros, found.dtype, device=p.device)))


def polyint(p, m=1, k=None):
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    truepoly = isinstance(p, poly1d)
    p = _arr(p)
    if k is None:
        k = zeros(m, float, device=p.device)
    k = atleast_1d(k if isinstance(k, ndarray) else asarray(k, device=p.device))
    if len(k) == 1 and m > 1:
        k = k[0] * ones(m, float, device=p.device)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for j in range(m):
        p = concatenate((p / arange(len(p), 0, -1, device=p.device), k[j:j + 1]))
    return poly1d(p) if truepoly else p


def polyder(p, m=1):
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    truepoly = isinstance(p, poly1d)
    p = _arr(p)
    for _ in range(m):
        n = len(p) - 1
        p = p[:-1] * arange(n, 0, -1, device=p.device)
    return poly1d(p) if truepoly else p


@follows_operands
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    order = int(deg) + 1
    x = _arr(x) + 0.0
    y = asarray(y, device=x.device) if not isinstance(y, ndarray) else y
    y = y + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * _np.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = (w if isinstance(w, ndarray) else asarray(w, device=x.device)) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * w[:, None] if rhs.ndim == 2 else rhs * w
    scale = _u.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    vbase = inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
        fac = 1
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return c, vbase * fac
    return c, vbase[:, :, None] * fac


@follows_operands
def polyval(p, x):
    p = _arr(p)
    if isinstance(x, poly1d):
        y = 0
        for i in range(len(p)):
            y = y * x + p[i]
        return y
    x = asarray(x, device=p.device) if not isinstance(x, ndarray) else x
    y = zeros_like(x)
    for i in range(len(p)):  # Horner, as NumPy: p[i] keeps its own dtype (a 0-d array)
        y = y * x + p[i]
    return y


def _pad_front(a, n):
    return concatenate((zeros(n, a.dtype, device=a.device), a))


@follows_operands
def polyadd(a1, a2):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = _1d(a1), _1d(a2)
    d = len(a2) - len(a1)
    if d > 0:
        a1 = _pad_front(a1, d)
    elif d < 0:
        a2 = _pad_front(a2, -d)
    val = a1 + a2
    return poly1d(val) if truepoly else val


@follows_operands
def polysub(a1, a2):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = _1d(a1), _1d(a2)
    d = len(a2) - len(a1)
    if d > 0:
        a1 = _pad_front(a1, d)
    elif d < 0:
        a2 = _pad_front(a2, -d)
    val = a1 - a2
    return poly1d(val) if truepoly else val


@follows_operands
def polymul(a1, a2):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    val = convolve(poly1d(a1).coeffs, poly1d(a2).coeffs)
    return poly1d(val) if truepoly else val


@follows_operands
def polydiv(u, v):
    truepoly = isinstance(u, poly1d) or isinstance(v, poly1d)
    u = _1d(u) + 0.0
    v = _1d(v) + 0.0
    w = u[0] + v[0]
    m, n = len(u) - 1, len(v) - 1
    scale = 1.0 / v[0]
    q = zeros((max(m - n + 1, 1),), w.dtype, device=u.device)
    r = u.astype(w.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * v
    while r.shape[-1] > 1 and _np.allclose(asnumpy(r[0]), 0, rtol=1e-14):
        r = r[1:]
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


class poly1d:  # noqa: N801 - NumPy's name
    """numpy.poly1d over numfuse coefficients: arithmetic, evaluation, roots, derivatives,
    integrals; repr and str as NumPy's."""
    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable
            self._coeffs = c_or_r._coeffs
            if variable is not None:
                self._variable = variable
            return
        if isinstance(c_or_r, _np.poly1d):
            c_or_r = c_or_r.coeffs
        if r:
            c_or_r = poly(c_or_r)
        c_or_r = _1d(c_or_r)
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c_or_r = trim_zeros(c_or_r, trim="f")
        if len(c_or_r) == 0:
            c_or_r = zeros(1, dtype=c_or_r.dtype, device=c_or_r.device)
        self._coeffs = c_or_r
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self):
        return self._variable

    @property
    def order(self):
        return len(self._coeffs) - 1

    @property
    def roots(self):
        return roots(self._coeffs)

    r = roots
    c = coef = coefficients = coeffs
    o = order

    def __array__(self, t=None, copy=None):
        host = asnumpy(self.coeffs)
        return _np.asarray(host, t) if t else host

    def __repr__(self):
        return _np.poly1d(asnumpy(self.coeffs), variable=self._variable).__repr__()

    def __str__(self):
        return _np.poly1d(asnumpy(self.coeffs), variable=self._variable).__str__()

    def __len__(self):
        return self.order

    def __call__(self, val):
        return polyval(self.coeffs, val)

    def __neg__(self):
        return poly1d(-self.coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if _np.isscalar(other):
            return poly1d(self.coeffs * other)
        return poly1d(polymul(self.coeffs, poly1d(other).coeffs))

    def __rmul__(self, other):
        if _np.isscalar(other):
            return poly1d(other * self.coeffs)
        return poly1d(polymul(self.coeffs, poly1d(other).coeffs))

    def __add__(self, other):
        return poly1d(polyadd(self.coeffs, poly1d(other).coeffs))

    def __radd__(self, other):
        return poly1d(polyadd(self.coeffs, poly1d(other).coeffs))

    def __pow__(self, val):
        if not _np.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = asarray([1], device=self.coeffs.device)
        for _ in range(val):
            res = polymul(self.coeffs, res)
        return poly1d(res)

    def __sub__(self, other):
        return poly1d(polysub(self.coeffs, poly1d(other).coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(poly1d(other).coeffs, self.coeffs))

    def __truediv__(self, other):
        if _np.isscalar(other):
            return poly1d(self.coeffs / other)
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        if _np.isscalar(other):
            return poly1d(other / self.coeffs)
        return polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self.coeffs.shape != other.coeffs.shape:
            return False
        return bool((self.coeffs == other.coeffs).all())

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        ind = self.order - val
        if val > self.order or val < 0:
            return self.coeffs.dtype.type(0)
        return self.coeffs[ind]

    def __setitem__(self, key, val):
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            self._coeffs = _pad_front(self.coeffs, key - self.order)
            ind = 0
        self._coeffs[ind] = val

    def __iter__(self):
        return iter(self.coeffs)

    def integ(self, m=1, k=0):
        return poly1d(polyint(self.coeffs, m=m, k=k))

    def deriv(self, m=1):
        return poly1d(polyder(self.coeffs, m=m))
