"""The CPU's threaded long-line paths of sort and unique against NumPy (issue 12): the sample
sort (buckets sorted by NumPy's loop, claimed by the threads dynamically) and unique's fused
per-bucket sort and compaction, whose runs of equal values are joined across bucket boundaries.
Those paths run only when a second core is free (backend/cpu/core_load.h); NUMFUSE_IGNORE_LOAD=1
forces them here, and each case also runs with the load check on (either path may be taken).

Seeded random arrays: few or many distinct values, NaNs, -0.0 next to 0.0, +-inf and the
extremes of the dtype, contiguous, strided and reversed inputs.
"""
import numpy
import pytest

import numfuse as nf

N_LONG = [65_537, 262_147, 700_001]


def data(kind, dtype, n, seed):
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    if kind == "few":
        a = rng.integers(-20, 20, n).astype(dt)
    elif kind == "many":
        a = rng.integers(0, max(n // 10, 1), n).astype(dt)
    elif kind == "normal":
        a = rng.standard_normal(n).astype(dt) if dt.kind == "f" else rng.integers(-2**40, 2**40, n).astype(dt)
    else:  # specials
        if dt.kind == "f":
            pool = numpy.array([-0.0, 0.0, numpy.nan, -numpy.nan, numpy.inf, -numpy.inf, 1.0, -1.0,
                                numpy.finfo(dt).max, numpy.finfo(dt).min, numpy.finfo(dt).tiny], dtype=dt)
        else:
            info = numpy.iinfo(dt)
            pool = numpy.array([info.min, info.max, 0, -1, 1], dtype=dt)
        a = rng.choice(pool, n)
        a[rng.random(n) < 0.5] = rng.standard_normal(1)[0] if dt.kind == "f" else 7
    return a


def views(a):
    """The array, every other element, and reversed (a negative stride)."""
    return [a, a[::2], a[::-1]]


def assert_same_values(got, want, source):
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got, want)  # NaNs at the same places; -0.0 == 0.0
    # The sign of a zero is NumPy's only where the input holds one sign of zero (with both,
    # which one comes first is an accident of NumPy's unstable quicksort).
    zeros = source[source == 0]
    if zeros.size and (numpy.signbit(zeros).all() or not numpy.signbit(zeros).any()):
        numpy.testing.assert_array_equal(numpy.signbit(got), numpy.signbit(want))


@pytest.fixture(params=["forced", "load-checked"])
def threaded(request, monkeypatch):
    if request.param == "forced":
        monkeypatch.setenv("NUMFUSE_IGNORE_LOAD", "1")
    else:
        monkeypatch.delenv("NUMFUSE_IGNORE_LOAD", raising=False)
    return request.param


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("kind", ["few", "many", "normal", "specials"])
@pytest.mark.parametrize("n", N_LONG)
def test_long_sort_matches_numpy(threaded, dtype, kind, n):
    for h in views(data(kind, dtype, n, n + len(kind))):
        assert_same_values(nf.asnumpy(nf.sort(nf.asarray(h))), numpy.sort(h), h)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["few", "many", "normal", "specials"])
@pytest.mark.parametrize("n", N_LONG[1:])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_long_unique_matches_numpy(threaded, dtype, kind, n, equal_nan):
    for h in views(data(kind, dtype, n, 3 * n + len(kind))):
        want, want_counts = numpy.unique(h, return_counts=True, equal_nan=equal_nan)
        got, got_counts = (nf.asnumpy(x) for x in nf.unique(nf.asarray(h), return_counts=True, equal_nan=equal_nan))
        assert_same_values(got, want, h)
        numpy.testing.assert_array_equal(got_counts, want_counts)
        assert_same_values(nf.asnumpy(nf.unique(nf.asarray(h), equal_nan=equal_nan)),
                           numpy.unique(h, equal_nan=equal_nan), h)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_unique_zero_runs_cross_buckets(threaded, dtype):
    """Half of the line -0.0, half 0.0: the buckets are cut between the two signs, so the run of
    zeros spans a boundary and must come out as one value with the full count."""
    rng = numpy.random.default_rng(5)
    n = 400_003
    h = numpy.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dtype)
    h[rng.random(n) < 0.01] = numpy.nan
    for equal_nan in (True, False):
        want, want_counts = numpy.unique(h, return_counts=True, equal_nan=equal_nan)
        got, got_counts = (nf.asnumpy(x) for x in nf.unique(nf.asarray(h), return_counts=True, equal_nan=equal_nan))
        numpy.testing.assert_array_equal(got, want)
        numpy.testing.assert_array_equal(got_counts, want_counts)


def test_long_sort_of_2d_rows(threaded):
    """Two long rows (fewer lines than 2 x threads): each row by the sample sort, along either axis."""
    h = data("many", "float64", 2 * 131_073, 9).reshape(2, -1)
    assert_same_values(nf.asnumpy(nf.sort(nf.asarray(h), axis=1)), numpy.sort(h, axis=1), h)
    assert_same_values(nf.asnumpy(nf.sort(nf.asarray(h.T), axis=0)), numpy.sort(h.T, axis=0), h)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("kind", ["many", "specials"])
def test_very_long_line_finer_bucket_table(threaded, dtype, kind):
    """From 4M elements on the bucket table uses 20-bit key prefixes."""
    n = (1 << 22) + 5
    h = data(kind, dtype, n, 11)
    assert_same_values(nf.asnumpy(nf.sort(nf.asarray(h))), numpy.sort(h), h)
    if dtype != "int64":
        want, want_counts = numpy.unique(h, return_counts=True)
        got, got_counts = (nf.asnumpy(x) for x in nf.unique(nf.asarray(h), return_counts=True))
        assert_same_values(got, want, h)
        numpy.testing.assert_array_equal(got_counts, want_counts)
