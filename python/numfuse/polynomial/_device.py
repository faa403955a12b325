"""What numpy.polynomial needs to run on numfuse arrays: the Vandermonde matrices, least-squares
fits, domain mapping and the classes' evaluation, with the series' coefficients on the host.

NumPy's evaluation functions (polyval, chebval ... Horner and Clenshaw in Python) already work on
numfuse points: the coefficients are host scalars and every step is a numfuse op, so p(x) is one
fused kernel. What converts points to the host in NumPy is np.array/np.asanyarray in the
Vandermonde functions, mapdomain, getdomain and _fit; these are rewritten here with NumPy's
recurrences, checks and messages, so a fit over numfuse data is built and solved on its device
(numfuse.linalg.lstsq) and only the small coefficient vector comes back to the host.
"""
import warnings

import numpy as _np
import numpy.polynomial.polyutils as _pu

from .. import _ufuncs as _u
from .._core import ndarray
from .._creation import asarray, zeros
from .._linalg_derived import lstsq
from .._reductions import sum as _sum
from .._shape import stack


def is_device(*values):
    return any(isinstance(v, ndarray) for v in values)


def _as_points(x):
    x = x if isinstance(x, ndarray) else asarray(x)
    x = x.reshape(1) if x.ndim == 0 else x
    return x + 0.0


# Each kind's forward recurrence, as NumPy's <kind>vander writes it: (v1(x), step(v_prev,
# v_prev2, x, i)) with the same operation order, so the columns equal NumPy's to rounding.
RECURRENCES = {
    "poly": (lambda x: x, lambda a, b, x, i: a * x),
    "cheb": (lambda x: x, lambda a, b, x, i: a * (2 * x) - b),
    "leg": (lambda x: x, lambda a, b, x, i: (a * x * (2 * i - 1) - b * (i - 1)) / i),
    "lag": (lambda x: 1 - x, lambda a, b, x, i: (a * (2 * i - 1 - x) - b * (i - 1)) / i),
    "herm": (lambda x: x * 2, lambda a, b, x, i: (a * (x * 2) - b * (2 * (i - 1)))),
    "herme": (lambda x: x, lambda a, b, x, i: (a * x - b * (i - 1))),
}


def vander(kind, x, deg):
    """<kind>vander(x, deg) over numfuse points: shape x.shape + (deg + 1,)."""
    ideg = _pu._as_int(deg, "deg")
    if ideg < 0:
        raise ValueError("deg must be non-negative")
    x = _as_points(x)
    first, step = RECURRENCES[kind]
    cols = [x * 0 + 1]
    if ideg > 0:
        cols.append(first(x))
        for i in range(2, ideg + 1):
            cols.append(step(cols[i - 1], cols[i - 2], x, i))
    return stack(cols, axis=-1)


