"""NumPy's bit generators in numfuse.random (python/numfuse/_random_bitgen.py): Generator(PCG64(s))
and RandomState(MT19937(s)) give NumPy's exact streams as numfuse arrays; seeds reproduce, the
state round-trips, spawn/jumped/advance work, and the moments are right."""
import copy
import pickle

import numpy
import pytest

from harness import numfuse_module, oracle

nf = numfuse_module()

BIT_GENERATORS = ["MT19937", "PCG64", "PCG64DXSM", "SFC64"]
SEEDS = [0, 12345, [1, 2, 3], 2**63 + 7]

# (method, args, kwargs): every family of draws, with array parameters and size tuples
DRAWS = [
    ("random", (), {"size": (3, 4)}), ("random", (), {"size": 5, "dtype": numpy.float32}),
    ("random", (), {}), ("standard_normal", (), {"size": (2, 3)}),
    ("normal", (1.0, [1.0, 2.0, 3.0]), {}), ("uniform", (-2.0, 5.0), {"size": 7}),
    ("integers", (0, 10), {"size": 8}), ("integers", (-5, 5), {"size": (2, 2), "dtype": numpy.int8}),
    ("integers", (0, 2**40), {"size": 3, "endpoint": True}), ("integers", (10,), {}),
    ("exponential", (2.0,), {"size": 6}), ("gamma", ([0.5, 2.0, 9.0],), {}),
    ("beta", (2.0, 3.0), {"size": 4}), ("binomial", (10, 0.3), {"size": 5}),
    ("poisson", ([1.0, 50.0],), {}), ("choice", (10,), {"size": 4, "replace": False}),
    ("choice", ([1.5, 2.5, 3.5],), {"size": 5, "p": [0.2, 0.3, 0.5]}),
    ("permutation", (9,), {}), ("multivariate_normal", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]),
                                {"size": 3}),
    ("dirichlet", ([1.0, 2.0, 3.0],), {"size": 2}), ("multinomial", (20, [0.2, 0.8]), {"size": 2}),
    ("standard_t", (3.0,), {"size": 4}), ("zipf", (2.0,), {"size": 4}),
    ("hypergeometric", (10, 5, 7), {"size": 4}), ("vonmises", (0.0, 4.0), {"size": 4}),
    ("bytes", (5,), {}),
]


def _args(xp, args):
    # list parameters go in as arrays of the module under test: numfuse arrays for numfuse
    return tuple(xp.asarray(a) if isinstance(a, list) and numpy.ndim(a) == 1 and
                 not isinstance(a[0], list) else a for a in args)


@pytest.mark.parametrize("draw", DRAWS, ids=lambda d: f"{d[0]}{d[1]}{d[2]}")
@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
@oracle(rtol=0)
def test_generator_streams_are_numpys(xp, bitgen, draw):
    name, args, kwargs = draw
    g = xp.random.Generator(getattr(xp.random, bitgen)(2024))
    first = getattr(g, name)(*_args(xp, args), **kwargs)
    second = getattr(g, name)(*_args(xp, args), **kwargs)  # the state moved as NumPy's did
    return first, second, g.random(2)


@pytest.mark.parametrize("seed", SEEDS, ids=str)
@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
@oracle(rtol=0)
def test_seeds_and_default_rng(xp, bitgen, seed):
    a = xp.random.default_rng(getattr(xp.random, bitgen)(seed)).standard_normal(5)
    b = xp.random.Generator(getattr(xp.random, bitgen)(seed)).standard_normal(5)
    return a, b


LEGACY = [("rand", (3, 2), {}), ("randn", (4,), {}), ("randint", (0, 100), {"size": 5}),
          ("random_sample", (), {"size": 3}), ("normal", (2.0, 3.0), {"size": 4}),
          ("standard_gamma", (0.7,), {"size": 3}), ("binomial", (5, 0.5), {"size": 3}),
          ("choice", (5,), {"size": 3}), ("permutation", (6,), {}), ("tomaxint", (), {"size": 2}),
          ("uniform", (0.0, 2.0), {"size": 2})]


