"""numfuse.linalg's LAPACK functions against NumPy: values within LAPACK-grade tolerances, the
results' dtypes (float32 in, float32 out; ints and bools promoted to float64), stacks, empty
matrices, reconstruction of the decompositions whose signs and orders LAPACK may choose
differently (eigenvectors, singular vectors), and NumPy's exceptions and messages.

eig and eigvals have more cases in test_linalg_eig_device.py.
"""
import numpy
import pytest

from harness import numfuse_module, oracle, run_both

LAPACK_DTYPES = ["float32", "float64", "complex64", "complex128"]
PROMOTED = ["int64", "int32", "bool", "uint8"]
STACKS = [(3, 3), (1, 1), (4, 5, 5), (2, 3, 4, 4), (16, 16)]
EMPTY = [(0, 0), (3, 0, 0), (0, 4, 4)]

def _tol(dtype):
    """LAPACK-grade: a few hundred ulp of the result's precision (both sides compute in
    float64/complex128, as NumPy does, and round once)."""
    dt = numpy.dtype(dtype)
    if dt.kind not in "fc":
        dt = numpy.dtype(numpy.float64)
    return 300 * float(numpy.finfo(dt).eps)


def _rand(shape, dtype, seed=0, shift=0.0):
    """Seeded values of dtype; complex gets an imaginary part; `shift` adds shift*I to every
    matrix (well conditioned for inv/solve)."""
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        x = rng.integers(0, 2, shape).astype(bool)
        if shift and len(shape) >= 2 and shape[-1] == shape[-2]:
            x = x | numpy.eye(shape[-1], dtype=bool)
        return x
    if dt.kind in "iu":
        x = rng.integers(0, 5, shape).astype(dt)
    else:
        x = rng.standard_normal(shape)
        if dt.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        x = x.astype(dt)
    if shift and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + (shift * numpy.eye(shape[-1])).astype(dt)
    return x


def _hermitian(shape, dtype, seed=0, pd=True):
    a = _rand(shape, dtype, seed)
    if a.dtype.kind in "iub":
        a = a.astype(numpy.int64)
    h = a @ numpy.conj(numpy.swapaxes(a, -1, -2))
    if pd and len(shape) >= 2:
        h = h + shape[-1] * numpy.eye(shape[-1], dtype=h.dtype)
    return h.astype(dtype) if numpy.dtype(dtype).kind != "b" else h


def _nf():
    return numfuse_module()


# ---- inv, solve, det, slogdet ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", LAPACK_DTYPES + PROMOTED)
@pytest.mark.parametrize("shape", STACKS + EMPTY, ids=str)
def test_inv(shape, dtype, device):
    @oracle(rtol=_tol(dtype), atol=_tol(dtype))
    def body(xp):
        return xp.linalg.inv(xp.asarray(_rand(shape, dtype, 1, shift=4.0)))
    body(device=device)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + PROMOTED)
@pytest.mark.parametrize("sa,sb", [((3, 3), (3,)), ((3, 3), (3, 2)), ((4, 3, 3), (4, 3, 2)),
                                   ((4, 3, 3), (3, 2)), ((3, 3), (5, 3, 1)),
                                   ((2, 1, 3, 3), (4, 3, 2)), ((4, 3, 3), (3,)),
                                   ((0, 0), (0,)), ((3, 3), (3, 0)), ((0, 2, 2), (2, 1))],
                         ids=str)
def test_solve_broadcasting(sa, sb, dtype, device):
    @oracle(rtol=_tol(dtype), atol=_tol(dtype))
    def body(xp):
        a = xp.asarray(_rand(sa, dtype, 2, shift=4.0))
        b = xp.asarray(_rand(sb, dtype, 3))
        return xp.linalg.solve(a, b)
    body(device=device)


@pytest.mark.parametrize("sa,sb", [((3, 3), (2,)), ((3, 3), (2, 1)), ((2, 3, 3), (4, 3, 1)),
                                   ((3, 3), (2, 3))], ids=str)
def test_solve_bad_shapes(sa, sb, device):
    @oracle()
    def body(xp):
        return xp.linalg.solve(xp.asarray(_rand(sa, "float64", 0, 3.0)),
                               xp.asarray(_rand(sb, "float64", 1)))
    body(device=device)


@pytest.mark.parametrize("sa,sb", [((2, 2), ()), ((2, 2, 2), (3, 2, 1)), ((4, 3, 3), (2, 3, 5))],
                         ids=str)
