"""numfuse.linalg.eig and eigvals against NumPy on every device (CUDA: cusolverDnXgeev, or the
host's LAPACK where the loaded cuSOLVER lacks it): result dtypes (the installed NumPy's rule for
real input), eigenvalue multisets, A v = v w, unit eigenvectors, conjugate pairs of real input,
stacks, 1x1 and empty stacks, matrices with special spectra, and NumPy's exceptions. Eigenvalue
order and eigenvector phases are the library's own (LAPACK and cuSOLVER differ), so nothing here
compares them position by position. On CUDA, matrices under _GEEV_DEVICE_MIN_N normally go to the
host's LAPACK: every test here but the routing one sets it to 0, so that Xgeev runs at every size.
"""
import numpy
import pytest

from harness import numfuse_module, oracle

DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(autouse=True)
def _xgeev_at_every_size(request, monkeypatch):
    if "default_routing" not in request.node.name:
        monkeypatch.setattr(numfuse_module()._linalg_decomp, "_GEEV_DEVICE_MIN_N", 0)


def _rand(shape, dtype, seed):
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    if dt.kind in "iub":
        return rng.integers(0, 5, shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _tol(want_dtype, n, a):
    """Backward-stable eigenvalues are exact to about eps * n * |A| times their condition
    numbers (moderate for these random matrices): a thousand times that."""
    eps = float(numpy.finfo(want_dtype).eps)
    return 1000 * eps * max(n, 1) * max(float(numpy.abs(a).max(initial=0)), 1.0)


def _matched_distance(got, want):
    """The largest |got - want| over a greedy pairing of the two multisets (each wanted value
    takes the nearest got value not yet taken): order-free, and a missing or doubled eigenvalue
    shows."""
    got, want = numpy.asarray(got).ravel(), numpy.asarray(want).ravel()
    assert got.shape == want.shape
    d = numpy.abs(want[:, None].astype(complex) - got[None, :].astype(complex))
    worst = 0.0
    for i in range(want.size):
        j = int(numpy.argmin(d[i]))
        worst = max(worst, float(d[i, j]))
        d[:, j] = numpy.inf
    return worst


def _check(a, device):
    nf = numfuse_module()
    want = numpy.linalg.eigvals(a)
    x = nf.asarray(a, device=device)
    w, v = (nf.asnumpy(r) for r in nf.linalg.eig(x))
    wv = nf.asnumpy(nf.linalg.eigvals(x))
    assert w.dtype == want.dtype and v.dtype == want.dtype and wv.dtype == want.dtype, \
        (w.dtype, v.dtype, wv.dtype, want.dtype)
    n = a.shape[-1]
    assert w.shape == want.shape and wv.shape == want.shape and v.shape == a.shape
    tol = _tol(want.dtype, n, a)
    for idx in numpy.ndindex(a.shape[:-2]):
        assert _matched_distance(w[idx], want[idx]) <= tol, idx
        assert _matched_distance(wv[idx], want[idx]) <= tol, idx
    numpy.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=0, atol=tol)
    if a.size:
        numpy.testing.assert_allclose(numpy.linalg.norm(v, axis=-2), 1.0, rtol=0,
                                      atol=100 * n * float(numpy.finfo(want.dtype).eps))
    return w, v


@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 1, 1), (2, 2), (6, 6), (3, 7, 7), (40, 40),
                                   (130, 130), (2, 70, 70)], ids=str)
def test_eig_values_and_vectors(shape, dtype, device):
    _check(_rand(shape, dtype, sum(shape)), device)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 4, 4)], ids=str)
