"""numfuse.random: numfuse's own Philox numbers, so no value oracle. Checked: reproducibility
(same seed, same numbers; another seed, other numbers), that a stream advances, NumPy's shapes,
dtypes and return types, ranges, statistics of 1e6 samples, and NumPy's errors."""
import math

import numpy
import pytest

from harness import numfuse_module


@pytest.fixture
def nf():
    return numfuse_module()


def host(nf, x):
    return nf.asnumpy(x) if isinstance(x, nf.ndarray) else numpy.asarray(x)


# ---- reproducibility and streams -----------------------------------------------------------

@pytest.mark.parametrize("method,args", [("random", ()), ("standard_normal", ()),
                                         ("uniform", (-2, 3)), ("normal", (1, 2)),
                                         ("integers", (0, 1000))])
def test_generator_same_seed_same_numbers(nf, method, args):
    a = getattr(nf.random.default_rng(42), method)(*args, size=(3, 50))
    b = getattr(nf.random.default_rng(42), method)(*args, size=(3, 50))
    c = getattr(nf.random.default_rng(43), method)(*args, size=(3, 50))
    assert numpy.array_equal(host(nf, a), host(nf, b))
    assert not numpy.array_equal(host(nf, a), host(nf, c))


def test_stream_advances(nf):
    g = nf.random.default_rng(7)
    a, b = host(nf, g.random(100)), host(nf, g.random(100))
    assert not numpy.array_equal(a, b)
    # A draw of n then m values is the draw of n + m values, split (the counter model).
    whole = host(nf, nf.random.default_rng(7).random(200))
    assert numpy.array_equal(numpy.concatenate([a, b]), whole)


def test_scalar_draws_advance(nf):
    g = nf.random.default_rng(0)
    vals = [g.random() for _ in range(5)]
    assert len(set(vals)) == 5


def test_legacy_seed(nf):
    nf.random.seed(123)
    a = host(nf, nf.random.rand(4, 5))
    x = nf.random.randint(0, 100, size=10)
    nf.random.seed(123)
    assert numpy.array_equal(a, host(nf, nf.random.rand(4, 5)))
    assert numpy.array_equal(host(nf, x), host(nf, nf.random.randint(0, 100, size=10)))
    nf.random.seed(124)
    assert not numpy.array_equal(a, host(nf, nf.random.rand(4, 5)))
    nf.random.seed(None)  # fresh entropy works too


def test_lazy_draw_is_fixed_at_call_time(nf):
    # The draw's offset is reserved when it is called, not when it is evaluated.
    g = nf.random.default_rng(5)
    a = g.random(10)
    b = g.random(10)
    bv = host(nf, b)
    av = host(nf, a)
    h = nf.random.default_rng(5)
    assert numpy.array_equal(av, host(nf, h.random(10)))
    assert numpy.array_equal(bv, host(nf, h.random(10)))


def test_spawn_streams_differ(nf):
    g = nf.random.default_rng(1)
    k1, k2 = g.spawn(2)
    assert not numpy.array_equal(host(nf, k1.random(50)), host(nf, k2.random(50)))


# ---- shapes, dtypes and return types as NumPy gives them ----------------------------------------

LEGACY_CALLS = [
    ("rand", (), {}), ("rand", (2, 3), {}), ("randn", (), {}), ("randn", (4,), {}),
    ("random", (), {}), ("random", ((2, 2),), {}), ("random_sample", (3,), {}),
    ("uniform", (), {}), ("uniform", (0, 1, (2, 3)), {}), ("uniform", (0, 1), {"size": ()}),
    ("normal", (), {}), ("normal", (0, 1, 5), {}), ("standard_normal", (), {}),
    ("standard_normal", ((2, 0),), {}), ("randint", (5,), {}), ("randint", (5,), {"size": 3}),
    ("randint", (5,), {"size": ()}), ("randint", (5,), {"dtype": numpy.int8}),
    ("randint", (0, 200), {"dtype": numpy.uint8, "size": (2, 2)}),
    ("randint", (2,), {"dtype": bool}), ("randint", (-3, 3), {"dtype": "int16", "size": 4}),
    ("normal", ([1.0, 2.0],), {}), ("uniform", ([0, 1], [[2], [3]]), {}), ("choice", (5,), {}),
    ("choice", (5, 3), {}),
]


