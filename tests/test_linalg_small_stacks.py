"""Stacks of many small matrices (n = 1..16), the case CUDA runs through its one-thread-per-matrix
kernels (backend/cuda/small_linalg_cuda.h) and the CPU through LAPACK: inv, solve, det, slogdet,
cholesky and eigh against NumPy for every size the kernels pad differently, a singular (or not
positive definite) matrix inside a stack raising NumPy's LinAlgError, det of singular members 0,
and NaN members giving NaN without touching the others.
"""
import numpy
import pytest

from harness import numfuse_module, oracle

LAPACK_DTYPES = ["float32", "float64", "complex64", "complex128"]
SIZES = list(range(1, 17))
BATCH = 300  # more than one block of the kernels' 64 threads


def _tol(dtype, n):
    eps = float(numpy.finfo(numpy.dtype(dtype)).eps)
    return 300 * eps * n


def _rand(shape, dtype, seed, shift=0.0):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if shift:
        x = x + shift * numpy.eye(shape[-1])
    return x.astype(dtype)


def _hermitian(shape, dtype, seed):
    a = _rand(shape, dtype, seed)
    h = a @ numpy.conj(numpy.swapaxes(a, -1, -2)) + shape[-1] * numpy.eye(shape[-1])
    return h.astype(dtype)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_inv_solve_stack(n, dtype, device):
    a = _rand((BATCH, n, n), dtype, n, shift=n ** 0.5 * 2)
    b = _rand((BATCH, n, 3), dtype, n + 100)

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n))
    def body(xp):
        x = xp.asarray(a)
        return xp.linalg.inv(x), xp.linalg.solve(x, xp.asarray(b)), \
            xp.linalg.solve(x, xp.asarray(b[..., :1]))
    body(device=device)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_det_slogdet_stack(n, dtype, device):
    a = _rand((BATCH, n, n), dtype, 2 * n)
    a[7, :, n // 2] = 0  # an exactly singular member: det 0, sign 0, logdet -inf

    @oracle(rtol=_tol(dtype, n) * 10, atol=_tol(dtype, n))
    def body(xp):
        x = xp.asarray(a)
        sign, logdet = xp.linalg.slogdet(x)
        return xp.linalg.det(x), sign, logdet
    body(device=device)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 12, 16])
def test_cholesky_stack(n, dtype, upper, device):
    h = _hermitian((BATCH, n, n), dtype, 3 * n)

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n) * 10)
    def body(xp):
        return xp.linalg.cholesky(xp.asarray(h), upper=upper)
    body(device=device)


