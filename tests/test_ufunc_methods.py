"""ufunc objects as NumPy's: outer, at (unbuffered: repeated indices apply each time), reduce with
initial= and where= for every binary ufunc, accumulate, reduceat, and the attributes."""
import os

import numpy
import pytest

from harness import make_array, oracle, run_both

import harness

BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "fmax", "fmin",
          "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
          "floor_divide", "remainder", "arctan2", "hypot", "logaddexp", "copysign", "fmod",
          "true_divide", "left_shift", "heaviside", "nextafter", "equal", "less"]


def _operands(name, dtype, shape, seed=0):
    low = 1 if name in ("divide", "true_divide", "floor_divide", "remainder", "fmod", "power") else None
    high = 3 if name in ("power", "left_shift") else None
    return make_array(shape, dtype, seed=seed, low=low, high=high)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.bool_], ids=str)
@oracle(rtol=1e-12)
def test_outer(xp, name, dtype):
    a = xp.asarray(_operands(name, dtype, (3,)))
    b = xp.asarray(_operands(name, dtype, (2, 2), seed=1))
    return getattr(xp, name).outer(a, b), getattr(xp, name).outer(a[::-1], xp.asarray(_operands(name, dtype, ())))


@pytest.mark.parametrize("case", range(3))
@oracle()
def test_outer_errors_and_kwargs(xp, case):
    a = xp.arange(3.0)
    return [lambda: xp.sin.outer(a, a),
            lambda: xp.add.outer(a, xp.arange(2), dtype=numpy.float32),
            lambda: xp.divmod.outer(a, a + 1)][case]()


# ---- reduce ------------------------------------------------------------------------------------

# NumPy 2.4's power and arctan2 reductions over floats compute a[0] op a[-1] (their SIMD loops
# skip the elements between): numfuse folds left to right, and these are checked against the
# last element of NumPy's accumulate, which folds correctly.
NUMPY_REDUCE_BUG = {"power", "arctan2"}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.uint8, numpy.float32, numpy.float64, numpy.bool_], ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
@oracle(rtol=1e-5)
def test_reduce_every_binary(xp, name, dtype, axis):
    a = xp.asarray(_operands(name, dtype, (4, 5)))
    u = getattr(xp, name)
    if xp.is_numpy and name in NUMPY_REDUCE_BUG:
        def reduce(x, axis, keepdims=False):
            last = numpy.take(u.accumulate(x, axis=axis), [-1], axis=axis)
            return last if keepdims else numpy.squeeze(last, axis)
    else:
        reduce = u.reduce
    return reduce(a, axis=axis), reduce(a.T[::-1], axis=axis, keepdims=True)


@pytest.mark.parametrize("name", ["subtract", "bitwise_xor", "maximum", "logaddexp", "add", "divide"])
@pytest.mark.parametrize("case", range(10))
@oracle(rtol=1e-12)
def test_reduce_options(xp, name, case):
    u = getattr(xp, name)
    dtype = numpy.int64 if name == "bitwise_xor" else numpy.float64
    a = xp.asarray(_operands(name, dtype, (3, 4)))
    calls = [
        lambda: u.reduce(a, axis=None),
        lambda: u.reduce(a, axis=(0, 1)),
        lambda: u.reduce(a, axis=0, initial=5),
        lambda: u.reduce(a, axis=1, initial=2, where=xp.asarray([True, False, True, True])),
        lambda: u.reduce(a, axis=1, where=xp.asarray([True, False, True, True])),
        lambda: u.reduce(a[:0], axis=0),
        lambda: u.reduce(a[:, :0], axis=1, initial=3),
        lambda: u.reduce(xp.asarray(_operands(name, dtype, ())), axis=()),
        # float32 sums of integers are exact in any order (a GPU adds in another order than NumPy)
        lambda: u.reduce(xp.asarray(numpy.arange(12.0).reshape(3, 4)) if name == "add" else a, axis=0,
                         dtype=numpy.float32 if dtype != numpy.int64 else numpy.int32),
        lambda: u.reduce(a[0], axis=None, keepdims=True),
    ]
    return calls[case]()


@pytest.mark.parametrize("case", range(5))
@oracle()
def test_reduce_errors_and_out(xp, case):
    a = xp.asarray(numpy.arange(6.0).reshape(2, 3))
    if case == 0:
        return xp.sin.reduce(a)
    if case == 1:
        return xp.divmod.reduce(a)
    if case == 2:
        out = xp.zeros(3)
        r = xp.subtract.reduce(a, axis=0, out=out)
        return r is out, out
    if case == 3:
        return xp.subtract.reduce(xp.asarray([True, False]))
    return xp.bitwise_or.reduce(a)


