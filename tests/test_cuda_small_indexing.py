"""Small device masks and index arrays are counted, searched and bounds-checked on the host
(ops/advanced_indexing.cpp, kHostIndexElements = 4096 elements), larger ones by the reduction and
scan kernels: both sides of the threshold give NumPy's values and errors, and a small x[mask] or
x[idx] compiles no kernel but its gather (issue 12: the cold first call of the Array API suite's
getitem tests). Every test skips without a GPU; the CPU side is covered by the oracle suites.
"""
import numpy as np
import pytest

import harness
from harness import compare

nf = harness.numfuse_module()
if nf is None:
    pytest.skip("numfuse is not importable", allow_module_level=True)

pytestmark = pytest.mark.skipif(not harness.cuda_available(nf), reason="numfuse.cuda.is_available() is False")

LIMIT = 4096  # kHostIndexElements
SIZES = [1, 7, LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT]


def on_gpu(x):
    return nf.asarray(x, device="cuda")


def check(expected, got):
    assert got.device.startswith("cuda"), got.device
    compare(np.asarray(expected), nf.asnumpy(got))


def compilations():
    return nf.cuda.kernel_cache_stats()["compilations"]


@pytest.mark.parametrize("n", SIZES)
def test_masks_on_both_sides_of_the_threshold(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    m = rng.integers(0, 2, n).astype(bool)
    g, gm = on_gpu(x), on_gpu(m)
    check(x[m], g[gm])
    check(x[x > 0.5], g[g > 0.5])  # a pending mask: its comparison evaluated first
    assert int(nf.count_nonzero(gm)) == np.count_nonzero(m)
    check(np.flatnonzero(m), nf.flatnonzero(gm))
    y, gy = x.copy(), on_gpu(x)
    k = np.count_nonzero(m)
    y[m] = np.arange(k, dtype=np.float32)
    gy[gm] = nf.arange(k, dtype=np.float32, device="cuda")
    check(y, gy)


@pytest.mark.parametrize("shape", [(4, 5), (64, 64), (40, 103), (2, 3, 0)])
def test_nd_masks_views_and_nonzero(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-3, 3, shape).astype(np.int16)
    g = on_gpu(x)
    for want, got in zip(np.nonzero(x), nf.nonzero(g)):
        check(want, got)
    if x.ndim == 2:
        xt, gt = x.T[::2], g.T[::2]  # a strided view as the mask's source
        check(xt[xt > 0], gt[gt > 0])
        for want, got in zip(np.nonzero(xt), nf.nonzero(gt)):
            check(want, got)
        rows = x[:, 0] > 0
        check(x[rows], g[on_gpu(rows)])
        check(x[rows, 1:], g[on_gpu(rows), 1:])


@pytest.mark.parametrize("n", [3, LIMIT, LIMIT + 1])
def test_bounds_errors_name_the_first_bad_index(n):
    g = on_gpu(np.arange(10))
    bad = np.zeros(n, np.int64)
    bad[n // 2] = 12
    bad[-1] = -11
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 10"):
        g[on_gpu(bad)]
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 10"):
        g[on_gpu(bad)] = 1
    ok = np.random.default_rng(n).integers(-10, 10, n)
    check(np.arange(10)[ok], g[on_gpu(ok)])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "complex64"])
def test_small_getitem_compiles_only_its_gather(dtype):
    # A dtype per case, so the gather may be new: nothing else compiles (no scan, no count, no
    # bounds reductions).
    x = on_gpu(np.arange(20).reshape(4, 5).astype(dtype))
    m = on_gpu(np.arange(20).reshape(4, 5) % 3 == 0)
    idx = on_gpu(np.array([3, 0, -1], np.int64))
    nf.cuda.synchronize()
    before = compilations()
    check(np.arange(20).reshape(4, 5).astype(dtype)[np.arange(20).reshape(4, 5) % 3 == 0], x[m])
    assert compilations() - before <= 1
    before = compilations()
    check(np.arange(20).reshape(4, 5).astype(dtype)[[3, 0, -1]], x[idx])
    assert compilations() - before <= 1