@pytest.mark.parametrize("UPLO", ["L", "U"])
@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 12, 16])
def test_eigh_stack(n, dtype, UPLO, device):
    h = _hermitian((BATCH, n, n), dtype, 4 * n)
    spoil = numpy.triu(numpy.ones((n, n)), 1) if UPLO == "L" else numpy.tril(numpy.ones((n, n)), -1)
    noisy = h + (5 * spoil).astype(h.dtype)  # the triangle not read
    scale = float(numpy.abs(h).max())

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n) * scale)
    def body(xp):
        x = xp.asarray(noisy)
        return xp.linalg.eigvalsh(x, UPLO=UPLO), xp.linalg.eigh(x, UPLO=UPLO).eigenvalues
    body(device=device)

    nf = numfuse_module()
    w, v = nf.linalg.eigh(nf.asarray(noisy, device=device), UPLO=UPLO)
    w, v = nf.asnumpy(w), nf.asnumpy(v)
    hd = h.astype(numpy.complex128)
    tol = _tol(dtype, n) * 10 * scale
    numpy.testing.assert_allclose(v @ (w[..., None] * numpy.conj(numpy.swapaxes(v, -1, -2))), hd, atol=tol)
    eye = numpy.broadcast_to(numpy.eye(n), v.shape)
    numpy.testing.assert_allclose(numpy.conj(numpy.swapaxes(v, -1, -2)) @ v, eye, atol=_tol(dtype, n) * 10)
    assert (numpy.diff(w, axis=-1) >= 0).all()


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [1, 3, 8, 11, 16])
@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_one_bad_member_raises_for_the_stack(name, n, dtype, device):
    nf = numfuse_module()
    if name == "cholesky":
        a = _hermitian((BATCH, n, n), dtype, 5)
        a[BATCH - 1, n - 1, n - 1] = -1  # not positive definite
        message = "Matrix is not positive definite"
    else:
        a = _rand((BATCH, n, n), dtype, 6, shift=3.0)
        a[BATCH // 2, :, n // 2] = 0  # exactly singular
        message = "Singular matrix"
    args = [a, _rand((BATCH, n, 2), dtype, 7)] if name == "solve" else [a]
    with pytest.raises(numpy.linalg.LinAlgError, match=f"^{message}$"):
        getattr(numpy.linalg, name)(*args)
    with pytest.raises(numpy.linalg.LinAlgError, match=f"^{message}$"):
        getattr(nf.linalg, name)(*[nf.asarray(x, device=device) for x in args])


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # NumPy's det of the NaN member
@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [2, 5, 8, 16])
def test_nan_member_stays_in_its_matrix(n, dtype, device):
    a = _rand((BATCH, n, n), dtype, 8, shift=3.0)
    a[3, 0, n - 1] = numpy.nan

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n))
    def body(xp):
        x = xp.asarray(a)
        return xp.linalg.inv(x)[:3], xp.linalg.inv(x)[4:], xp.linalg.det(x)
    body(device=device)
    nf = numfuse_module()
    got = nf.asnumpy(nf.linalg.inv(nf.asarray(a, device=device)))
    assert numpy.isnan(got[3]).any()


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [3, 8, 16])
def test_offset_view_stack(n, dtype, device):
    """A stack that starts one matrix into its buffer (3 x 3 float64: 72 bytes, not 16-byte
    aligned): the kernels' staging falls back from 16-byte words to single elements."""
    big = _rand((BATCH + 1, n, n), dtype, 9 * n, shift=n ** 0.5 * 2)
    rhs = _rand((BATCH + 1, n, 2), dtype, 9 * n + 1)

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n))
    def body(xp):
        x = xp.asarray(big)[1:]
        b = xp.asarray(rhs)[1:]
        return xp.linalg.inv(x), xp.linalg.solve(x, b), xp.linalg.det(x)
    body(device=device)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("n", [2, 4, 8, 12, 16])
def test_pivoting_stack(n, dtype, device):
    """Matrices that need row swaps: permutations (zero diagonal), permutations times scaled
    rows, and a tiny leading pivot; inv and det against NumPy (a wrong pivot or a swap applied to
    the wrong column shows as a permuted inverse or a wrong sign)."""
    rng = numpy.random.default_rng(n)
    a = numpy.zeros((BATCH, n, n))
    for i in range(BATCH):
        perm = rng.permutation(n)
        a[i, numpy.arange(n), perm] = rng.uniform(1, 4, n) * rng.choice([-1, 1], n)
        if i % 3 == 1:
            a[i] += 1e-3 * rng.standard_normal((n, n))
        if i % 3 == 2:
            a[i] = rng.standard_normal((n, n)) + 2 * n ** 0.5 * numpy.eye(n)  # well conditioned
            a[i, 0, 0] = 1e-12
    a = a.astype(dtype)

    @oracle(rtol=_tol(dtype, n) * 10, atol=_tol(dtype, n) * 10)
    def body(xp):
        x = xp.asarray(a)
        return xp.linalg.inv(x), xp.linalg.det(x)
    body(device=device)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("nrhs", [1, 16, 17, 40])