# ---- accumulate --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "bitwise_xor", "bitwise_or", "logical_and",
                                  "subtract", "divide", "add", "multiply", "logaddexp", "power"])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.bool_, numpy.uint8], ids=str)
@pytest.mark.parametrize("axis", [0, 1])
@oracle(rtol=1e-12)
def test_accumulate(xp, name, dtype, axis):
    u = getattr(xp, name)
    a = xp.asarray(_operands(name, dtype, (5, 7)))
    return u.accumulate(a, axis=axis), u.accumulate(a[::-1, ::2], axis=axis)


@pytest.mark.parametrize("case", range(6))
@oracle()
def test_accumulate_options_and_errors(xp, case):
    a = xp.asarray(numpy.array([3, 1, 4, 1, 5, 9, 2, 6]))
    calls = [
        lambda: xp.maximum.accumulate(a, dtype=numpy.float32),
        lambda: xp.maximum.accumulate(a[:0]),
        lambda: xp.maximum.accumulate(xp.asarray(3)),
        lambda: xp.maximum.accumulate(a.reshape(2, 4), axis=None),
        lambda: xp.sin.accumulate(a),
        lambda: (lambda out: (xp.minimum.accumulate(a, out=out) is out, out))(xp.zeros(8, dtype=numpy.int64)),
    ]
    return calls[case]()


# ---- reduceat ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "bitwise_or"])
@pytest.mark.parametrize("indices", [[0, 4, 1, 5], [0, 3, 6], [7], [2, 2, 2], [5, 1]], ids=str)
@oracle()
def test_reduceat(xp, name, indices):
    u = getattr(xp, name)
    a = xp.asarray(make_array((8,), numpy.int64))
    m = xp.asarray(make_array((3, 8), numpy.int64, seed=2))
    return u.reduceat(a, indices), u.reduceat(m, indices, axis=1), u.reduceat(m.T, indices[:1] + [0], axis=0)


@pytest.mark.parametrize("case", range(5))
@oracle()
def test_reduceat_errors(xp, case):
    a = xp.arange(5.0)
    return [lambda: xp.add.reduceat(a, [0, 7]),
            lambda: xp.add.reduceat(a, [-1]),
            lambda: xp.add.reduceat(a, []),
            lambda: xp.add.reduceat(a, [[0, 1]]),
            lambda: xp.add.reduceat(a, [0, 2], dtype=numpy.float32)][case]()


# ---- at ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "bitwise_xor", "power", "divide"])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float64, numpy.complex128, numpy.uint8], ids=str)
@oracle(rtol=1e-12)
def test_at_repeated_indices(xp, name, dtype):
    u = getattr(xp, name)
    a = xp.asarray(_operands(name, dtype, (6,)))
    b = xp.asarray(_operands(name, dtype, (7,), seed=1))
    u.at(a, xp.asarray([0, 1, 1, 5, 1, 0, -1]), b)
    return a


@pytest.mark.parametrize("case", range(11))
@oracle()
def test_at_index_forms(xp, case):
    a = xp.asarray(make_array((3, 4), numpy.float64))
    calls = [
        lambda: xp.add.at(a, (xp.asarray([0, 0, 2]), xp.asarray([1, 1, 3])), 1.0),
        lambda: xp.add.at(a, xp.asarray([0, 0]), xp.asarray([1.0, 2.0, 3.0, 4.0])),
        lambda: xp.add.at(a, (slice(None), xp.asarray([0, 0, 3])), 1.0),
        lambda: xp.negative.at(a, xp.asarray([0, 0, 1])),
        lambda: xp.add.at(a, 1, 5.0),
        lambda: xp.multiply.at(a.T, (xp.asarray([1, 1]), xp.asarray([2, 2])), 3.0),
        lambda: xp.add.at(a, xp.asarray([3]), 1.0),
        lambda: xp.add.at(a, xp.asarray([0]), xp.asarray([1.0, 2.0, 3.0])),
        lambda: xp.add.at(a, xp.asarray([0])),
        lambda: xp.add.at(a, a > 0, 10.0),
        lambda: xp.add.at(a, xp.asarray([], dtype=numpy.int64), 1.0),
    ]
    calls[case]()
    return a