@pytest.mark.parametrize("draw", LEGACY, ids=lambda d: d[0])
@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
@oracle(rtol=0)
def test_randomstate_streams_are_numpys(xp, bitgen, draw):
    name, args, kwargs = draw
    rs = xp.random.RandomState(getattr(xp.random, bitgen)(7))
    return getattr(rs, name)(*args, **kwargs), rs.randn(2)


@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
def test_results_are_numfuse_arrays_and_generators_are_generators(bitgen):
    g = nf.random.Generator(getattr(nf.random, bitgen)(1))
    assert isinstance(g, nf.random.Generator)
    assert isinstance(g.bit_generator, nf.random.BitGenerator)
    assert isinstance(nf.random.Philox(1), nf.random.BitGenerator)
    assert isinstance(g.random(3), nf.ndarray) and isinstance(g.random(), float)
    assert g.bit_generator.__class__ is getattr(numpy.random, bitgen)
    assert getattr(nf.random, bitgen) is getattr(numpy.random, bitgen)
    rs = nf.random.RandomState(getattr(nf.random, bitgen)(1))
    assert isinstance(rs, nf.random.RandomState) and isinstance(rs.rand(2), nf.ndarray)
    assert nf.random.bit_generator is numpy.random.bit_generator
    # results own their memory (taken from NumPy's fresh array on the CPU): writable, independent
    a, b = g.random((2, 3)), g.random((2, 3))
    before = nf.asnumpy(b).copy()
    a[...] = 7.0
    a += 1
    assert numpy.all(nf.asnumpy(a) == 8.0) and numpy.array_equal(nf.asnumpy(b), before)
    assert a.flags.writeable and a.flags.c_contiguous and a.shape == (2, 3)


@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
def test_state_round_trips(bitgen):
    g = nf.random.Generator(getattr(nf.random, bitgen)(99))
    g.normal(size=3)
    saved = g.bit_generator.state
    a = nf.asnumpy(g.normal(size=5))
    g.bit_generator.state = saved
    assert numpy.array_equal(a, nf.asnumpy(g.normal(size=5)))
    g.state = saved  # numfuse's Generator.state spelling, the same dict
    assert numpy.array_equal(a, nf.asnumpy(g.normal(size=5)))
    rs = nf.random.RandomState(getattr(nf.random, bitgen)(5))
    st = rs.get_state(legacy=(bitgen == "MT19937"))
    x = nf.asnumpy(rs.randn(4))
    rs.set_state(st)
    assert numpy.array_equal(x, nf.asnumpy(rs.randn(4)))
    for make_clone in (lambda: pickle.loads(pickle.dumps(g)), lambda: copy.deepcopy(g)):
        clone = make_clone()
        assert numpy.array_equal(nf.asnumpy(clone.random(3)), nf.asnumpy(g.random(3)))


@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
def test_spawn_and_jumped_match_numpy(bitgen):
    ours = nf.random.Generator(getattr(nf.random, bitgen)(3))
    theirs = numpy.random.Generator(getattr(numpy.random, bitgen)(3))
    kids, want = ours.spawn(3), theirs.spawn(3)
    assert all(isinstance(k, nf.random.Generator) for k in kids)
    firsts = [nf.asnumpy(k.random(4)) for k in kids]
    for f, w in zip(firsts, want):
        assert numpy.array_equal(f, w.random(4))
    assert not numpy.array_equal(firsts[0], firsts[1])
    if bitgen != "SFC64":  # SFC64 has no jump
        j = nf.random.Generator(getattr(nf.random, bitgen)(3).jumped(2))
        w = numpy.random.Generator(getattr(numpy.random, bitgen)(3).jumped(2))
        assert numpy.array_equal(nf.asnumpy(j.integers(0, 1 << 62, 6)), w.integers(0, 1 << 62, 6))