@pytest.mark.parametrize("n", [5, 12, 16])
def test_solve_right_hand_sides(n, nrhs, dtype, device):
    """Solve with up to 16 right-hand sides runs in the group kernel at 9..16 (a row of b a
    thread), more go to cuSOLVER; the one-thread kernel takes any number."""
    a = _rand((BATCH, n, n), dtype, 10 * n, shift=n ** 0.5 * 2)
    b = _rand((BATCH, n, nrhs), dtype, 10 * n + nrhs)

    @oracle(rtol=_tol(dtype, n), atol=_tol(dtype, n))
    def body(xp):
        return xp.linalg.solve(xp.asarray(a), xp.asarray(b))
    body(device=device)


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_failures_do_not_carry_into_the_next_call(name, device):
    """A failure is flagged per call (CUDA: a word each thread zeroes before its launch): good
    stacks after a failing one compute, failing ones after good ones raise, in any thread."""
    import threading

    nf = numfuse_module()
    n, dtype = 8, "float64"
    if name == "cholesky":
        good = _hermitian((BATCH, n, n), dtype, 11)
        bad = good.copy()
        bad[0, 2, 2] = -1  # the first block's first matrix
    else:
        good = _rand((BATCH, n, n), dtype, 12, shift=3.0)
        bad = good.copy()
        bad[BATCH - 1, 3] = 0  # the last block's last matrix: a zero row
    rhs = [_rand((BATCH, n, 1), dtype, 13)] if name == "solve" else []
    errors = []

    def rounds():
        try:
            for _ in range(3):
                with pytest.raises(numpy.linalg.LinAlgError):
                    getattr(nf.linalg, name)(*[nf.asarray(x, device=device) for x in [bad] + rhs])
                got = getattr(nf.linalg, name)(*[nf.asarray(x, device=device) for x in [good] + rhs])
                want = getattr(numpy.linalg, name)(good, *rhs)
                numpy.testing.assert_allclose(nf.asnumpy(got), want, rtol=1e-9, atol=1e-9)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    rounds()
    worker = threading.Thread(target=rounds)
    worker.start()
    worker.join()
    assert not errors, errors


