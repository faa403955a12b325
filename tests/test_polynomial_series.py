"""numfuse.polynomial (numpy.polynomial's series over numfuse points) against NumPy: evaluation,
Vandermonde matrices and least-squares fits of the six kinds, as classes and module functions."""
import warnings

import numpy
import pytest

from harness import make_array, numfuse_module, oracle

nf = numfuse_module()

KINDS = [("polynomial", "poly", "Polynomial"), ("chebyshev", "cheb", "Chebyshev"),
         ("legendre", "leg", "Legendre"), ("laguerre", "lag", "Laguerre"),
         ("hermite", "herm", "Hermite"), ("hermite_e", "herme", "HermiteE")]
IDS = [k[2] for k in KINDS]
COEFS = [[2.0], [1.0, -2.0], [1.0, -2.0, 0.5, 0.25], [0.5, 0.0, -1.5, 2.0, 0.0, 1.0]]


def _points(dtype=numpy.float64, n=41):
    return numpy.linspace(-1.5, 2.0, n).astype(dtype)


@pytest.mark.parametrize("coef", COEFS, ids=len)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@oracle()
def test_series_evaluation(xp, kind, coef):
    mod, _, cls = kind
    x = xp.asarray(_points())
    p = getattr(xp.polynomial, cls)(coef, domain=[-2, 3])
    return p(x), p(x.reshape(41, 1)), p(1.25)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex128, numpy.int64], ids=str)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@oracle(rtol=1e-5)
def test_module_val_and_vander(xp, kind, dtype):
    mod, k, _ = kind
    m = getattr(xp.polynomial, mod)
    x = xp.asarray(_points(numpy.float64, 9).astype(dtype) if dtype != numpy.int64 else
                   numpy.arange(-4, 5, dtype=dtype))
    return getattr(m, k + "val")(x, COEFS[2]), getattr(m, k + "vander")(x, 4), \
        getattr(m, k + "vander")(x.reshape(3, 3), 2)


@pytest.mark.parametrize("deg", [0, 3, 6, [0, 2, 5]], ids=str)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@oracle(rtol=1e-7, atol=1e-9)
def test_fit_module_function(xp, kind, deg):
    mod, k, _ = kind
    x = xp.asarray(_points(n=60) / 2)
    y = xp.sin(3 * x) + 0.1 * x * x
    y2 = xp.stack([y, xp.cos(x)], axis=1)
    w = xp.asarray(numpy.linspace(0.5, 1.5, 60))
    fit = getattr(getattr(xp.polynomial, mod), k + "fit")
    c, (resid, rank, sv, rcond) = fit(x, y, deg, full=True)
    return xp.asarray(c), fit(x, y2, deg), fit(x, y, deg, w=w), rank, rcond


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@oracle(rtol=1e-7, atol=1e-9)
def test_class_fit(xp, kind):
    _, _, cls = kind
    x = xp.asarray(_points(n=80))
    y = xp.exp(x / 3)
    p = getattr(xp.polynomial, cls).fit(x, y, 4)
    q, status = getattr(xp.polynomial, cls).fit(x, y, 3, domain=[-2, 2], full=True)
    return p.coef, p.domain, p.window, p(x), q.coef, status[1]


@pytest.mark.parametrize("args", [(numpy.ones((2, 2)), numpy.ones(2), 1), (numpy.ones(3), numpy.ones(4), 1),
                                  (numpy.ones(3), numpy.ones(3), -1), (numpy.ones(3), numpy.ones(3), 1.5),
                                  (numpy.ones(0), numpy.ones(0), 1), (numpy.float64(1.0), numpy.ones(1), 1)],
                         ids=str)
@oracle()
def test_fit_errors(xp, args):
    x, y, deg = args
    return xp.polynomial.chebyshev.chebfit(xp.asarray(x), xp.asarray(y), deg)


@oracle(rtol=1e-9)
def test_fit_mixes_lists_and_arrays(xp):
    return xp.polynomial.chebyshev.chebfit([0.0, 1.0, 2.0, 3.5], xp.asarray([1.0, 2.0, 3.0, 3.0]), 2,
                                           w=[1.0, 2.0, 1.0, 0.5])


def test_rank_warning_and_classes(device):
    x = nf.ones(5, device=device)
    with pytest.warns(numpy.exceptions.RankWarning, match="poorly conditioned"):
        nf.polynomial.polynomial.polyfit(x, x, 3)
    p = nf.polynomial.Chebyshev([1.0, 2.0])
    assert isinstance(p, numpy.polynomial.Chebyshev)
    r = p + p * 2
    assert type(r) is nf.polynomial.Chebyshev
    numpy.testing.assert_allclose(r.coef, [3.0, 6.0])
    y = p(nf.asarray(make_array((7,), numpy.dtype(numpy.float64)), device=device))
    assert isinstance(y, nf.ndarray) and str(y.device).split(":")[0] == device  # "cuda:0"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nf.polynomial.polynomial.polyval(2.0, [1.0, -2.0, 0.5]) == pytest.approx(-1.0)
    for name in numpy.polynomial.__all__:
        assert hasattr(nf.polynomial, name)