@pytest.mark.parametrize("name,args,kwargs", LEGACY_CALLS, ids=str)
def test_legacy_types_shapes(nf, name, args, kwargs):
    e = getattr(numpy.random, name)(*args, **kwargs)
    g = getattr(nf.random, name)(*args, **kwargs)
    if isinstance(e, numpy.ndarray):
        assert isinstance(g, nf.ndarray)
        assert (g.shape, g.dtype) == (e.shape, e.dtype)
    else:
        assert type(g) is type(e)


GENERATOR_CALLS = [
    ("random", (), {}), ("random", (3,), {}), ("random", ((2, 3),), {"dtype": numpy.float32}),
    ("random", (), {"dtype": numpy.float32}), ("random", (), {"size": ()}),
    ("standard_normal", ((4,),), {"dtype": "float32"}), ("standard_normal", (), {}),
    ("uniform", (), {}), ("uniform", (1, 2, 3), {}), ("normal", (0, 1, (2, 2)), {}),
    ("normal", (), {}), ("integers", (5,), {}), ("integers", (5,), {"size": 3}),
    ("integers", (0, 5), {"dtype": numpy.uint8}), ("integers", (0, 5), {"endpoint": True, "size": 2}),
    ("integers", (2,), {"dtype": bool}), ("integers", (-2**63, 2**63), {"size": 2}),
    ("integers", (0, 2**64), {"dtype": numpy.uint64, "size": 2}),
    ("integers", (5,), {"size": (0,)}),
]


@pytest.mark.parametrize("name,args,kwargs", GENERATOR_CALLS, ids=str)
def test_generator_types_shapes(nf, name, args, kwargs):
    e = getattr(numpy.random.default_rng(0), name)(*args, **kwargs)
    g = getattr(nf.random.default_rng(0), name)(*args, **kwargs)
    if isinstance(e, numpy.ndarray):
        assert isinstance(g, nf.ndarray)
        assert (g.shape, g.dtype) == (e.shape, e.dtype)
    else:
        assert type(g) is type(e)


# ---- ranges and statistics -------------------------------------------------------------------

N = 1_000_000


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_uniform_statistics(nf, dtype):
    x = host(nf, nf.random.default_rng(11).random(N, dtype=dtype))
    assert x.dtype == dtype
    assert x.min() >= 0.0 and x.max() < 1.0
    # mean 1/2 (sd of the mean 0.29/sqrt(N) = 2.9e-4), variance 1/12.
    assert abs(x.mean(dtype=numpy.float64) - 0.5) < 5 * 2.9e-4
    assert abs(x.var(dtype=numpy.float64) - 1 / 12) < 1e-3
    counts = numpy.histogram(x, bins=100, range=(0, 1))[0]
    chi2 = ((counts - N / 100) ** 2 / (N / 100)).sum()
    assert chi2 < 99 + 5 * math.sqrt(2 * 99)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normal_statistics(nf, dtype):
    x = host(nf, nf.random.default_rng(12).standard_normal(N, dtype=dtype)).astype(numpy.float64)
    assert abs(x.mean()) < 5 / math.sqrt(N)
    assert abs(x.std() - 1.0) < 5 * math.sqrt(0.5 / N)
    # Tails: P(|z| > 2) = 0.0455, P(|z| > 3) = 0.0027.
    assert abs((numpy.abs(x) > 2).mean() - 0.0455) < 0.002
    assert abs((numpy.abs(x) > 3).mean() - 0.0027) < 0.0004
    assert abs(((x - x.mean()) ** 3).mean()) < 0.02  # skew
    y = host(nf, nf.random.default_rng(13).normal(3.0, 2.0, size=N))
    assert abs(y.mean() - 3.0) < 5 * 2 / math.sqrt(N)
    assert abs(y.std() - 2.0) < 0.01