@pytest.mark.parametrize("case", range(3))
@oracle()
def test_at_casting(xp, case):
    a = xp.asarray(numpy.zeros(3, dtype=numpy.int32))
    [lambda: xp.add.at(a, xp.asarray([0, 0]), 1.5),
     lambda: xp.bitwise_or.at(xp.asarray(numpy.zeros(3)), xp.asarray([0]), 1),
     lambda: xp.add.at(a, xp.asarray([0, 2, 0]), xp.asarray([1, 2, 3], dtype=numpy.int8))][case]()
    return a


def test_at_matches_numpy_on_random_repeats(device):
    """Seeded programs: random targets, heavily repeated indices and values, several ufuncs."""
    for seed in range(30):
        rng = numpy.random.default_rng(seed)
        n = int(rng.integers(1, 8))
        idx = rng.integers(-n, n, size=int(rng.integers(0, 25)))
        name = ["add", "subtract", "multiply", "maximum", "bitwise_and"][seed % 5]
        dtype = numpy.int64 if name == "bitwise_and" else numpy.float64
        target = make_array((n,), dtype, seed=seed)
        vals = make_array(idx.shape, dtype, seed=seed + 1)

        def body(xp):
            a = xp.array(target)
            getattr(xp, name).at(a, xp.asarray(idx), xp.asarray(vals))
            return a
        run_both(body, device=device)


@pytest.mark.parametrize("case", range(4))
def test_at_with_pending_and_overlapping_operands(device, case):
    """at writes into `a` in place: a pending value computed from `a`, a view of `a` as the
    values, and a pending `a` itself see NumPy's values (the ones before the call)."""
    idx = numpy.array([0, 3, 3, 9, 0, 5, 5, 5])

    def body(xp):
        a = xp.asarray(numpy.arange(10.0), device=device) if xp is not numpy else numpy.arange(10.0)
        if case == 0:
            b = a[idx] * 2.0  # pending, reads a
            xp.add.at(a, xp.asarray(idx), b)
            return a, b
        if case == 1:
            xp.multiply.at(a, xp.asarray(idx[:5]), a[::-2])  # the values are a's own memory
            return a
        if case == 2:
            a = a * 3.0 + 1.0  # a pending a
            xp.subtract.at(a, xp.asarray(idx), 0.5)
            return a
        c = a + 0.0
        xp.maximum.at(a, xp.asarray(idx), xp.asarray(numpy.linspace(0, 20, idx.size)))
        return a, c
    run_both(body, device=device)


# ---- attributes ------------------------------------------------------------------------------

def test_attributes_match_numpy():
    nf = harness.numfuse_module()
    for name, u in nf._core.ufuncs.items():
        ref = getattr(numpy, name)
        assert (u.nin, u.nout, u.nargs) == (ref.nin, ref.nout, ref.nargs), name
        assert u.identity == ref.identity and type(u.identity) is type(ref.identity), name
        assert u.signature == ref.signature, name
        assert set(u.types) <= set(ref.types) and u.ntypes == len(u.types) > 0, name
        assert u.__name__ == name


@pytest.mark.parametrize("name", ["add", "sin", "maximum", "logical_and", "bitwise_xor", "divmod", "isnan"])
def test_every_listed_type_runs(name, device):
    """Each loop numfuse lists in `types` computes NumPy's result type for those inputs."""
    nf = harness.numfuse_module()
    u = getattr(nf, name)
    for t in u.types:
        ins, outs = t.split("->")
        args = [nf.asarray(numpy.ones(2, dtype=c), device=device) for c in ins]
        res = u(*args)
        res = res if isinstance(res, tuple) else (res,)
        expected = getattr(numpy, name)(*[numpy.ones(2, dtype=c) for c in ins])
        expected = expected if isinstance(expected, tuple) else (expected,)
        assert [r.dtype for r in res] == [e.dtype for e in expected], t


@pytest.mark.parametrize("shape", [(1,), (1, 1), ()], ids=str)
@oracle()
def test_integer_power_of_one_element_arrays(xp, shape):
    # The negative-exponent check read a one-element exponent array as a scalar of shape ().
    x = xp.asarray(numpy.full(shape, 2, dtype=numpy.int32))
    return xp.power(x, x + 1), xp.power(xp.arange(3), x), xp.power(x, -x)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.complex64, numpy.int8], ids=str)