def test_solve_error_messages(sa, sb):
    nf = _nf()
    with pytest.raises(ValueError) as e_np:
        numpy.linalg.solve(numpy.ones(sa), numpy.ones(sb))
    with pytest.raises(ValueError) as e_nf:
        nf.linalg.solve(nf.ones(sa), nf.ones(sb))
    assert str(e_nf.value) == str(e_np.value)


def test_solve_vector_only_when_1d(device):
    # NumPy 2: b of shape (2, 3) against a (2, 3, 3) is a stack of 3x3 @ x = (3, ?) -> error
    # unless b is (…, 3, k); (3,) is a vector.
    @oracle(rtol=1e-12, atol=1e-12)
    def body(xp):
        a = xp.asarray(_rand((2, 3, 3), "float64", 0, 3.0))
        return xp.linalg.solve(a, xp.asarray(_rand((3,), "float64", 1))).shape
    body(device=device)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + PROMOTED)
@pytest.mark.parametrize("shape", STACKS + EMPTY, ids=str)
def test_det_slogdet(shape, dtype, device):
    @oracle(rtol=_tol(dtype) * 10, atol=_tol(dtype))
    def body(xp):
        a = xp.asarray(_rand(shape, dtype, 4))
        sign, logdet = xp.linalg.slogdet(a)
        return xp.linalg.det(a), sign, logdet
    body(device=device)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64"])
def test_det_of_singular_is_zero(dtype, device):
    @oracle()
    def body(xp):
        a = numpy.ones((2, 3, 3), dtype=dtype)
        a[0] = numpy.eye(3, dtype=dtype)
        a = xp.asarray(a)
        return xp.linalg.det(a), tuple(xp.linalg.slogdet(a))  # harness: plain tuples
    body(device=device)


# ---- cholesky, qr ------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES + ["int64"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 5, 5), (1, 1)] + EMPTY, ids=str)
def test_cholesky(shape, dtype, upper, device):
    @oracle(rtol=_tol(dtype), atol=_tol(dtype) * 10)
    def body(xp):
        return xp.linalg.cholesky(xp.asarray(_hermitian(shape, dtype, 5)), upper=upper)
    body(device=device)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES + ["int32"])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (0, 3), (3, 0), (2, 0, 0)],
                         ids=str)
def test_qr(shape, dtype, mode, device):
    # Householder QR is deterministic: the same LAPACK gives the same signs, so values compare
    # directly; the reconstruction below checks what holds whatever the signs.
    @oracle(rtol=_tol(dtype), atol=_tol(dtype) * 10)
    def body(xp):
        res = xp.linalg.qr(xp.asarray(_rand(shape, dtype, 6)), mode=mode)
        return tuple(res) if isinstance(res, tuple) else res
    body(device=device)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (7, 3), (3, 7), (3, 6, 4)], ids=str)
def test_qr_reconstructs(shape, dtype, mode, device):
    nf = _nf()
    a = _rand(shape, dtype, 7)
    q, r = nf.linalg.qr(nf.asarray(a, device=device), mode=mode)
    q, r = nf.asnumpy(q), nf.asnumpy(r)
    tol = 100 * numpy.finfo(numpy.dtype(dtype)).eps * max(shape)
    numpy.testing.assert_allclose(q @ r, a, atol=tol * 10)
    eye = numpy.eye(q.shape[-1])
    numpy.testing.assert_allclose(numpy.conj(numpy.swapaxes(q, -1, -2)) @ q,
                                  numpy.broadcast_to(eye, q.shape[:-2] + eye.shape), atol=tol)
    assert numpy.allclose(numpy.tril(r, -1), 0)


# ---- eigenvalues -------------------------------------------------------------------------------

