"""Seeded property tests of numfuse.lib.stride_tricks against NumPy: sliding windows of random
views (slices with steps, reversals, transposes) and as_strided with random shapes and strides.
In-bounds strides give NumPy's values and writes reach the memory; strides that reach outside
the storage raise ValueError (NumPy would read stray memory there), never read it."""
import numpy
import pytest

from harness import numfuse_module

nf = numfuse_module()

SEEDS = range(60)


def _random_view(rng, xp, base):
    """The same random view of `base` for NumPy and numfuse: slices with steps, a transpose."""
    key = []
    for n in base.shape:
        step = int(rng.choice([1, 1, 2, -1, 3]))
        start = int(rng.integers(0, max(n // 3, 1)))
        key.append(slice(start, None, step) if step > 0 else slice(None, None, step))
    v = base[tuple(key)]
    if rng.random() < 0.4:
        v = v.T
    return v


@pytest.mark.parametrize("seed", SEEDS)
def test_sliding_window_view_of_random_views(device, seed):
    rng = numpy.random.default_rng(seed)
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 7, ndim))
    host = numpy.arange(numpy.prod(shape), dtype=numpy.float64).reshape(shape)
    ours = nf.asarray(host, device=device)
    state = rng.bit_generator.state
    hv = _random_view(rng, numpy, host)
    rng.bit_generator.state = state
    ov = _random_view(rng, nf, ours)
    naxes = int(rng.integers(1, hv.ndim + 1))
    axes = tuple(int(a) for a in rng.choice(hv.ndim, naxes, replace=bool(rng.random() < 0.2)))
    window = tuple(int(rng.integers(0, hv.shape[a] + 2)) for a in axes)
    try:
        want = numpy.lib.stride_tricks.sliding_window_view(hv, window, axis=axes)
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            nf.lib.stride_tricks.sliding_window_view(ov, window, axis=axes)
        assert str(got.value) == str(e)
        return
    got = nf.lib.stride_tricks.sliding_window_view(ov, window, axis=axes)
    assert got.shape == want.shape and got.strides == want.strides
    numpy.testing.assert_array_equal(nf.asnumpy(got), want)


@pytest.mark.parametrize("seed", SEEDS)
def test_as_strided_random_geometry(device, seed):
    rng = numpy.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 40))
    host = numpy.arange(n, dtype=numpy.int32)
    ours = nf.asarray(host, device=device)
    start = int(rng.integers(0, n))
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(0, 5, ndim))
    strides = tuple(4 * int(s) for s in rng.integers(-4, 5, ndim))
    # the bytes the view reaches, relative to the storage's start
    lo = hi = 4 * start
    for s, st in zip(shape, strides):
        span = (s - 1) * st if s else 0
        lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
    inside = 0 in shape or (lo >= 0 and hi + 4 <= 4 * n)
    if not inside:
        with pytest.raises(ValueError):
            nf.lib.stride_tricks.as_strided(ours[start:], shape, strides)
        return
    want = numpy.lib.stride_tricks.as_strided(host[start:], shape, strides)
    got = nf.lib.stride_tricks.as_strided(ours[start:], shape, strides)
    assert got.shape == want.shape and got.strides == want.strides
    numpy.testing.assert_array_equal(nf.asnumpy(got), want)
    if want.size and 0 not in strides:
        got[(0,) * ndim] = -7
        assert int(ours[start]) == -7