def test_eig_of_empty_stacks(shape, dtype, device):
    @oracle()
    def body(xp):
        a = xp.asarray(numpy.zeros(shape, dtype))
        w, v = xp.linalg.eig(a)
        return w, v, xp.linalg.eigvals(a)
    body(device=device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conjugate_pairs_of_real_input(dtype, device):
    """Real input: eigenvalues come in conjugate pairs and so do their vectors (the packed
    real pairs of geev unpacked with the right signs)."""
    a = _rand((3, 9, 9), dtype, 4)
    w, v = _check(a, device)
    for idx in numpy.ndindex(a.shape[:-2]):
        for j in numpy.flatnonzero(w[idx].imag != 0):
            k = int(numpy.argmin(numpy.abs(w[idx] - numpy.conj(w[idx][j]))))
            assert k != j
            # The partner's vector is the conjugate, up to the phase geev chose for it.
            p = numpy.vdot(numpy.conj(v[idx][:, j]), v[idx][:, k])
            assert abs(abs(p) - 1) < 1e-3 if dtype == "float32" else abs(abs(p) - 1) < 1e-9


def test_real_or_complex_results_follow_numpy(device):
    """Real input with only real eigenvalues: the installed NumPy's dtype (real up to NumPy 2.4,
    complex after); one matrix of the stack with a complex pair makes the whole stack complex."""
    sym = (lambda m: m + numpy.swapaxes(m, -1, -2))(_rand((2, 5, 5), "float64", 1))
    mixed = sym.copy()
    mixed[1] = _rand((5, 5), "float64", 2) - _rand((5, 5), "float64", 2).T  # skew: imaginary

    @oracle(rtol=1e-9, atol=1e-9)
    def body(xp):
        out = []
        for a in (sym, mixed, sym.astype(numpy.float32)):
            x = xp.asarray(a)
            w, v = xp.linalg.eig(x)
            out += [w.dtype.name, v.dtype.name, xp.linalg.eigvals(x).dtype.name]
        return tuple(out)
    body(device=device)
    _check(sym, device)
    _check(mixed, device)


@pytest.mark.parametrize("name", ["rotation", "jordan", "diagonal", "triangular", "zeros",
                                  "repeated", "identity"])
def test_special_spectra(name, device):
    rng = numpy.random.default_rng(7)
    a = {
        "rotation": numpy.array([[0.0, -1.0], [1.0, 0.0]]),
        "jordan": numpy.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]]),
        "diagonal": numpy.diag([3.0, -1.0, 0.5, 7.0]),
        "triangular": numpy.triu(rng.standard_normal((6, 6))),
        "zeros": numpy.zeros((4, 4)),
        "repeated": numpy.kron(numpy.eye(2), numpy.array([[1.0, 2.0], [-2.0, 1.0]])),
        "identity": numpy.eye(5),
    }[name]
    nf = numfuse_module()
    want = numpy.linalg.eigvals(a)
    w = nf.asnumpy(nf.linalg.eigvals(nf.asarray(a, device=device)))
    assert w.dtype == want.dtype
    # A Jordan block's eigenvalue is as ill-conditioned as eigenvalues get: eps^(1/3) apart.
    tol = 1e-4 if name == "jordan" else 1e-12
    assert _matched_distance(w, want) <= tol
    wg, v = (nf.asnumpy(r) for r in nf.linalg.eig(nf.asarray(a, device=device)))
    numpy.testing.assert_allclose(a @ v, v * wg[None, :], rtol=0, atol=1e-12)


def test_seeded_random_eig(device):
    """A seeded sweep over sizes, dtypes, stack shapes and scales (tiny and huge entries)."""
    rng = numpy.random.default_rng(2026)
    for case in range(24):
        dtype = DTYPES[case % 4]
        n = int(rng.integers(1, 24))
        stack = tuple(int(s) for s in rng.integers(1, 3, int(rng.integers(0, 2))))
        scale = 10.0 ** float(rng.integers(-20, 21))
        a = (_rand(stack + (n, n), dtype, case) * scale).astype(dtype)
        nf = numfuse_module()
        want = numpy.linalg.eigvals(a)
        x = nf.asarray(a, device=device)
        w, v = (nf.asnumpy(r) for r in nf.linalg.eig(x))
        assert w.dtype == want.dtype and v.shape == a.shape, case
        tol = _tol(want.dtype, n, a)
        for idx in numpy.ndindex(a.shape[:-2]):
            assert _matched_distance(w[idx], want[idx]) <= tol, (case, idx)
        numpy.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=0, atol=tol)


@pytest.mark.parametrize("bad", ["nan", "inf", "not_square", "one_dim"])
def test_eig_errors(bad, device):
    a = {
        "nan": numpy.array([[numpy.nan, 0.0], [0.0, 1.0]]),
        "inf": numpy.array([[[1.0, 0.0], [0.0, 1.0]], [[numpy.inf, 0.0], [0.0, 1.0]]]),
        "not_square": numpy.ones((2, 3)),
        "one_dim": numpy.ones(3),
    }[bad]

    @oracle()
    def eig(xp):
        return xp.linalg.eig(xp.asarray(a))
    eig(device=device)

    @oracle()
    def eigvals(xp):
        return xp.linalg.eigvals(xp.asarray(a))
    eigvals(device=device)


@pytest.mark.parametrize("shape", [(3, 3), (400, 400)], ids=str)
def test_eig_default_routing(shape, device):
    """The routes as shipped: a small matrix through the host's LAPACK, a large stack through
    Xgeev on CUDA; the same answers either way."""
    nf = numfuse_module()
    assert shape[-1] < nf._linalg_decomp._GEEV_DEVICE_MIN_N or shape[-1] >= 384
    w, v = _check(_rand(shape, "float64", 5), device)
    x = nf.asarray(_rand(shape, "float64", 5), device=device)
    assert nf.linalg.eig(x).eigenvectors.device == x.device
    assert nf.linalg.eigvals(x).device == x.device