@pytest.mark.parametrize("UPLO", ["L", "U"])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES + ["int64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 6, 6), (1, 1), (20, 20)] + EMPTY, ids=str)
def test_eigh_values_and_reconstruction(shape, dtype, UPLO, device):
    h = _hermitian(shape, dtype, 8, pd=False)
    # Only the UPLO triangle is read: spoil the other one.
    n = shape[-1]
    spoil = numpy.triu(numpy.ones((n, n)), 1) if UPLO == "L" else numpy.tril(numpy.ones((n, n)), -1)
    noisy = (h + (7 * spoil).astype(h.dtype)) if h.size else h

    @oracle(rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10 * max(n, 1))
    def body(xp):
        a = xp.asarray(noisy)
        return xp.linalg.eigvalsh(a, UPLO=UPLO), xp.linalg.eigh(a, UPLO=UPLO).eigenvalues
    body(device=device)

    nf = _nf()
    w, v = nf.linalg.eigh(nf.asarray(noisy, device=device), UPLO=UPLO)
    w, v = nf.asnumpy(w), nf.asnumpy(v)
    rdt = numpy.dtype(numpy.float32 if dtype in ("float32", "complex64") else numpy.float64)
    assert w.dtype == rdt
    hd = h.astype(numpy.complex128)
    tol = 1000 * numpy.finfo(rdt).eps * max(n, 1) * (1 + numpy.abs(hd).max(initial=0))
    numpy.testing.assert_allclose(v @ (w[..., None] * numpy.conj(numpy.swapaxes(v, -1, -2))),
                                  hd, atol=tol)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES + ["int64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1)] + EMPTY, ids=str)
def test_eig(shape, dtype, device):
    nf = _nf()
    a = _rand(shape, dtype, 9)
    w_np = numpy.linalg.eigvals(a)
    w, v = nf.linalg.eig(nf.asarray(a, device=device))
    wv = nf.linalg.eigvals(nf.asarray(a, device=device))
    w, v, wv = nf.asnumpy(w), nf.asnumpy(v), nf.asnumpy(wv)
    assert w.dtype == w_np.dtype and v.dtype == w_np.dtype and wv.dtype == w_np.dtype
    tol = 1000 * numpy.finfo(w_np.dtype).eps * max(shape[-1], 1) * 4
    numpy.testing.assert_allclose(numpy.sort_complex(w), numpy.sort_complex(w_np), atol=tol)
    # eigvals may order the eigenvalues differently from eig (LAPACK's Schur form without
    # vectors converges differently): the same multiset.
    numpy.testing.assert_allclose(numpy.sort_complex(wv), numpy.sort_complex(w), atol=tol)
    numpy.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol)


def test_eig_real_results_when_all_real(device):
    @oracle(rtol=1e-10, atol=1e-12)
    def body(xp):
        a = xp.asarray(numpy.array([[2.0, 1.0], [1.0, 3.0]]))
        b = xp.asarray(numpy.array([[0.0, -1.0], [1.0, 0.0]]))
        return (xp.linalg.eigvals(a).dtype.name, xp.linalg.eigvals(b).dtype.name,
                xp.linalg.eig(a).eigenvectors.dtype.name)
    body(device=device)


# ---- SVD ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES + ["bool", "int32"])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (1, 1), (0, 3), (3, 0),
                                   (2, 0, 0)], ids=str)
def test_svd(shape, dtype, full, device):
    @oracle(rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)
    def body(xp):
        a = xp.asarray(_rand(shape, dtype, 10))
        u, s, vh = xp.linalg.svd(a, full_matrices=full)
        return (s, xp.linalg.svd(a, compute_uv=False), xp.linalg.svdvals(a), u.shape, u.dtype,
                vh.shape, vh.dtype)
    body(device=device)

    nf = _nf()
    a = _rand(shape, dtype, 10)
    u, s, vh = (nf.asnumpy(x) for x in nf.linalg.svd(nf.asarray(a, device=device),
                                                        full_matrices=full))
    k = min(shape[-2:])
    rdt = s.dtype
    tol = 1000 * numpy.finfo(rdt).eps * max(max(shape), 1)
    numpy.testing.assert_allclose(u[..., :, :k] * s[..., None, :] @ vh[..., :k, :],
                                  a.astype(u.dtype), atol=tol * 10)
    for q in (u, numpy.conj(numpy.swapaxes(vh, -1, -2))):
        eye = numpy.eye(q.shape[-1])
        numpy.testing.assert_allclose(numpy.conj(numpy.swapaxes(q, -1, -2)) @ q,
                                      numpy.broadcast_to(eye, q.shape[:-2] + eye.shape), atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_svd_hermitian(dtype, device):
    h = _hermitian((3, 5, 5), dtype, 11, pd=False) - 3 * numpy.eye(5, dtype=dtype)

    @oracle(rtol=_tol(dtype) * 10, atol=_tol(dtype) * 100)
    def body(xp):
        return xp.linalg.svd(xp.asarray(h), hermitian=True, compute_uv=False)
    body(device=device)
    nf = _nf()
    u, s, vh = (nf.asnumpy(x) for x in nf.linalg.svd(nf.asarray(h, device=device), hermitian=True))
    numpy.testing.assert_allclose(u * s[..., None, :] @ vh, h, atol=_tol(dtype) * 1000)


# ---- composed functions ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
@pytest.mark.parametrize("sa,sb", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 6), (3, 2)),
                                   ((4, 4), (4, 1)), ((5, 3), (5, 0)), ((0, 3), (0, 2))],
                         ids=str)