def fit(vander_f, x, y, deg, rcond=None, full=False, w=None):
    """numpy.polynomial.polyutils._fit over numfuse arrays: the same checks, column scaling,
    rank warning and results; the coefficients are a numfuse array."""
    dev = next(v.device for v in (x, y, w) if isinstance(v, ndarray))  # lists join it there

    def on_dev(v):
        return v if isinstance(v, ndarray) else asarray(v, device=dev)

    x = on_dev(x) + 0.0
    y = on_dev(y) + 0.0
    deg = _np.asarray(deg)
    if deg.ndim > 1 or deg.dtype.kind not in "iu" or deg.size == 0:
        raise TypeError("deg must be an int or non-empty 1-D array of int")
    if deg.min() < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if len(x) != len(y):
        raise TypeError("expected x and y to have same length")
    if deg.ndim == 0:
        lmax = int(deg)
        order = lmax + 1
        van = vander_f(x, lmax)
    else:
        deg = _np.sort(deg)
        lmax = int(deg[-1])
        order = len(deg)
        van = vander_f(x, lmax)[:, asarray(deg, device=x.device)]
    lhs, rhs = van.T, y.T
    if w is not None:
        w = on_dev(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected 1D vector for w")
        if len(x) != len(w):
            raise TypeError("expected x and w to have same length")
        lhs = lhs * w
        rhs = rhs * w
    if rcond is None:
        rcond = len(x) * _np.finfo(x.dtype).eps
    if lhs.dtype.kind == "c":
        scl = _u.sqrt(_sum(_u.square(lhs.real) + _u.square(lhs.imag), axis=1))
    else:
        scl = _u.sqrt(_sum(_u.square(lhs), axis=1))
    scl = _u._where(scl == 0, 1.0, scl)
    c, resids, rank, s = lstsq(lhs.T / scl, rhs.T, rcond)
    c = (c.T / scl).T
    if deg.ndim > 0:
        cc = zeros((lmax + 1, c.shape[1]) if c.ndim == 2 else (lmax + 1,), dtype=c.dtype,
                   device=c.device)
        cc[asarray(deg, device=c.device)] = c
        c = cc
    if rank != order and not full:
        warnings.warn("The fit may be poorly conditioned", _np.exceptions.RankWarning,
                      stacklevel=3)
    if full:
        return c, [resids, rank, s, rcond]
    return c


def mapdomain(x, old, new):
    if not isinstance(x, ndarray):
        return _pu.mapdomain(x, old, new)
    off, scl = _pu.mapparms(old, new)
    return off + scl * x


def getdomain(x):
    """pu.getdomain of numfuse points: the extremes computed on the device, two host values."""
    if not isinstance(x, ndarray):
        return _pu.getdomain(x)
    x = x.ravel() if x.ndim != 1 else x
    if x.dtype.kind == "c":
        rmin, rmax = x.real.min(), x.real.max()
        imin, imax = x.imag.min(), x.imag.max()
        return _np.array((complex(float(rmin), float(imin)), complex(float(rmax), float(imax))))
    x = x + 0.0 if x.dtype.kind in "biu" else x
    return _np.array((x.min().item(), x.max().item()), dtype=_np.result_type(x.dtype, 1.0))


def series_class(np_class, fit_function):
    """numpy's series class with evaluation, fit and domain mapping that keep numfuse points on
    their device (the coefficients stay NumPy arrays: the class's algebra is NumPy's)."""

    class Series(np_class):
        _fit = staticmethod(fit_function)

        def __call__(self, arg):
            if isinstance(arg, ndarray):
                return self._val(mapdomain(arg, self.domain, self.window), self.coef)
            return super().__call__(arg)

        @classmethod
        def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None,
                symbol="x"):
            if not is_device(x, y, w):
                return super().fit(x, y, deg, domain, rcond, full, w, window, symbol)
            x = x if isinstance(x, ndarray) else asarray(x)
            if domain is None:
                domain = getdomain(x)
                if domain[0] == domain[1]:
                    domain[0] -= 1
                    domain[1] += 1
            elif isinstance(domain, list) and len(domain) == 0:
                domain = cls.domain
            if window is None:
                window = cls.window
            xnew = mapdomain(x, domain, window)
            res = cls._fit(xnew, y, deg, w=w, rcond=rcond, full=full)
            if full:
                coef, status = res
                return cls(coef, domain=domain, window=window, symbol=symbol), status
            return cls(res, domain=domain, window=window, symbol=symbol)

    Series.__name__ = Series.__qualname__ = np_class.__name__
    Series.__doc__ = np_class.__doc__
    return Series


def module_functions(kind, np_module):
    """The device-aware <kind>vander and <kind>fit of one series kind, named as NumPy's."""
    np_vander = getattr(np_module, kind + "vander")
    np_fit = getattr(np_module, kind + "fit")

    def vander_f(x, deg):
        return vander(kind, x, deg) if is_device(x) else np_vander(x, deg)

    def fit_f(x, y, deg, rcond=None, full=False, w=None):
        if not is_device(x, y, w):
            return np_fit(x, y, deg, rcond, full, w)
        return fit(vander_f, x, y, deg, rcond, full, w)

    vander_f.__name__, vander_f.__doc__ = np_vander.__name__, np_vander.__doc__
    fit_f.__name__, fit_f.__doc__ = np_fit.__name__, np_fit.__doc__
    return vander_f, fit_f
