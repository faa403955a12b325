"""The routes numfuse.linalg takes on CUDA by size, against NumPy: cholesky of a large matrix
goes through the lower triangle of a column-major copy (cuSOLVER's upper-triangle potrf is 2.6x
slower); svd of a real matrix at least 256 on its short side goes through cusolverDnXgesvdp (a
polar decomposition), falling back to gesvd for a matrix it had to perturb (rank-deficient); a
stack of real matrices up to 32 x 32 goes through one gesvdjBatched launch. The same cases run on
the CPU (LAPACK). Sizes sit just past the thresholds so the suite stays quick.
"""
import numpy
import pytest

from harness import numfuse_module, oracle


def _nf():
    return numfuse_module()


def _with_singular_values(rows, cols, values, seed):
    """A rows x cols float64 matrix with exactly the given singular values."""
    rng = numpy.random.default_rng(seed)
    q1, _ = numpy.linalg.qr(rng.standard_normal((rows, len(values))))
    q2, _ = numpy.linalg.qr(rng.standard_normal((cols, len(values))))
    return (q1 * values) @ q2.T


def _check_svd(a, device, full):
    nf = _nf()
    u, s, vh = (nf.asnumpy(x) for x in nf.linalg.svd(nf.asarray(a, device=device),
                                                        full_matrices=full))
    s_only = nf.asnumpy(nf.linalg.svd(nf.asarray(a, device=device), compute_uv=False))
    ref = numpy.linalg.svd(a, compute_uv=False)
    eps = float(numpy.finfo(a.dtype).eps)
    tol = 100 * eps * max(a.shape[-2:]) * float(numpy.max(ref, initial=1.0))
    assert s.dtype == ref.dtype and u.dtype == a.dtype and vh.dtype == a.dtype, (s.dtype, u.dtype)
    numpy.testing.assert_allclose(s, ref, rtol=0, atol=tol)
    numpy.testing.assert_allclose(s_only, ref, rtol=0, atol=tol)
    k = min(a.shape[-2:])
    m, n = a.shape[-2:]
    assert u.shape == a.shape[:-2] + ((m, m) if full else (m, k))
    assert vh.shape == a.shape[:-2] + ((n, n) if full else (k, n))
    numpy.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a,
                                  rtol=0, atol=10 * tol)
    for q in (u, numpy.conj(numpy.swapaxes(vh, -1, -2))):
        eye = numpy.eye(q.shape[-1])
        numpy.testing.assert_allclose(numpy.conj(numpy.swapaxes(q, -1, -2)) @ q,
                                      numpy.broadcast_to(eye, q.shape[:-2] + eye.shape),
                                      rtol=0, atol=100 * eps * max(a.shape[-2:]))


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", [(300, 300), (560, 270), (270, 560), (2, 260, 260)], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_svd_of_large_matrices(shape, dtype, full, device):
    a = numpy.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    _check_svd(a, device, full)


@pytest.mark.parametrize("shape", [(300, 300), (560, 270), (270, 560)], ids=str)
def test_svd_of_rank_deficient_large_matrices(shape, device):
    """Half the singular values zero: the polar SVD perturbs such a matrix (its answer was off by
    4e-10 for 1024^2 on the H100), so numfuse must answer as LAPACK does, to rounding."""
    k = min(shape)
    values = numpy.r_[numpy.linspace(2.0, 1.0, k // 2), numpy.zeros(k - k // 2)]
    _check_svd(_with_singular_values(*shape, values, seed=k), device, full=False)


def test_svd_of_ill_conditioned_large_matrix(device):
    values = numpy.logspace(0, -13, 280)
    _check_svd(_with_singular_values(280, 280, values, seed=3), device, full=True)


def test_svd_stack_with_one_rank_deficient_matrix(device):
    """One matrix of the stack falls back to gesvd, the other keeps the polar result."""
    good = numpy.random.default_rng(4).standard_normal((260, 260))
    bad = _with_singular_values(260, 260, numpy.r_[numpy.ones(130), numpy.zeros(130)], seed=5)
    _check_svd(numpy.stack([good, bad, good.T]), device, full=True)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", [(40, 8, 8), (3, 5, 3), (3, 3, 5), (6, 32, 32), (4, 32, 20),
                                   (4, 20, 32), (2, 3, 1, 1), (5, 2, 7)], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
def test_svd_of_small_stacks(shape, dtype, full, device):
    rng = numpy.random.default_rng(len(shape) + shape[-1])
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    _check_svd(a.astype(dtype), device, full)


def test_svd_of_small_stack_with_rank_deficient_members(device):
    rng = numpy.random.default_rng(9)
    a = rng.standard_normal((30, 6, 6))
    a[::3, :, 0] = a[::3, :, 1]  # every third matrix of rank 5
    a[1] = 0.0
    _check_svd(a, device, full=True)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_cholesky_of_large_matrices_reads_numpys_triangle(dtype, upper, device):
    """A 300x300 positive definite matrix whose other triangle holds garbage: NumPy reads one
    triangle only, and so must every route of numfuse (on CUDA: the lower-triangle potrf of a
    transposed copy for upper=False, of the bytes as they are for upper=True)."""
    rng = numpy.random.default_rng(7)
    n = 300
    x = rng.standard_normal((n, n))
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal((n, n))
    h = x @ x.conj().T + n * numpy.eye(n)
    garbage = numpy.triu(rng.standard_normal((n, n)) * 1e3, 1)
    a = (numpy.tril(h) + (garbage.T if upper else garbage)).astype(dtype)
    if upper:
        a = (numpy.triu(h) + garbage.T).astype(dtype)
    eps = float(numpy.finfo(numpy.dtype(dtype)).eps)

    @oracle(rtol=300 * eps * 10, atol=300 * eps * 100)
    def body(xp):
        return xp.linalg.cholesky(xp.asarray(a), upper=upper)
    body(device=device)


def test_cholesky_not_positive_definite_large(device):
    nf = _nf()
    a = numpy.eye(300)
    a[150, 150] = -1.0
    with pytest.raises(numpy.linalg.LinAlgError, match="not positive definite"):
        numpy.linalg.cholesky(a)
    with pytest.raises(nf.linalg.LinAlgError, match="not positive definite"):
        nf.asnumpy(nf.linalg.cholesky(nf.asarray(a, device=device)))