def test_lstsq(sa, sb, dtype, device):
    a, b = _rand(sa, dtype, 12), _rand(sb, dtype, 13)

    @oracle(rtol=_tol(dtype) * 100, atol=_tol(dtype) * 100)
    def body(xp):
        return xp.linalg.lstsq(xp.asarray(a), xp.asarray(b))
    body(device=device)


def test_lstsq_rank_deficient_and_rcond(device):
    a = numpy.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = numpy.array([1.0, 2.0, 2.0])

    @oracle(rtol=1e-10, atol=1e-12)
    def body(xp):
        return xp.linalg.lstsq(xp.asarray(a), xp.asarray(b)), xp.linalg.lstsq(
            xp.asarray(a + 1e-9 * numpy.eye(3, 2)), xp.asarray(b), rcond=1e-6)
    body(device=device)


@pytest.mark.parametrize("kw", [{}, {"rcond": 1e-3}, {"rtol": None}, {"rtol": 0.1},
                                {"hermitian": True}], ids=str)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 5), (0, 3)], ids=str)
def test_pinv(shape, kw, device):
    if kw.get("hermitian") and shape[-1] != shape[-2]:
        return
    a = _rand(shape, "float64", 14)
    if kw.get("hermitian"):
        a = a + numpy.swapaxes(a, -1, -2)

    @oracle(rtol=1e-10, atol=1e-10)
    def body(xp):
        return xp.linalg.pinv(xp.asarray(a), **kw)
    body(device=device)


@pytest.mark.parametrize("kw", [{}, {"tol": 0.5}, {"rtol": 0.3}, {"hermitian": True}], ids=str)
@pytest.mark.parametrize("a", [numpy.eye(4), numpy.ones((3, 5)), numpy.zeros((2, 3, 3)),
                               numpy.arange(12.0).reshape(2, 2, 3), numpy.array([0.0, 1.0]),
                               numpy.zeros(3), numpy.zeros((0, 3))], ids=lambda a: str(a.shape))
def test_matrix_rank(a, kw, device):
    if kw.get("hermitian") and (a.ndim < 2 or a.shape[-1] != a.shape[-2]):
        return

    @oracle()
    def body(xp):
        return xp.linalg.matrix_rank(xp.asarray(a), **kw)
    body(device=device)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex64"])
def test_matrix_power(n, dtype, device):
    if n < 0 and dtype == "int64":
        dtype = "float64"

    @oracle(rtol=_tol(dtype) * 100, atol=_tol(dtype))
    def body(xp):
        return xp.linalg.matrix_power(xp.asarray(_rand((2, 3, 3), dtype, 15, shift=2.0) / 2
                                                 if dtype != "int64" else
                                                 _rand((2, 3, 3), dtype, 15)), n)
    body(device=device)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, numpy.inf, -numpy.inf, "fro", "nuc"], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_cond(p, dtype, device):
    @oracle(rtol=_tol(dtype) * 100, atol=0)
    def body(xp):
        return xp.linalg.cond(xp.asarray(_rand((3, 4, 4), dtype, 16, shift=1.0)), p)
    body(device=device)


@pytest.mark.parametrize("p", [None, 1, numpy.inf, "fro"], ids=str)
def test_cond_singular_is_inf(p, device):
    if p is None:
        # Through singular values: a singular matrix's smallest is rounding noise (~1e-16), so the
        # condition number is huge but its value is the library's own (LAPACK's or cuSOLVER's).
        nf = numfuse_module()
        a = numpy.ones((2, 3, 3))
        a[1] = numpy.eye(3)
        got = nf.asnumpy(nf.linalg.cond(nf.asarray(a, device=device)))
        want = numpy.linalg.cond(a)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got[0] > 1e14 and want[0] > 1e14
        numpy.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        return

    @oracle()
    def body(xp):
        a = numpy.ones((2, 3, 3))
        a[1] = numpy.eye(3)
        return xp.linalg.cond(xp.asarray(a), p)
    body(device=device)


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4), (4, 5)], [(10, 100), (100, 5), (5, 50)],
                                    [(3,), (3, 4), (4, 2), (2, 6), (6,)],
                                    [(7, 2), (2, 30), (30, 3), (3, 9)], [(4,), (4, 2)]], ids=str)