@pytest.mark.parametrize("bitgen", BIT_GENERATORS)
def test_moments(bitgen):
    # 2e5 draws: a mean 6 standard errors off (and a variance off by more than 3%) would fail
    g = nf.random.Generator(getattr(nf.random, bitgen)(17))
    n = 200_000
    cases = [(g.standard_normal(n), 0.0, 1.0), (g.random(n), 0.5, 1 / 12),
             (g.exponential(2.0, n), 2.0, 4.0), (g.gamma(3.0, 1.5, n), 4.5, 6.75),
             (g.poisson(4.0, n).astype(numpy.float64), 4.0, 4.0),
             (g.integers(0, 10, n).astype(numpy.float64), 4.5, 8.25)]
    for x, mean, var in cases:
        h = nf.asnumpy(x)
        assert abs(h.mean() - mean) < 6 * numpy.sqrt(var / n), (bitgen, mean, h.mean())
        assert abs(h.var() / var - 1) < 0.03, (bitgen, var, h.var())


@pytest.mark.parametrize("bitgen", ["PCG64", "MT19937"])
def test_in_place_draws_on_numfuse_arrays(device, bitgen):
    ours = nf.random.Generator(getattr(nf.random, bitgen)(8))
    theirs = numpy.random.Generator(getattr(numpy.random, bitgen)(8))
    a, h = nf.arange(10.0, device=device), numpy.arange(10.0)
    assert ours.shuffle(a) is None
    theirs.shuffle(h)
    assert numpy.array_equal(nf.asnumpy(a), h)
    out = nf.empty((2, 5), device=device)
    assert ours.permuted(a.reshape(2, 5), axis=1, out=out) is out
    assert numpy.array_equal(nf.asnumpy(out), theirs.permuted(h.reshape(2, 5), axis=1))
    res = nf.empty(4, device=device)
    assert ours.random(out=res) is res
    assert numpy.array_equal(nf.asnumpy(res), theirs.random(4))
    rs = nf.random.RandomState(getattr(nf.random, bitgen)(8))
    b = nf.arange(6, device=device)
    rs.shuffle(b)
    hb = numpy.arange(6)
    numpy.random.RandomState(getattr(numpy.random, bitgen)(8)).shuffle(hb)
    assert numpy.array_equal(nf.asnumpy(b), hb)


@pytest.fixture
def restore_global_bit_generator():
    before = nf.random.get_bit_generator()
    yield
    nf.random.set_bit_generator(before)


def test_get_and_set_bit_generator(restore_global_bit_generator):
    from numfuse.random import rand  # bound before the switch: follows it, as NumPy's does
    assert isinstance(nf.random.get_bit_generator(), nf.random.Philox)
    bg = nf.random.MT19937(11)
    nf.random.set_bit_generator(bg)
    assert nf.random.get_bit_generator() is bg
    want_state = numpy.random.get_bit_generator()
    try:
        numpy.random.set_bit_generator(numpy.random.MT19937(11))
        assert numpy.array_equal(nf.asnumpy(rand(3)), numpy.random.rand(3))
        assert numpy.array_equal(nf.asnumpy(nf.random.randint(0, 9, 4)),
                                 numpy.random.randint(0, 9, 4))
    finally:
        numpy.random.set_bit_generator(want_state)
    philox = nf.random.Philox(5)
    nf.random.set_bit_generator(philox)
    assert nf.random.get_bit_generator() is philox
    assert isinstance(nf.random.rand(2), nf.ndarray)
    with pytest.raises(TypeError):
        nf.random.set_bit_generator(42)


@pytest.mark.parametrize("call", [("integers", (5, 1)), ("normal", (0.0, -1.0)),
                                  ("choice", (3,), {"size": 5, "replace": False}),
                                  ("integers", (0, 300), {"dtype": numpy.uint8})])
@oracle()
def test_errors_are_numpys(xp, call):
    g = xp.random.Generator(xp.random.PCG64(1))
    return getattr(g, call[0])(*call[1], **(call[2] if len(call) > 2 else {}))