@pytest.mark.parametrize("with_env", [False, True])
def test_inv_of_several_waves(with_env, device):
    """A stack of 120,000 8x8 float64 matrices: on a GPU more than one wave of the kernel's blocks
    (the H100 holds 50,688 of these matrices at once), where the first wave's later blocks wait
    before loading (the stagger, on by default for this case; with_env: the graded one every
    inv and solve kernel takes under NUMFUSE_SMALL_LINALG_STAGGER, in a fresh process). Equal to
    NumPy's; an exactly singular member raises, in the first wave's first and last blocks and in
    the last wave."""
    import os
    import subprocess
    import sys

    if with_env:
        env = dict(os.environ, NUMFUSE_SMALL_LINALG_STAGGER="g1500")
        r = subprocess.run([sys.executable, "-c", _SEVERAL_WAVES, device], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "ok" in r.stdout
        return
    exec(compile(_SEVERAL_WAVES, "<several waves>", "exec"), {"__name__": "several_waves",
                                                               "DEVICE": device})


_SEVERAL_WAVES = """
import sys
import numpy
import numfuse as nf
device = globals().get("DEVICE") or sys.argv[1]
rng = numpy.random.default_rng(21)
batch = 120_000
a = rng.standard_normal((batch, 8, 8)) + 3.0 * numpy.eye(8)
b = rng.standard_normal((batch, 8, 1))
x = nf.asarray(a, device=device)
numpy.testing.assert_allclose(nf.asnumpy(nf.linalg.inv(x)), numpy.linalg.inv(a), rtol=1e-9,
                              atol=1e-9)
numpy.testing.assert_allclose(nf.asnumpy(nf.linalg.solve(x, nf.asarray(b, device=device))),
                              numpy.linalg.solve(a, b), rtol=1e-9, atol=1e-9)
for m in (0, 50_000, batch - 1):
    bad = a.copy()
    bad[m, :, 5] = 0
    try:
        nf.linalg.inv(nf.asarray(bad, device=device))
        raise AssertionError(f"member {m}: no LinAlgError")
    except numpy.linalg.LinAlgError:
        pass
numpy.testing.assert_allclose(nf.asnumpy(nf.linalg.inv(x)), numpy.linalg.inv(a), rtol=1e-9,
                              atol=1e-9)
print("ok")
"""


@pytest.mark.parametrize("n", [3, 8])
def test_cond_of_stack_with_singular_members(n, device):
    """cond(x, 1) inverts without raising (NaN for a singular member, then inf): on CUDA the
    kernel's first run writes no info codes, and runs again writing them only when its failure
    word is set; the codes pick out exactly the singular members."""
    a = _rand((BATCH, n, n), "float64", 20 + n, shift=3.0)
    a[5, :, 0] = 0  # a zero column
    a[BATCH - 2, 1] = 0  # a zero row, in the last block

    @oracle(rtol=1e-8)
    def body(xp):
        return xp.linalg.cond(xp.asarray(a), 1)
    body(device=device)
    nf = numfuse_module()
    got = nf.asnumpy(nf.linalg.cond(nf.asarray(a, device=device), 1))
    bad = [5, BATCH - 2]
    assert numpy.isinf(got[bad]).all() and numpy.isfinite(numpy.delete(got, bad)).all()


_LOOP_ACROSS_THE_COMPILE = """
import sys, time, numpy, numfuse as nf
name, dtype, device, n, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), 5
eps = float(numpy.finfo(numpy.dtype(dtype)).eps)
tol = 300 * eps * n
rng = numpy.random.default_rng(7)
def sample():
    x = rng.standard_normal((batch, n, n))
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal((batch, n, n))
    if name == "eigh":
        x = x @ numpy.conj(numpy.swapaxes(x, -1, -2)) + n * numpy.eye(n)
    else:
        x = x + 3.0 * numpy.eye(n)
    return x.astype(dtype)
stats = nf._core.cuda.kernel_cache_stats if device != "cpu" else None
deadline, compiled_at = time.monotonic() + 120, None
for i in range(2000):
    a = sample()
    x = nf.asarray(a, device=device)
    if name == "eigh":
        w, v = nf.linalg.eigh(x)
        w, v = nf.asnumpy(w), nf.asnumpy(v)
        numpy.testing.assert_allclose(w, numpy.linalg.eigh(a)[0], rtol=tol, atol=tol)
        recon = (v * w[..., None, :]) @ numpy.conj(numpy.swapaxes(v, -1, -2))
        numpy.testing.assert_allclose(recon, a, rtol=10 * tol, atol=10 * tol)
    else:
        numpy.testing.assert_allclose(nf.asnumpy(nf.linalg.inv(x)), numpy.linalg.inv(a), rtol=tol, atol=tol)
        if i % 25 == 0:
            bad = a.copy()
            bad[batch - 1, :, 2] = 0
            try:
                nf.linalg.inv(nf.asarray(bad, device=device))
                raise AssertionError("a singular member did not raise")
            except numpy.linalg.LinAlgError:
                pass
    if stats is None:
        if i == 60:
            break
        continue
    if compiled_at is None and any("nf_small" in k for k in nf._core.cuda.loaded_kernel_names()):
        compiled_at = i
    if compiled_at is not None and i >= compiled_at + 20 or time.monotonic() > deadline:
        break
    time.sleep(0.02)  # the loop goes on while the compile runs
print("calls", i + 1, "kernel loaded at call", compiled_at)
assert stats is None or compiled_at is not None, "the kernel was never compiled"
"""


@pytest.mark.parametrize("name, dtype, n", [("inv", "float64", 3), ("eigh", "float64", 7),
                                            ("inv", "complex128", 7)])
def test_loop_of_small_calls_across_the_background_compile(name, dtype, n, device, tmp_path):
    """A loop of small stacks: a kernel that compiles fast (real inv) runs from the first call; a
    slow one (Jacobi 8x8, complex128 8x8) never stalls a call: cuSOLVER takes the calls while the
    kernel compiles on a thread of its own (from the loop's 32nd call), then the kernel does. In a fresh
    process with an empty kernel cache: every call equals NumPy's, before, during and after the
    switch; a singular member raises on either side of it; the kernel does get loaded."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMFUSE_CACHE_DIR=str(tmp_path / "kernels"))
    r = subprocess.run([sys.executable, "-c", _LOOP_ACROSS_THE_COMPILE, name, dtype, device, str(n)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "calls" in r.stdout