def test_uniform_bounds(nf):
    x = host(nf, nf.random.default_rng(3).uniform(-4.0, -1.5, size=N))
    assert x.min() >= -4.0 and x.max() < -1.5
    assert abs(x.mean() - (-2.75)) < 0.005
    y = host(nf, nf.random.uniform([0.0, 10.0], [1.0, 20.0], size=(N // 2, 2)))
    assert y[:, 0].max() < 1.0 and y[:, 1].min() >= 10.0


@pytest.mark.parametrize("low,high,dtype", [(0, 10, "int64"), (-5, 5, "int8"), (0, 256, "uint8"),
                                            (3, 7, "uint32"), (0, 2, "bool"), (-1000, 17, "int16")])
def test_integers_uniformity(nf, low, high, dtype):
    x = host(nf, nf.random.default_rng(21).integers(low, high, size=N, dtype=dtype))
    assert x.dtype == dtype
    vals = x.astype(numpy.int64)
    assert vals.min() == low and vals.max() == high - 1
    k = high - low
    counts = numpy.bincount(vals - low, minlength=k)
    chi2 = ((counts - N / k) ** 2 / (N / k)).sum()
    assert chi2 < (k - 1) + 5 * math.sqrt(2 * (k - 1))


def test_integers_endpoint_and_full_range(nf):
    x = host(nf, nf.random.default_rng(4).integers(0, 3, size=10_000, endpoint=True))
    assert set(numpy.unique(x)) == {0, 1, 2, 3}
    y = host(nf, nf.random.default_rng(4).integers(-2**63, 2**63, size=10_000))
    assert (y < 0).mean() > 0.45 and (y > 0).mean() > 0.45
    z = host(nf, nf.random.default_rng(4).integers(0, 2**64, size=10_000, dtype=numpy.uint64))
    assert (z >= 2**63).mean() > 0.45


def test_legacy_randint_statistics(nf):
    nf.random.seed(0)
    x = host(nf, nf.random.randint(1, 7, size=600_000))
    counts = numpy.bincount(x - 1, minlength=6)
    chi2 = ((counts - 100_000) ** 2 / 100_000).sum()
    assert chi2 < 5 + 5 * math.sqrt(10)


def test_choice_values(nf):
    x = host(nf, nf.random.default_rng(8).choice(4, size=40_000))
    assert set(numpy.unique(x)) == {0, 1, 2, 3}


def test_choice_from_array(nf):
    pool = nf.asarray([10.0, 20.0, 30.0])
    y = host(nf, nf.random.default_rng(8).choice(pool, size=100))
    assert set(numpy.unique(y)) <= {10.0, 20.0, 30.0}


# ---- errors as NumPy raises them ------------------------------------------------------------

ERRORS = [
    ("randint", (5, 2), {}), ("randint", (0,), {}), ("randint", (300,), {"dtype": numpy.int8}),
    ("randint", (-1, 3), {"dtype": numpy.uint8}), ("randint", (5,), {"dtype": numpy.float64}),
    ("randint", (0, 2**64), {"dtype": numpy.int64}), ("normal", (0, -1), {}),
    ("normal", ([0, 1], [1, -1]), {}), ("uniform", (0, numpy.inf), {}), ("seed", (-1,), {}),
    ("seed", (2**32,), {}), ("rand", (-1,), {}), ("random", (), {"size": -2}),
    ("rand", (2.5,), {}), ("choice", (0,), {}),
]


def _check_error(e_call, g_call):
    with pytest.raises(Exception) as e:
        e_call()
    with pytest.raises(type(e.value)) as g:
        g_call()
    assert str(g.value) == str(e.value)


@pytest.mark.parametrize("name,args,kwargs", ERRORS, ids=str)
def test_legacy_errors(nf, name, args, kwargs):
    _check_error(lambda: getattr(numpy.random, name)(*args, **kwargs),
                 lambda: getattr(nf.random, name)(*args, **kwargs))
    numpy.random.seed(None)


GEN_ERRORS = [
    ("integers", (5, 2), {}), ("integers", (5, 4), {"endpoint": True}), ("integers", (-5,), {}),
    ("integers", (0, 5), {"dtype": numpy.float32}), ("normal", (0, -1), {}),
    ("random", (), {"dtype": numpy.int32}), ("standard_normal", (), {"dtype": numpy.float16}),
    ("uniform", (1, 0), {"size": 2}), ("uniform", (0, numpy.nan), {}),
    ("integers", (5,), {"size": -1}),
    ("integers", (0, 2**64), {"dtype": numpy.uint64, "endpoint": True}),
]


@pytest.mark.parametrize("name,args,kwargs", GEN_ERRORS, ids=str)
def test_generator_errors(nf, name, args, kwargs):
    _check_error(lambda: getattr(numpy.random.default_rng(0), name)(*args, **kwargs),
                 lambda: getattr(nf.random.default_rng(0), name)(*args, **kwargs))


def test_default_rng_negative_seed(nf):
    _check_error(lambda: numpy.random.default_rng(-1), lambda: nf.random.default_rng(-1))


def test_default_rng_accepts_generator_and_sequences(nf):
    g = nf.random.default_rng(3)
    assert nf.random.default_rng(g) is g
    a = host(nf, nf.random.default_rng([1, 2, 3]).random(5))
    b = host(nf, nf.random.default_rng([1, 2, 4]).random(5))
    assert not numpy.array_equal(a, b)