@oracle()
def test_accumulate_max_min_with_nans(xp, name, dtype):
    # The core's scan nodes: NaN propagation (maximum) or avoidance (fmax) as NumPy's, no warning.
    h = make_array((4, 6), dtype)
    if h.dtype.kind in "fc":
        h[1, 2] = h[3, 0] = numpy.nan
    a = xp.asarray(h)
    u = getattr(xp, name)
    with numpy.errstate(all="raise"):
        return u.accumulate(a, axis=1), u.accumulate(a.T[::-1], axis=1), u.accumulate(a, axis=0, dtype=numpy.float64)


def test_methods_match_numpy_on_seeded_programs(device):
    """Seeded calls: a random binary ufunc, dtype, shape (0-d and empty included), axis,
    keepdims, initial and method, against NumPy (values, dtypes and exception classes)."""
    names = ["subtract", "bitwise_xor", "logaddexp", "hypot", "fmod", "copysign", "maximum",
             "logical_xor", "minimum", "add", "multiply", "floor_divide", "nextafter"]
    dtypes = [numpy.int8, numpy.uint16, numpy.int64, numpy.float32, numpy.float64, numpy.bool_]
    for seed in range(int(os.environ.get("NUMFUSE_UFUNC_METHOD_CASES", "120"))):
        rng = numpy.random.default_rng(seed)
        name = names[seed % len(names)]
        dtype = dtypes[int(rng.integers(len(dtypes)))]
        shape = tuple(int(n) for n in rng.integers(0, 4, size=rng.integers(0, 4)))
        data = make_array(shape, dtype, seed=seed, low=1 if name in ("fmod", "floor_divide") else None)
        method = ["reduce", "accumulate", "outer", "reduce_initial"][int(rng.integers(4))]
        axis = None if rng.random() < 0.2 else int(rng.integers(-len(shape) - 1, len(shape) + 1))
        keepdims = bool(rng.integers(2))

        def body(xp):
            u = getattr(xp, name)
            a = xp.asarray(data)
            with numpy.errstate(all="ignore"):
                if method == "reduce":
                    return u.reduce(a, axis=axis, keepdims=keepdims)
                if method == "reduce_initial":
                    return u.reduce(a, axis=axis, keepdims=keepdims, initial=1)
                if method == "accumulate":
                    return u.accumulate(a, axis=0 if axis is None else axis)
                return u.outer(a, a[..., :2] if a.ndim else a)
        if name in ("logaddexp", "hypot") and method.startswith("reduce") and dtype != numpy.bool_:
            pass  # floats fold in NumPy's order: exact match expected as well
        try:
            run_both(body, device=device, rtol=1e-5)
        except AssertionError as e:
            raise AssertionError(f"seed {seed} ({name}.{method}, {numpy.dtype(dtype)}, {shape}, "
                                 f"axis={axis}, keepdims={keepdims}): {e}") from None


@pytest.mark.parametrize("shape,axis", [((0, 0), 0), ((2, 0, 0), 1), ((0, 3), 1), ((3, 0), 0), ((0, 2, 0), (0, 2))], ids=str)
@pytest.mark.parametrize("call", ["max", "argmin", "fmax.reduce", "minimum.reduce", "hypot.reduce", "sum"])
@oracle()
def test_reductions_over_an_empty_axis(xp, shape, axis, call):
    # An empty reduced axis without an identity is NumPy's ValueError, even when the result is
    # empty too; with one (hypot, sum) the result is filled with it.
    a = xp.zeros(shape)
    if "." in call:
        name, method = call.split(".")
        return getattr(getattr(xp, name), method)(a, axis=axis)
    if call == "argmin" and isinstance(axis, tuple):
        return None
    return getattr(xp, call)(a, axis=axis)


@pytest.mark.parametrize("initial", [True, False, 2, 0])
@oracle()
def test_bool_max_min_take_initial(xp, initial):
    # A bool max/min started from its identity and ignored initial= (the CPU reducer's bool path).
    a = xp.asarray(numpy.array([[False, False], [False, True]]))
    big = xp.asarray(numpy.zeros(20000, dtype=bool))
    return (xp.max(a, axis=0, initial=initial), xp.min(a, axis=1, initial=initial),
            xp.maximum.reduce(a, axis=None, initial=initial), xp.max(big, initial=initial),
            xp.minimum.reduce(~big, initial=initial))
