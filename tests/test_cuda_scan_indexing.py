"""Scans and advanced indexing on the GPU, where the oracle suites' small arrays do not reach:
long lines (block-scanned tiles, their carries across more tiles than a block holds), float16's
in-order scan, many repeated indices in one assignment (the last value wins), host index data
used with device arrays, device bounds errors, and shapes that must not compile new kernels.

Every test skips without a GPU; the same behaviour on the CPU is covered by the oracle suites.
"""
import numpy as np
import pytest

import harness
from harness import compare

nf = harness.numfuse_module()
if nf is None:
    pytest.skip("numfuse is not importable", allow_module_level=True)

pytestmark = pytest.mark.skipif(not harness.cuda_available(nf), reason="numfuse.cuda.is_available() is False")


def on_gpu(x):
    return nf.asarray(x, device="cuda")


def check(expected, got, rtol=None):
    """got (a device array) equals expected: exactly for integers; for floats within rtol of the
    largest magnitude (a parallel scan associates differently from NumPy's running sum)."""
    assert got.device.startswith("cuda"), got.device
    expected = np.asarray(expected)
    atol = 0.0
    if rtol is not None and expected.size:
        atol = rtol * float(np.max(np.abs(expected)))
    compare(expected, nf.asnumpy(got), rtol=rtol, atol=atol)


# ---- scans ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2048, 2049, 5 * 2048 + 3, 3_000_011])
def test_cumsum_long_line_is_exact_for_integers(n):
    x = np.random.default_rng(n).integers(-1000, 1000, n, dtype=np.int64)
    check(np.cumsum(x), nf.cumsum(on_gpu(x)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_cumsum_long_line_floats(dtype):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, 200_003).astype(dtype)
    # NumPy's running float32 sum drifts by a few units at 2e5 (an ulp there is 1/64).
    check(np.cumsum(x), nf.cumsum(on_gpu(x)), rtol=1e-4 if dtype != "float64" else 1e-12)


def test_float16_scans_in_numpy_order():
    # NumPy's running float16 sum stops growing at 2048 (+1 rounds away): a parallel sum would not.
    x = np.ones(5000, np.float16)
    check(np.cumsum(x), nf.cumsum(on_gpu(x)))
    y = np.random.default_rng(2).uniform(0.9, 1.1, (3, 4000)).astype(np.float16)
    check(np.cumprod(y, axis=1), nf.cumprod(on_gpu(y), axis=1))


@pytest.mark.parametrize("shape,axis", [((3000, 5), 0), ((5, 3000), 1), ((4, 2500, 3), 1), ((700, 3000), 0)])
def test_cumsum_axes_and_strided_inputs(shape, axis):
    x = np.random.default_rng(3).integers(-5, 5, shape).astype(np.int32)
    g = on_gpu(x)
    check(np.cumsum(x, axis=axis), nf.cumsum(g, axis=axis))
    rev = (slice(None, None, -1),) * x.ndim
    check(np.cumsum(x[rev], axis=axis), nf.cumsum(g[rev], axis=axis))
    check(np.cumprod(x.T % 3 - 1, axis=0), nf.cumprod(g.T % 3 - 1, axis=0))


def test_cumsum_empty_zero_d_and_bool():
    check(np.cumsum(np.zeros((0, 4))), nf.cumsum(on_gpu(np.zeros((0, 4))), axis=None))
    check(np.cumsum(np.float32(3)), nf.cumsum(on_gpu(np.float32(3))))
    m = np.random.default_rng(4).random((50, 70)) > 0.5
    check(np.cumsum(m, axis=1), nf.cumsum(on_gpu(m), axis=1))
    check(np.cumsum(m, axis=0, dtype=bool), nf.cumsum(on_gpu(m), axis=0, dtype=bool))


def test_scan_kernels_do_not_grow_per_shape():
    nf.asnumpy(nf.cumsum(on_gpu(np.ones((7, 9), np.float32)), axis=1))
    nf.asnumpy(nf.cumsum(on_gpu(np.ones((4, 5000), np.float32)), axis=1))
    before = nf.cuda.kernel_cache_stats()["compilations"]
    for shape in ((3, 11), (100, 3), (9, 7000), (2, 20000)):
        x = np.ones(shape, np.float32)
        check(np.cumsum(x, axis=1), nf.cumsum(on_gpu(x), axis=1))
    assert nf.cuda.kernel_cache_stats()["compilations"] == before


# ---- advanced indexing -----------------------------------------------------------------------------

def test_repeated_indices_last_value_wins():
    rng = np.random.default_rng(5)
    idx = rng.integers(-50, 50, 200_000)
    vals = rng.standard_normal(200_000)
    a = np.zeros(50)
    g = on_gpu(a)
    a[idx] = vals
    g[idx] = vals
    check(a, g)
    m = np.zeros((6, 7, 3), np.int16)
    gm = on_gpu(m)
    i, j = rng.integers(0, 6, (40, 5)), rng.integers(-7, 7, (1, 5))
    v = rng.integers(-100, 100, (40, 5, 3)).astype(np.int16)
    m[i, j] = v
    gm[i, j] = v
    check(m, gm)


def test_host_index_data_goes_to_the_device():
    x = np.arange(60.0).reshape(3, 4, 5)
    g = on_gpu(x)
    idx = np.array([[2, 0], [-1, 1]])
    check(x[:, idx], g[:, idx])
    check(x[[0, 2], :, [1, -1]], g[[0, 2], :, [1, -1]])
    mask = x[0] > 7
    check(x[:, mask], g[:, mask])
    check(x[True], g[True])
    check(nf.take(on_gpu(x), [3, 1], axis=1), g[:, [3, 1]])


def test_device_masks_and_nonzero():
    rng = np.random.default_rng(6)
    x = rng.integers(-2, 3, (30, 40, 5))
    g = on_gpu(x)
    for want, got in zip(np.nonzero(x), nf.nonzero(g)):
        check(want, got)
    assert nf.count_nonzero(g) == np.count_nonzero(x)
    check(x[x > 0], g[g > 0])
    check(np.flatnonzero(x), nf.flatnonzero(g))
    for want, got in zip(np.nonzero(np.zeros((3, 0))), nf.nonzero(on_gpu(np.zeros((3, 0))))):
        check(want, got)
    y = x.copy()
    gy = on_gpu(y)
    y[y < 0] = np.arange(np.count_nonzero(y < 0))
    gy[gy < 0] = nf.arange(int(nf.count_nonzero(gy < 0)), device="cuda")
    check(y, gy)


def test_device_bounds_errors_name_the_first_bad_index():
    g = on_gpu(np.arange(10))
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 10"):
        g[on_gpu(np.array([3, 12, -11, 15]))]
    with pytest.raises(IndexError, match="index -11 is out of bounds for axis 0 with size 10"):
        g[on_gpu(np.array([3, -11, 12]))] = 1
    m = on_gpu(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        m[:, on_gpu(np.array([0, 4]))]
