"""Arrays on the GPU: devices, transfers, elementwise kernels (fused and alone), creation on the
device, writes through views, and the kernel cache's reuse of one structure.

Tests marked `gpu` skip cleanly without a GPU; the others check the no-GPU behaviour (import
works, the CPU is the default, asking for CUDA raises a clear error).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import harness
from harness import ALL_DTYPES, VIEWS, compare, make_array

nf = harness.numfuse_module()
if nf is None:
    pytest.skip("numfuse is not importable", allow_module_level=True)

HAVE_GPU = harness.cuda_available(nf)
gpu = pytest.mark.skipif(not HAVE_GPU, reason="numfuse.cuda.is_available() is False")


def on_gpu(x):
    return nf.asarray(x, device="cuda")


def check(expected, got, ulps=None):
    """got (a device array) equals expected; within `ulps` of the RESULT's dtype when given.

    With `ulps` (transcendental functions: CUDA's math library and NumPy's differ by an ulp or
    two), the tolerance is also absolute, scaled by the largest result: a sum like sin(x)+cos(x)
    cancels near zero, where one ulp of each term is many ulps of the result."""
    assert got.device.startswith("cuda"), got.device
    expected = np.asarray(expected)
    rtol = None if ulps is None else harness.default_rtol(expected.dtype, ulps)
    atol = 0.0
    finite = np.abs(expected[np.isfinite(expected)]) if expected.dtype.kind in "fc" else None
    if ulps is not None and finite is not None and finite.size:
        atol = rtol * float(np.max(finite))
    compare(expected, nf.asnumpy(got), rtol=rtol, atol=atol)


# ---- devices without a GPU ---------------------------------------------------------------------

def _run_python(code, **env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)


def test_default_device_follows_availability():
    assert nf._core.default_device() == ("cuda:0" if HAVE_GPU else "cpu")
    assert nf.zeros(3).device == nf._core.default_device()


def test_numfuse_device_cpu_overrides():
    r = _run_python("import numfuse as n; print(n._core.default_device(), n.ones(2).device)", NUMFUSE_DEVICE="cpu")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu", "cpu"]


def test_numfuse_device_missing_gpu_raises_at_first_use():
    code = ("import numfuse as n\n"
            "try:\n    n.zeros(2)\nexcept ValueError as e:\n    print('ValueError', e)\n")
    r = _run_python(code, NUMFUSE_DEVICE="cuda:7")
    assert r.returncode == 0, r.stderr  # import itself works
    assert r.stdout.startswith("ValueError") and "NUMFUSE_DEVICE=cuda:7" in r.stdout, r.stdout


@pytest.mark.skipif(HAVE_GPU, reason="checks the behaviour without a GPU")
def test_asking_for_cuda_without_gpu_raises_cudaerror():
    with pytest.raises(nf.cuda.CUDAError):
        nf.asarray([1, 2], device="cuda")
    with pytest.raises(nf.cuda.CUDAError):
        nf.zeros(3, device="cuda")


# ---- transfers ---------------------------------------------------------------------------------

@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("view", [v[0] for v in VIEWS])
def test_round_trip_views(dtype, view):
    _, base_shape, fn = next(v for v in VIEWS if v[0] == view)
    base = make_array(base_shape, dtype, seed=3)
    # A NumPy view sent to the device, and a device view brought back.
    a = on_gpu(fn(base))
    assert a.device == "cuda:0" and a.dtype == dtype
    compare(fn(base), nf.asnumpy(a))
    d = fn(on_gpu(base))
    compare(fn(base), nf.asnumpy(d))
    compare(fn(base), np.asarray(d))
    compare(fn(base), d.get())
    assert d.tolist() == fn(base).tolist()


@gpu
def test_to_device_and_back():
    h = np.arange(12.0).reshape(3, 4)
    a = nf.asarray(h, device="cpu")
    g = a.to_device("cuda")
    assert g.device == "cuda:0"
    c = g.T.to_device("cpu")
    assert c.device == "cpu"
    compare(h.T, nf.asnumpy(c))
    assert nf.asarray(g, device="cpu").device == "cpu"
    assert nf.asarray(a, device="cuda:0").device == "cuda:0"
    same = g.to_device("cuda")  # no copy: the same storage under a new Python object
    assert same.device == "cuda:0" and same._pending is False
    assert "5." in repr(g) and "11." in str(g)
    assert float(g[1, 1]) == 5.0 and int(g[2, 3]) == 11 and bool(g[0, 1])


@gpu
def test_mixed_devices_raise_value_error_naming_both():
    a = nf.ones(3, device="cuda")
    b = nf.ones(3, device="cpu")
    with pytest.raises(ValueError, match="cuda:0.*cpu|cpu.*cuda:0"):
        a + b
    with pytest.raises(ValueError, match="cuda:0.*cpu|cpu.*cuda:0"):
        b[...] = a
    # Python and NumPy scalars are parameters on any device.
    check(np.ones(3) * 2 + np.float32(1), a * 2 + np.float32(1))


# ---- elementwise -------------------------------------------------------------------------------

BINARY = ["add", "subtract", "multiply", "true_divide", "maximum", "minimum", "equal", "less",
          "arctan2", "floor_divide", "remainder", "power", "bitwise_and", "logical_xor", "hypot"]
UNARY = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "sign",
         "square", "isnan", "logical_not", "invert", "reciprocal", "cbrt", "expm1", "arcsinh"]


def _supported(name, dtypes):
    try:
        getattr(np, name)(*[np.ones(1, d) for d in dtypes])
        return True
    except TypeError:
        return False


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs(name, dtype):
    if not _supported(name, [dtype, dtype]):
        pytest.skip("NumPy has no loop")
    x = make_array((5, 7), dtype, seed=1, low=1 if name in ("power",) else None)
    y = make_array((7,), dtype, seed=2, low=1, high=4) if dtype.kind != "b" else make_array((7,), dtype, 2)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x, y)
    # The device's libm (libdevice) is not glibc's: a few ulp apart, more for complex power.
    check(expected, getattr(nf, name)(on_gpu(x), on_gpu(y)), ulps=16 if name == "power" else 8)


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs(name, dtype):
    if not _supported(name, [dtype]):
        pytest.skip("NumPy has no loop")
    x = make_array((3, 11), dtype, seed=4)[:, ::-2]
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x)
    check(expected, getattr(nf, name)(on_gpu(make_array((3, 11), dtype, seed=4))[:, ::-2]), ulps=8)


@gpu
@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.int8, np.uint16, np.int64, np.float16,
                                                         np.float32, np.complex64)], ids=str)
def test_weak_scalars(dtype):
    x = make_array((9,), dtype, seed=5, low=1)
    a = on_gpu(x)
    for e, g in [(x + 3, a + 3), (2 * x, 2 * a), (x - 1, a - 1), (x * 2.5, a * 2.5),
                 (x / 2, a / 2), (x ** 2, a ** 2), (x > 2, a > 2)]:
        check(e, g)
    assert (a + 3).dtype == dtype


@gpu
@pytest.mark.parametrize("shapes", harness.BROADCAST_PAIRS, ids=str)
def test_broadcasting(shapes):
    x = make_array(shapes[0], np.float32, 1)
    y = make_array(shapes[1], np.float64, 2)
    check(x * y - y, on_gpu(x) * on_gpu(y) - on_gpu(y))


@gpu
def test_float16_and_complex_chains():
    h = make_array((1001,), np.float16, 1)
    check(h * h + np.float16(1.5) * h, on_gpu(h) * on_gpu(h) + np.float16(1.5) * on_gpu(h))
    z = make_array((37,), np.complex128, 2)
    check(np.exp(z) * z.conj() + 1j, nf.exp(on_gpu(z)) * on_gpu(z).conj() + 1j, ulps=8)
    w = make_array((37,), np.complex64, 3)
    # |w| is a hypot: not correctly rounded on either side.
    check(np.abs(w) + w.real, nf.abs(on_gpu(w)) + on_gpu(w).real, ulps=4)


@gpu
def test_fused_chain_and_big_sizes():
    for n in (1, 3, 4, 5, 1023, 1 << 20, (1 << 20) + 3):
        x, y, z = (make_array((n,), np.float32, s) for s in (1, 2, 3))
        y = np.abs(y)
        gx, gy, gz = on_gpu(x), on_gpu(y), on_gpu(z)
        check(x * y + z * x - np.sqrt(y) * 2, gx * gy + gz * gx - nf.sqrt(gy) * 2)
        check(np.sin(x) + np.cos(x), nf.sin(gx) + nf.cos(gx), ulps=8)
    # Misaligned starts fall back to scalar loads.
    check(x[1:] + z[:-1], gx[1:] + gz[:-1])


@gpu
def test_stencil_writes_into_views():
    a = make_array((66, 67), np.float64, 4)
    b = a.copy()
    g = on_gpu(a)
    gb = on_gpu(b)
    for _ in range(3):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        gb[1:-1, 1:-1] = 0.25 * (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
        a, b = b, a
        g, gb = gb, g
    check(a, g)
    check(b, gb)
    # In place, overlapping: NumPy computes the right side first.
    c = make_array((50,), np.float32, 5)
    gc = on_gpu(c)
    c[1:] = c[:-1] + 1
    gc[1:] = gc[:-1] + 1
    check(c, gc)


@gpu
def test_inplace_and_out():
    x = make_array((6, 8), np.int32, 6)
    g = on_gpu(x)
    x += 3
    g += 3
    x[::2, ::-3] *= 2
    g[::2, ::-3] *= 2
    check(x, g)
    out = nf.empty((6, 8), np.float64, device="cuda")
    nf.multiply(g, 0.5, out=out)
    check(x * 0.5, out)
    g[...] = 7
    x[...] = 7
    check(x, g)
    g[1] = np.arange(8)
    x[1] = np.arange(8)
    check(x, g)
    g.fill(2)
    check(np.full((6, 8), 2, np.int32), g)


@gpu
@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_astype_every_pair(src):
    x = make_array((4, 9), src, 7)[:, ::2]
    g = on_gpu(make_array((4, 9), src, 7))[:, ::2]
    for dst in ALL_DTYPES:
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = x.astype(dst)
        check(e, g.astype(dst))


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_creation_on_device(dtype):
    check(np.zeros((3, 4), dtype), nf.zeros((3, 4), dtype, device="cuda"))
    check(np.ones((5,), dtype), nf.ones((5,), dtype, device="cuda"))
    check(np.full((2, 3), 1, dtype), nf.full((2, 3), 1, dtype, device="cuda"))
    check(np.eye(4, 5, 1, dtype=dtype), nf.eye(4, 5, 1, dtype=dtype, device="cuda"))
    if dtype.kind != "b":
        check(np.arange(3, 40, 3, dtype=dtype), nf.arange(3, 40, 3, dtype=dtype, device="cuda"))
    assert nf.empty((2,), dtype, device="cuda").device == "cuda:0"


@gpu
def test_linspace_and_like_on_device():
    check(np.linspace(0, 1, 11), nf.linspace(0, 1, 11, device="cuda"))
    g = on_gpu(np.ones((2, 2), np.float32))
    assert nf.zeros_like(g).device == "cuda:0"
    check(np.full((2, 2), 3, np.float32), nf.full_like(g, 3))


@gpu
def test_empty_and_zero_d():
    e = on_gpu(np.ones((0, 3)))
    check(np.ones((0, 3)) + 1, e + 1)
    s = on_gpu(np.float64(2.5))
    assert s.shape == () and s.device == "cuda:0"
    check(np.float64(2.5) * 2, s * 2)
    assert float(s * 2) == 5.0


@gpu
def test_kernel_cache_reuses_structure():
    a, b = on_gpu(np.ones(100, np.float32)), on_gpu(np.ones(100, np.float32))
    nf.asnumpy(a * 2.0 + b)  # compiles (or loads) the kernel
    before = nf.cuda.kernel_cache_stats()["compilations"]
    for n, k in ((37, 3.0), (1000, -1.5), (12345, 0.25)):
        c, d = on_gpu(np.ones(n, np.float32)), on_gpu(np.ones(n, np.float32))
        check(np.ones(n, np.float32) * np.float32(k) + 1, c * k + d)
    assert nf.cuda.kernel_cache_stats()["compilations"] == before


@gpu
def test_streams_order_writes_and_reads():
    x = on_gpu(np.arange(1 << 20, dtype=np.float32))
    s = nf.cuda.Stream(non_blocking=True)
    with s:
        y = x * 2
        nf.eval(y)
    z = y + 1  # on the null stream: must see y complete
    check(np.arange(1 << 20, dtype=np.float32) * 2 + 1, z)


@gpu
def test_explain_shows_the_generated_kernel():
    x = nf.asarray(np.ones((100, 10)), device="cuda")
    text = nf.explain(nf.sum(x * x, axis=1))
    assert "CUDA kernel" in text and "nf_reduce_main" in text and "nf::sop::Multiply" in text
