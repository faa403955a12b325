"""Arrays past 2**31 elements (issue 11): the CUDA elementwise kernels index in 32 bits on every
launch, a space past 2**31 being split into pieces (core/iteration's split_for_int32), each launched
with its pointers and first position advanced; reductions along rows run in pieces of rows; other
reductions, gathers and scans of such arrays stay exact with 64-bit indices.

Every element's value is a formula of its position (x[i] = int8(i % 251)), so NumPy computes the
expected value of any sampled element without materialising 2**31 of them. The samples are random
positions plus the places where pieces meet (multiples of 2**30 and 2**31, each side).

Sizes: BIG (2**31 + 2**20 + 77 elements; int8 and bool arrays of 2.2 GB, the cumsum's int64 result
17 GB) runs on the GPU (`device` == 'cuda'); the CPU run skips it for memory and time alone
(NUMFUSE_BIG_CPU=1 runs it there too). SMALL runs the same bodies on every device.
"""
import os

import numpy as np
import pytest

import harness

nf = harness.numfuse_module()
if nf is None:
    pytest.skip("numfuse is not importable", allow_module_level=True)

BIG = 2**31 + 2**20 + 77
SMALL = 2**20 + 77
PERIOD = 251


@pytest.fixture(params=["small", "big"])
def n(request, device):
    if request.param == "small":
        return SMALL
    if device == "cpu" and os.environ.get("NUMFUSE_BIG_CPU") != "1":
        pytest.skip("2**31 elements: 2.2 GB int8/bool arrays (17 GB for the int64 cumsum); the CPU run "
                    "skips it for memory and time (NUMFUSE_BIG_CPU=1 runs it)")
    return BIG


def positions(n, count=3000, seed=0):
    """Sorted distinct sample positions: random ones, the ends, and both sides of every multiple
    of 2**30 below n (where 32-bit pieces meet)."""
    rng = np.random.default_rng(seed)
    edges = [0, 1, n - 2, n - 1]
    for k in range(1, n // 2**30 + 1):
        edges += [k * 2**30 + d for d in (-65, -64, -1, 0, 1, 63, 64)]
    edges += [2**31 - 2**24 + d for d in (-1, 0, 1)]  # the elementwise kernels' max index
    idx = np.concatenate([rng.integers(0, n, count), np.array(edges, dtype=np.int64)])
    return np.unique(idx[(idx >= 0) & (idx < n)])


def source(n, device):
    """x[i] = int8(i % 251), computed on the device (a generator fused with % and the cast)."""
    return (nf.arange(n, dtype=np.int64, device=device) % PERIOD).astype(np.int8)


def expected_source(idx):
    return (np.asarray(idx, dtype=np.int64) % PERIOD).astype(np.int8)


def sampled(a, idx, device):
    """a[idx] as NumPy (a gather on the array's device)."""
    return nf.asnumpy(a[nf.asarray(idx, device=device)])


def prefix_sum(m, scale=1):
    """sum(int8(i % 251) * scale for i < m) with int8's wrap, for an array of m, exactly."""
    cyc = (np.arange(PERIOD, dtype=np.int64).astype(np.int8) * np.int8(scale)).astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(cyc)])
    m = np.asarray(m, dtype=np.int64)
    return (m // PERIOD) * cum[PERIOD] + cum[m % PERIOD]


def test_elementwise_op_and_fused_chain(n, device):
    idx = positions(n)
    x = source(n, device)
    want_x = expected_source(idx)
    np.testing.assert_array_equal(sampled(x, idx, device), want_x)
    # One kernel over two materialised operands, and a fused chain of int8 ops (NumPy's wrap).
    y = x + x
    np.testing.assert_array_equal(sampled(y, idx, device), want_x + want_x)
    del y
    z = ((x * 3) ^ 0x55) - (x >> 1)
    np.testing.assert_array_equal(sampled(z, idx, device), ((want_x * 3) ^ 0x55) - (want_x >> 1))
    del z
    # A bool result past 2**31, and a strided (every other element, reversed) view as an operand.
    m = x > 100
    np.testing.assert_array_equal(sampled(m, idx, device), want_x > 100)
    del m
    r = x[::-2] + 1
    ridx = idx[idx < r.shape[0]]
    np.testing.assert_array_equal(sampled(r, ridx, device), expected_source(n - 1 - 2 * ridx) + np.int8(1))


def test_reductions(n, device):
    x = source(n, device)
    # sum of int8 as int64, plain and with a fused prologue; a count of a bool condition.
    assert int(x.sum(dtype=np.int64)) == int(prefix_sum(n))
    assert int((x * 2).sum(dtype=np.int64)) == int(prefix_sum(n, 2))
    cycle = np.arange(PERIOD).astype(np.int8)
    count = (n // PERIOD) * int((cycle > 100).sum()) + int((cycle[: n % PERIOD] > 100).sum())
    assert int((x > 100).sum()) == count
    assert int(x.max()) == 127 and int(x.min()) == -128


def test_reductions_along_an_axis(n, device):
    # (rows, cols) int8 with rows * cols past 2**31 on the big size: summed along rows, the rows
    # are independent outputs launched in 32-bit pieces of rows; along columns (every output reads
    # across all rows) the reduction keeps 64-bit indices.
    cols = 2**20 if n == BIG else 2**15
    rows = n // cols
    x = source(rows * cols, device).reshape(rows, cols)
    r = np.arange(rows, dtype=np.int64)
    np.testing.assert_array_equal(nf.asnumpy(x.sum(axis=1, dtype=np.int64)),
                                  prefix_sum((r + 1) * cols) - prefix_sum(r * cols))
    # The same with a fused prologue (x * 2 wraps in int8, computed as the kernel reads x).
    np.testing.assert_array_equal(nf.asnumpy((x * 2).sum(axis=1, dtype=np.int64)),
                                  prefix_sum((r + 1) * cols, 2) - prefix_sum(r * cols, 2))
    # The first 127 of row r (i % 251 == 127): argmax's position within its row.
    np.testing.assert_array_equal(nf.asnumpy(x.argmax(axis=1)), (127 - (r * cols) % PERIOD) % PERIOD)
    c = positions(cols, count=200, seed=3)
    col_sums = nf.asnumpy(x.sum(axis=0, dtype=np.int64)[nf.asarray(c, device=device)])
    want = expected_source(r[:, None] * cols + c[None, :]).astype(np.int64).sum(axis=0)
    np.testing.assert_array_equal(col_sums, want)


def test_gather(n, device):
    x = source(n, device)
    idx = positions(n, seed=1)
    np.testing.assert_array_equal(sampled(x, idx, device), expected_source(idx))
    # Negative indices count from the end; a few single elements read one by one.
    np.testing.assert_array_equal(sampled(x, idx - n, device), expected_source(idx))
    for i in idx[:: max(1, len(idx) // 8)]:
        assert int(x[int(i)]) == int(expected_source(i))


def test_cumsum(n, device):
    x = source(n, device)
    c = x.cumsum()  # int64, as NumPy's cumsum of int8
    assert c.dtype == np.int64
    idx = positions(n, seed=2)
    np.testing.assert_array_equal(sampled(c, idx, device), prefix_sum(idx + 1))