def test_multi_dot(shapes, device):
    @oracle(rtol=1e-12, atol=1e-12)
    def body(xp):
        return xp.linalg.multi_dot([xp.asarray(_rand(s, "float64", i))
                                    for i, s in enumerate(shapes)])
    body(device=device)


def test_tensorinv_tensorsolve(device):
    @oracle(rtol=1e-9, atol=1e-9)
    def body(xp):
        a = xp.asarray(_rand((4, 6, 8, 3), "float64", 17) + 0.0)
        a = xp.asarray(numpy.eye(24).reshape(4, 6, 8, 3) * 3 + _rand((4, 6, 8, 3), "float64", 17))
        b = xp.asarray(_rand((4, 6), "float64", 18))
        return xp.linalg.tensorinv(a, ind=2), xp.linalg.tensorsolve(a, b)
    body(device=device)


@pytest.mark.parametrize("ord", [2, -2, "nuc"], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64", "int32"])
def test_norm_through_singular_values(ord, dtype, device):
    @oracle(rtol=_tol(dtype) * 10, atol=_tol(dtype))
    def body(xp):
        a = xp.asarray(_rand((3, 4, 5), dtype, 19))
        return (xp.linalg.norm(a[0], ord), xp.linalg.norm(a, ord, axis=(2, 0)),
                xp.linalg.norm(a, ord, axis=(1, 2), keepdims=True),
                xp.linalg.matrix_norm(a, ord=ord))
    body(device=device)


# ---- errors ------------------------------------------------------------------------------------

SQUARE_FUNCS = ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals"]


@pytest.mark.parametrize("name", SQUARE_FUNCS)
@pytest.mark.parametrize("shape", [(3,), (), (2, 3), (4, 2, 3)], ids=str)
def test_not_square_or_not_2d(name, shape, device):
    @oracle()
    def body(xp):
        return getattr(xp.linalg, name)(xp.asarray(numpy.ones(shape)))
    body(device=device)
    nf = _nf()
    with pytest.raises(numpy.linalg.LinAlgError) as e_nf:
        getattr(nf.linalg, name)(nf.asarray(numpy.ones(shape), device=device))
    with pytest.raises(numpy.linalg.LinAlgError) as e_np:
        getattr(numpy.linalg, name)(numpy.ones(shape))
    assert str(e_nf.value) == str(e_np.value)


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky", "det", "eigh", "svd", "qr"])
def test_float16_unsupported(name, device):
    @oracle()
    def body(xp):
        a = xp.asarray(numpy.eye(3, dtype=numpy.float16))
        return getattr(xp.linalg, name)(*([a, a] if name == "solve" else [a]))
    body(device=device)


@pytest.mark.parametrize("name,make,message", [
    ("inv", lambda: numpy.ones((3, 3)), "Singular matrix"),
    ("solve", lambda: numpy.zeros((2, 2)), "Singular matrix"),
    ("cholesky", lambda: -numpy.eye(3), "Matrix is not positive definite"),
    ("cholesky", lambda: numpy.array([[1.0, 2.0], [2.0, 1.0]]), "Matrix is not positive definite"),
])
def test_data_errors_raise_for_the_stack(name, make, message, device):
    bad = make()
    stack = numpy.stack([numpy.eye(bad.shape[0]) * 2, bad, numpy.eye(bad.shape[0])])
    nf = _nf()
    for a in (bad, stack):
        args = [a, numpy.ones(a.shape[:-1] + (1,))] if name == "solve" else [a]
        with pytest.raises(numpy.linalg.LinAlgError, match=f"^{message}$"):
            getattr(numpy.linalg, name)(*args)
        with pytest.raises(numpy.linalg.LinAlgError, match=f"^{message}$"):
            getattr(nf.linalg, name)(*[nf.asarray(x, device=device) for x in args])


def test_linalgerror_is_numpys():
    nf = _nf()
    assert nf.linalg.LinAlgError is numpy.linalg.LinAlgError
    assert issubclass(nf.linalg.LinAlgError, ValueError)
    with pytest.raises(numpy.linalg.LinAlgError):
        nf.linalg.inv(nf.zeros((2, 2)))


def test_bad_arguments(device):
    for fn in (lambda xp: xp.linalg.qr(xp.asarray(numpy.eye(2)), mode="bogus"),
               lambda xp: xp.linalg.eigh(xp.asarray(numpy.eye(2)), UPLO="X"),
               lambda xp: xp.linalg.matrix_power(xp.asarray(numpy.eye(2)), 1.5),
               lambda xp: xp.linalg.pinv(xp.asarray(numpy.eye(2)), rcond=0.1, rtol=0.1),
               lambda xp: xp.linalg.matrix_rank(xp.asarray(numpy.eye(2)), tol=1, rtol=1),
               lambda xp: xp.linalg.lstsq(xp.asarray(numpy.eye(3)), xp.asarray(numpy.ones(2))),
               lambda xp: xp.linalg.cond(xp.asarray(numpy.ones((0, 0)))),
               lambda xp: xp.linalg.multi_dot([xp.asarray(numpy.eye(2))]),
               lambda xp: xp.linalg.tensorinv(xp.asarray(numpy.ones((2, 3))), ind=0),
               lambda xp: xp.linalg.eigvals(xp.asarray(numpy.array([[numpy.nan, 0], [0, 1]])))):
        run_both(fn, device=device)


def test_inputs_are_not_modified(device):
    nf = _nf()
    a_np = _rand((3, 4, 4), "float64", 20, shift=3.0)
    a = nf.asarray(a_np, device=device)
    for fn in (nf.linalg.inv, nf.linalg.det, nf.linalg.cholesky, nf.linalg.qr, nf.linalg.svd):
        try:
            fn(a @ nf.swapaxes(a, -1, -2) if fn is nf.linalg.cholesky else a)
        except NotImplementedError:
            pass
        numpy.testing.assert_array_equal(nf.asnumpy(a), a_np)


def test_pending_and_strided_inputs(device):
    # A lazy input (a fused expression), a transposed view and a broadcast view.
    @oracle(rtol=1e-12, atol=1e-12)
    def body(xp):
        a = xp.asarray(_rand((4, 4), "float64", 21, shift=3.0))
        b = xp.asarray(_rand((3, 4), "float64", 22))
        return (xp.linalg.inv(a * 2 + 1), xp.linalg.inv(a.T), xp.linalg.solve(a, b.T),
                xp.linalg.det(xp.broadcast_to(a, (3, 4, 4))), xp.linalg.inv(a[::-1, ::2][:2, :2]))
    body(device=device)


# ---- a seeded property test over layouts -------------------------------------------------------

def _layout(xp, a, kind):
    """a as a view of another layout: transposed storage, reversed rows, every other column."""
    if kind == "T":
        return xp.swapaxes(xp.asarray(numpy.ascontiguousarray(numpy.swapaxes(a, -1, -2))), -1, -2)
    if kind == "rev":
        return xp.asarray(numpy.ascontiguousarray(a[..., ::-1, :]))[..., ::-1, :]
    if kind == "step":
        wide = numpy.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return xp.asarray(wide)[..., ::2]
    return xp.asarray(a)


@pytest.mark.parametrize("seed", range(12))
def test_random_layouts_and_stacks(seed, device):
    """Any strides, batch shape and LAPACK dtype: the same values as NumPy from the same data."""
    rng = numpy.random.default_rng(100 + seed)
    dtype = LAPACK_DTYPES[seed % 4]
    batch = tuple(int(x) for x in rng.integers(1, 4, rng.integers(0, 3)))
    n = int(rng.integers(1, 9))
    kind = ["C", "T", "rev", "step"][seed % 4]
    a = _rand(batch + (n, n), dtype, seed, shift=3.0)
    h = _hermitian(batch + (n, n), dtype, seed + 1)
    b = _rand(batch + (n, 2), dtype, seed + 2)
    tol = _tol(dtype) * 100

    @oracle(rtol=tol, atol=tol)
    def body(xp):
        A, H, B = _layout(xp, a, kind), _layout(xp, h, kind), _layout(xp, b, kind)
        return (xp.linalg.inv(A), xp.linalg.solve(A, B), xp.linalg.det(A),
                xp.linalg.cholesky(H), xp.linalg.eigvalsh(H), xp.linalg.svd(A, compute_uv=False),
                tuple(xp.linalg.qr(A)))
    body(device=device)
