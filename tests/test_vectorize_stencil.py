"""numfuse.vectorize, frompyfunc and numfuse.stencil: a Python function translated into nodes of the
lazy graph (python/numfuse/_translate_array.py), compared with NumPy.

vectorize against numpy.vectorize of the same function (every dtype family, 0-d, empty, broadcast
and non-contiguous operands, NumPy's first-element dtype rule, otypes, excluded, errors); that the
translated calls are pending nodes fusing with the expressions around them (one group), with
fusion on and off; a seeded generator of small functions (expression trees with if/else) against
numpy.vectorize. The stencil against the slice-written computation in NumPy and a hand loop with
Numba's border rule, its options (neighborhood, cval, standard_indexing, out=) and its errors.
"""
import linecache
import math
import os
import re
import subprocess
import sys
import warnings

import numpy
import pytest

import harness
from harness import ALL_DTYPES, compare, make_array, oracle

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")


@pytest.fixture(params=[True, False], ids=["fused", "unfused"])
def fusion(request):
    before = nf._core.fusion_enabled()
    nf._core.set_fusion(request.param)
    yield request.param
    nf._core.set_fusion(before)


# ---- functions as users write them -----------------------------------------------------------

def poly(x, y):
    t = x * 2 + y
    return t * t - x


def branchy(x, y):
    if x > y:
        return x - y
    elif x == y:
        return y
    return y - x


def assigned_in_branches(x, y):
    if x > 1:
        z = x * 3
    else:
        z = y + 1
    z += 1
    return z


def assigns_then_returns(x, y):
    z = y
    if x > 0:
        z = x * 2  # must not leak into the path where x <= 0
        return z + y
    return z - x


def unrolled(x, y):
    s = x
    for k in range(3):
        if k % 2 == 0:  # a Python condition: one branch, as Python runs it
            s = s + y * k
        else:
            s = s - 1
    return s


def with_min_max_abs(x, y):
    return max(abs(x), y) - min(x, y)


def with_bool_ops(x, y):
    return (x > 0 and y > 0) or not (x < y)


def conditional_constant(x, y):
    return x if x > 0 else 0  # the dtype depends on the first element (NumPy's rule)


def with_math(x, y):
    return math.sqrt(abs(x)) + math.floor(y) * math.pi


def two_outputs(x, y):
    return x + y, x * y


def helper(v):
    return v * v + 1


def calls_helper(x, y):
    return helper(x) - helper(y)


def data_dependent_loop(x, y):
    n = 0
    while x > n:  # a loop on an element's value: no array form, numpy.vectorize's path
        n += 1
    return n + y


TRANSLATED = [poly, branchy, assigned_in_branches, assigns_then_returns, unrolled, with_min_max_abs, with_bool_ops,
              conditional_constant, calls_helper]


def _first_sign_cases():
    return [("positive first", 1.0), ("negative first", -1.0)]


@pytest.mark.parametrize("func", TRANSLATED + [two_outputs, data_dependent_loop],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_vectorize_matches_numpy(xp, func, dtype):
    if func is data_dependent_loop and numpy.dtype(dtype).kind == "c":
        pytest.skip("complex values have no order in Python's while")
    a = xp.asarray(make_array((3, 4), dtype, seed=1))
    b = xp.asarray(make_array((3, 4), dtype, seed=2))
    f = xp.vectorize(func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # integer overflow of scalars vs arrays
        return f(a, b), f(a.T[::-1], b[0][:, None]), f(a[1, 2], 3)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int16, numpy.int64,
                                   numpy.uint8, numpy.bool_], ids=str)
@oracle()
def test_vectorize_math(xp, dtype):
    a = xp.asarray(make_array((5, 3), dtype, seed=3))
    return xp.vectorize(with_math)(a, a[::-1])


@pytest.mark.parametrize("first", [1.0, -1.0], ids=["positive-first", "negative-first"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int8, numpy.uint16], ids=str)
@oracle()
def test_first_element_rule(xp, first, dtype):
    data = make_array((7,), dtype, seed=4)
    data[0] = first if numpy.dtype(dtype).kind != "u" else (first > 0)
    a = xp.asarray(data)
    f = xp.vectorize(lambda x: x * 1.5 if x > 0 else 0)  # float or Python int per element
    g = xp.vectorize(lambda x: x * 1.5 if x > 0 else 0, otypes=[numpy.float32])
    return f(a), g(a)


@oracle()
def test_vectorize_zero_d_empty_broadcast(xp):
    f = xp.vectorize(poly)
    g = xp.vectorize(poly, otypes=[numpy.int32])
    a = xp.asarray(make_array((4, 1, 3), numpy.float64))
    b = xp.asarray(make_array((5, 1), numpy.float64))
    return (f(a, b), f(2.5, 1), g(xp.zeros((0, 3)), 1.0), f(xp.asarray(3.0), xp.asarray(4.0)),
            f(a[::2, :, ::-1], b[::3]), xp.vectorize(lambda x, y: 1.5)(a, b))


@oracle()
def test_vectorize_empty_without_otypes_raises(xp):
    return xp.vectorize(poly)(xp.zeros((0,)), 1.0)


@oracle()
def test_vectorize_broadcast_error(xp):
    return xp.vectorize(poly)(xp.ones((3,)), xp.ones((4,)))


@oracle()
def test_vectorize_keywords_excluded_and_identity(xp):
    def scaled(x, c, offset=0.5):
        return x * c[0] + offset
    a = xp.asarray(make_array((6,), numpy.float32))
    f = xp.vectorize(scaled, excluded={1, "offset"})
    ident = xp.vectorize(lambda x: x)
    r = ident(a)
    return f(a, [2.0]), f(a, [3.0], offset=1.0), f(x=a, c=[1.0]), r, r is not a


@oracle()
def test_vectorize_complex_to_float_otypes_raises(xp):
    a = xp.asarray(make_array((3,), numpy.complex128))
    return xp.vectorize(lambda x: x * 2, otypes=[float])(a)


def test_discarded_branch_does_not_warn():
    x = numpy.array([0.0, 2.0, -4.0])
    f = nf.vectorize(lambda v: 1.0 / v if v != 0 else 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nf.asnumpy(f(nf.asarray(x)))
    compare(numpy.vectorize(lambda v: 1.0 / v if v != 0 else 0.0)(x), got)


# ---- translated and fused, not called per element ---------------------------------------------

@pytest.mark.parametrize("func", TRANSLATED, ids=lambda f: f.__name__)
def test_translated_call_is_one_fused_group(func, lazy_graph, fusion):
    x = nf.asarray(make_array((40,), numpy.float64, seed=5))
    y = nf.asarray(make_array((40,), numpy.float64, seed=6))
    f = nf.vectorize(func)
    want = numpy.vectorize(func)(nf.asnumpy(x), nf.asnumpy(y)) * 2 + 1
    for _ in range(2):  # recorded, then replayed: the same graph
        r = f(x, y) * 2 + 1
        assert r._pending, "the call ran per element instead of joining the graph"
        plan = nf.explain(r)
        if fusion and func is not conditional_constant:  # that one reads its first element
            assert "in 1 group(s)" in plan, plan
        compare(want, nf.asnumpy(r), rtol=1e-12)


def test_untranslatable_function_runs_per_element(lazy_graph):
    x = nf.asarray(numpy.arange(5.0))
    r = nf.vectorize(data_dependent_loop)(x, 1.0)
    assert not r._pending
    compare(numpy.vectorize(data_dependent_loop)(numpy.arange(5.0), 1.0), nf.asnumpy(r))


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.float64, numpy.float32, numpy.bool_], ids=str)
def test_frompyfunc_translated(dtype, lazy_graph):
    data = make_array((3, 4), dtype, seed=7)
    funcs = [lambda x, y: x * y + 1, lambda x, y: x if x > y else y, lambda x, y: float(x) - y]
    for fn in funcs:
        got = nf.frompyfunc(fn, 2, 1)(nf.asarray(data), nf.asarray(data[::-1]))
        assert got._pending
        want = numpy.frompyfunc(fn, 2, 1)(data, data[::-1])
        compare(numpy.array(want.tolist()), nf.asnumpy(got))


# ---- Numba-style signatures ---------------------------------------------------------------------

def test_numba_signatures_pick_the_first_safe_loop(lazy_graph):
    @nf.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
    def axpy(a, b):
        return a * 2 + b
    x32 = make_array((6,), numpy.float32, seed=8)
    x64 = x32.astype(numpy.float64)
    r32, r64 = axpy(nf.asarray(x32), nf.asarray(x32)), axpy(nf.asarray(x64), x64)
    assert r32.dtype == numpy.float32 and r64.dtype == numpy.float64
    assert r32._pending and "in 1 group(s)" in nf.explain(r32 + 1)
    # Numba computes the body in float64 (the literal 2) and casts to the signature's float32.
    compare((x64 * 2 + x64).astype(numpy.float32), nf.asnumpy(r32))
    compare(x64 * 2 + x64, nf.asnumpy(r64))
    ints = axpy(nf.asarray(numpy.arange(4, dtype=numpy.int16)), 1)  # int16 casts safely to f32
    assert ints.dtype == numpy.float32
    assert axpy.types == ["ff->f", "dd->d"] and axpy.ntypes == 2 and axpy.__name__ == "axpy"


def test_numba_signature_without_a_loop_raises():
    f = nf.vectorize("float32(float32)")(lambda x: x + 1)
    with pytest.raises(TypeError, match="not supported for the input types"):
        f(nf.asarray(numpy.arange(3, dtype=numpy.int64)))
    with pytest.raises(TypeError, match="signature"):
        nf.vectorize(["float32 float32"])(lambda x: x)
    with pytest.raises(TypeError, match="takes 1"):
        nf.vectorize(["float64(float64, float64)"])(lambda x: x)


def test_numba_integer_arithmetic_is_64_bit():
    f = nf.vectorize(["int64(int32, int32)"])(lambda a, b: a * b)
    a = numpy.array([2**20, -3, 7], dtype=numpy.int32)
    compare(a.astype(numpy.int64) * a.astype(numpy.int64), nf.asnumpy(f(nf.asarray(a), a)))
    out = nf.zeros(3, dtype=numpy.int64)
    assert f(nf.asarray(a), a, out=out) is out
    compare(a.astype(numpy.int64) ** 2, nf.asnumpy(out))


# ---- a seeded generator of small functions ------------------------------------------------------

_LEAVES = ["x", "y", "1", "2", "0.5", "-3"]


def _expr(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return _LEAVES[rng.integers(len(_LEAVES))]
    kind = rng.integers(6)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    if kind == 0:
        return f"({a} {['+', '-', '*'][rng.integers(3)]} {b})"
    if kind == 1:
        c = f"{_expr(rng, depth - 1)} {['<', '>=', '==', '!='][rng.integers(4)]} {a}"
        return f"({a} if {c} else {b})"
    if kind == 2:
        return f"{['min', 'max'][rng.integers(2)]}({a}, {b})"
    if kind == 3:
        return f"abs({a})"
    if kind == 4:
        return f"(-{a})"
    return f"({a} * 0.25 + {b})"


def _function_source(rng, name):
    lines = [f"def {name}(x, y):", f"    t = {_expr(rng, 2)}"]
    if rng.random() < 0.6:
        lines += [f"    if {_expr(rng, 1)} > {_expr(rng, 1)}:", f"        t = t + {_expr(rng, 2)}",
                  "    else:", f"        t = {_expr(rng, 1)} - t"]
    if rng.random() < 0.5:
        lines += [f"    if t < {_expr(rng, 1)}:", f"        t = {_expr(rng, 1)} * t",
                  f"        return {_expr(rng, 2)} + t"]
    lines.append(f"    return {_expr(rng, 2)} + t")
    return "\n".join(lines) + "\n"


def _compile(source, name):
    """A function whose source inspect can find (linecache), as if it came from a file."""
    filename = f"<generated {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    space = {}
    exec(compile(source, filename, "exec"), space)
    return space[name]


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int64, numpy.int32],
                         ids=str)
def test_generated_functions_match_numpy_vectorize(dtype, lazy_graph):
    rng = numpy.random.default_rng(1234)
    x = make_array((4, 5), dtype, seed=9)
    y = make_array((5,), dtype, seed=10)
    translated = 0
    for case in range(60):
        name = f"gen_{numpy.dtype(dtype).name}_{case}"
        source = _function_source(rng, name)
        func = _compile(source, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = numpy.vectorize(func)(x, y)
            got = nf.vectorize(func)(nf.asarray(x), nf.asarray(y))
            translated += bool(got._pending)
            got = nf.asnumpy(got)
        try:
            compare(want, got, rtol=1e-5 if dtype == numpy.float32 else 1e-12)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{source}") from None
    assert translated >= 50, translated  # the first-element rule reads some; most stay lazy


# ---- stencil ------------------------------------------------------------------------------------

def _hand_loop(kernel, args, nbhd, cval, dtype):
    """Numba's semantics by hand: the kernel at every point whose neighbourhood fits, on Python
    numbers (Numba's 64-bit arithmetic), cval elsewhere."""
    first = next(a for a in args if isinstance(a, numpy.ndarray))
    out = numpy.full(first.shape, cval, dtype=dtype)

    class Rel:
        def __init__(self, a, at):
            self.a, self.at = a, at

        def __getitem__(self, idx):
            idx = idx if isinstance(idx, tuple) else (idx,)
            return self.a[tuple(p + i for p, i in zip(self.at, idx))].item()

    ranges = [range(-lo, n - hi) for (lo, hi), n in zip(nbhd, first.shape)]
    for at in numpy.ndindex(*[len(r) for r in ranges]):
        p = tuple(r[i] for r, i in zip(ranges, at))
        out[p] = kernel(*[Rel(a, p) if isinstance(a, numpy.ndarray) else a for a in args])
    return out


def five_point(a):
    return 0.25 * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


def nine_point(a):
    s = 0.0
    for i in range(-1, 2):
        for j in range(-1, 2):
            s += a[i, j]
    return s / 9.0


def one_sided(a, b):
    return a[0, 2] - b[1, 0] * 2


def weighted(a, w):
    return w[0] * a[-1] + w[1] * a[0] + w[2] * a[1]


def thresholded(a, t):
    v = a[0, 0] + a[0, 1]
    if v > t:
        return v - t
    return -v


STENCILS = [
    # kernel, stencil options, input shapes, output dtype by Numba's rules for float64 / int32 input
    (five_point, {}, [(9, 11)]),
    (nine_point, {"neighborhood": ((-1, 1), (-1, 1))}, [(8, 7)]),
    (one_sided, {"cval": 7}, [(6, 8), (6, 8)]),
    (thresholded, {}, [(5, 6)]),
]


@pytest.mark.parametrize("kernel,options,shapes", STENCILS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.uint8,
                                   numpy.int64, numpy.complex64, numpy.bool_], ids=str)
def test_stencil_matches_a_hand_loop(kernel, options, shapes, dtype, fusion):
    if kernel is thresholded and dtype in (numpy.uint8, numpy.complex64, numpy.bool_):
        pytest.skip("-v of Numba's uint64 wraps (the hand loop's Python ints do not); Numba "
                    "has no order of complex values; -bool is not an operation")
    arrays = [make_array(s, dtype, seed=11 + k) for k, s in enumerate(shapes)]
    args = arrays + ([2] if kernel is thresholded else [])
    st = nf.stencil(**options)(kernel)
    got = st(*[nf.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args])
    nbhd = st.neighborhood
    want = _hand_loop(kernel, args, nbhd, options.get("cval", 0), got.dtype)
    # The hand loop adds in float64 where Numba (and numfuse) add float32 elements in float32.
    if dtype in (numpy.float32, numpy.complex64):
        numpy.testing.assert_allclose(nf.asnumpy(got), want, rtol=1e-5, atol=1e-6)
    else:
        compare(want, nf.asnumpy(got), rtol=1e-12)
    # Numba's types: float literals are float64, integer arithmetic 64-bit.
    kind = numpy.dtype(dtype).kind
    if kind == "c":  # complex64 with a float64 or int64 literal is complex128 in Numba
        assert got.dtype == numpy.complex128, got.dtype
        return
    numba_like = {five_point: numpy.float64, nine_point: numpy.float64,
                  one_sided: numpy.float64 if numpy.dtype(dtype).kind == "f" else numpy.int64,
                  thresholded: numpy.float64 if numpy.dtype(dtype).kind == "f" else
                  (numpy.uint64 if numpy.dtype(dtype).kind == "u" else numpy.int64)}[kernel]
    if not (kernel is thresholded and numpy.dtype(dtype).kind == "f"):
        assert got.dtype == numba_like, (got.dtype, numba_like)


@pytest.mark.parametrize("view", ["contiguous", "transposed", "strided"])
def test_stencil_equals_the_slice_written_stencil(view, fusion):
    base = make_array((13, 16), numpy.float64, seed=12)
    a = {"contiguous": base, "transposed": base.T, "strided": base[::2, ::3]}[view]
    want = numpy.zeros_like(a)
    want[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    src = nf.asarray(base)
    src = {"contiguous": src, "transposed": src.T, "strided": src[::2, ::3]}[view]
    got = nf.stencil(five_point)(src)
    numpy.testing.assert_array_equal(want, nf.asnumpy(got))  # the same operations in the same order


def test_stencil_options_out_standard_indexing_and_small_inputs():
    a = make_array((10,), numpy.float64, seed=13)
    w = numpy.array([0.25, 0.5, 0.25])
    st = nf.stencil(standard_indexing=("w",))(weighted)
    want = numpy.zeros_like(a)
    want[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    numpy.testing.assert_allclose(nf.asnumpy(st(nf.asarray(a), nf.asarray(w))), want, rtol=1e-15)
    out = nf.full((10,), -5.0)
    assert st(nf.asarray(a), nf.asarray(w), out=out) is out
    want[[0, -1]] = -5.0  # out=: the border is left as it was
    numpy.testing.assert_allclose(nf.asnumpy(out), want, rtol=1e-15)
    tiny = nf.stencil(cval=3.0)(five_point)(nf.ones((2, 5)))  # no interior: all cval
    numpy.testing.assert_array_equal(nf.asnumpy(tiny), numpy.full((2, 5), 3.0))

    @nf.stencil
    def cube(a):
        return a[-1, 0, 1] + a[1, 1, -1] - a[0, 0, 0]
    c = make_array((4, 5, 6), numpy.int16, seed=14)
    want = numpy.zeros(c.shape, numpy.int64)
    c64 = c.astype(numpy.int64)
    want[1:-1, 0:-1, 1:-1] = c64[:-2, :-1, 2:] + c64[2:, 1:, :-2] - c64[1:-1, :-1, 1:-1]
    numpy.testing.assert_array_equal(nf.asnumpy(cube(nf.asarray(c))), want)


def test_stencil_errors_at_the_call():
    with pytest.raises(ValueError, match="Unsupported mode"):
        nf.stencil("reflect")
    with pytest.raises(TypeError, match="unknown option"):
        nf.stencil(boundary=1)(five_point)

    @nf.stencil
    def reads_data(a):
        return a[int(a[0, 0]), 0]
    with pytest.raises(NotImplementedError, match=r"test_vectorize_stencil.py:\d+: .*element's value"):
        reads_data(nf.ones((4, 4)))

    @nf.stencil
    def calls_unknown(a):
        return print(a[0, 0])
    with pytest.raises(NotImplementedError, match=r"test_vectorize_stencil.py:\d+: a call to"):
        calls_unknown(nf.ones((4, 4)))
    with pytest.raises(ValueError, match="2 relative indices into a 1-dimensional"):
        nf.stencil(five_point)(nf.ones(5))
    with pytest.raises(ValueError, match="one shape"):
        nf.stencil(one_sided)(nf.ones((4, 4)), nf.ones((4, 5)))
    with pytest.raises(ValueError, match="1 dimensional neighborhood specified for 2"):
        nf.stencil(neighborhood=((-1, 1),))(five_point)(nf.ones((4, 4)))
    with pytest.raises(ValueError, match="outside the neighborhood"):
        nf.stencil(neighborhood=((0, 1), (0, 1)))(five_point)(nf.ones((4, 4)))
    with pytest.raises(ValueError, match="cval type does not match"):
        nf.stencil(cval=1j)(five_point)(nf.ones((4, 4)))


def _trace_groups(code, path):
    """The groups NUMFUSE_TRACE reports for a script (a file: the stencil reads its source)."""
    path.write_text("import numfuse as np, numpy\n" + code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NUMFUSE_TRACE="1")
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return re.findall(r"node\(s\) \[([^\]]*)\]", r.stderr)


def test_stencil_runs_the_slice_written_groups(tmp_path):
    setup = "a = np.asarray(numpy.random.default_rng(0).random((64, 64)))\n"
    sliced = _trace_groups(setup + "b = np.zeros((64, 64))\n"
                           "b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + "
                           "a[1:-1, 2:])\nnp.eval(b)", tmp_path / "sliced.py")
    stencil = _trace_groups(setup + "k = np.stencil(lambda a: 0.25 * (a[-1, 0] + a[1, 0] + "
                            "a[0, -1] + a[0, 1]))\nnp.eval(k(a))", tmp_path / "stencil.py")
    assert stencil == sliced and any("add" in g for g in stencil), (stencil, sliced)


SCALE = 2


def scaled_by_global(x):
    return x * SCALE


def test_cached_types_follow_a_changed_global():
    global SCALE
    f = nf.vectorize(scaled_by_global)
    a = numpy.arange(4, dtype=numpy.int64)
    try:
        first = f(nf.asarray(a))
        SCALE = 2.5  # the result type changes with it
        second = f(nf.asarray(a))
    finally:
        SCALE = 2
    compare(a * 2, nf.asnumpy(first))
    compare(numpy.vectorize(lambda x: x * 2.5)(a), nf.asnumpy(second))


# ---- recorded translations replayed (_translate_array_trace.py) ---------------------------------

PARAMS = [2.0]


def reads_a_list(x):
    return x * PARAMS[0]


def test_replayed_calls_follow_new_data_aliasing_and_mutable_objects(lazy_graph):
    rng = numpy.random.default_rng(15)
    f = nf.vectorize(branchy)
    for _ in range(3):  # the first call records, the others replay
        x, y = rng.standard_normal(8), rng.standard_normal(8)
        compare(numpy.vectorize(branchy)(x, y), nf.asnumpy(f(nf.asarray(x), nf.asarray(y))))
    assert len(f._caches[0]) == 1
    same = nf.asarray(x)
    compare(numpy.vectorize(branchy)(x, x), nf.asnumpy(f(same, same)))  # x, x: its own recording
    assert len(f._caches[0]) == 2
    g = nf.vectorize(reads_a_list)
    try:
        first = nf.asnumpy(g(nf.asarray(x)))
        PARAMS[0] = -3.0  # the list is read by value: the call must see the change
        second = nf.asnumpy(g(nf.asarray(x)))
    finally:
        PARAMS[0] = 2.0
    compare(x * 2.0, first)
    compare(x * -3.0, second)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = nf.vectorize(lambda v: 1.0 / v if v != 0 else 0.0)
        for _ in range(2):  # the replay keeps the discarded branch quiet too
            nf.asnumpy(h(nf.asarray(numpy.array([0.0, 2.0]))))


def test_replayed_stencil_follows_scalar_arguments(fusion):
    st = nf.stencil(thresholded)
    a = make_array((6, 7), numpy.float64, seed=16)
    for t in (2.0, 2.0, -1.0, 0.5):
        got = nf.asnumpy(st(nf.asarray(a), t))
        want = _hand_loop(thresholded, [a, t], st.neighborhood, 0, numpy.float64)
        compare(want, got, rtol=1e-12)


@pytest.fixture
def gpu_fp_checks():
    """The GPU's floating-point checks are opt-in (numfuse.cuda.set_fp_checks): on for a test."""
    cuda = getattr(nf, "cuda", None)
    if cuda is None or not cuda.is_available():
        yield
        return
    before = cuda.fp_checks_enabled()
    cuda.set_fp_checks(True)
    yield
    cuda.set_fp_checks(before)


def test_division_by_zero_of_python_numbers_raises(lazy_graph, gpu_fp_checks):
    """Python raises ZeroDivisionError where NumPy's array division warns: numpy.vectorize
    raises it; numfuse raises too (FloatingPointError when the value is read, or NumPy's own
    error when the call falls back), never returning inf."""
    x = numpy.array([1.0, 0.0, 2.0])
    f = nf.vectorize(lambda v: 1.0 / v)
    with pytest.raises(ZeroDivisionError):
        numpy.vectorize(lambda v: 1.0 / v)(x)
    for _ in range(2):  # recorded, then replayed
        with pytest.raises(ArithmeticError):
            nf.asnumpy(f(nf.asarray(x)))
    compare(1.0 / x[[0, 2]], nf.asnumpy(f(nf.asarray(x[[0, 2]]))))
    i = numpy.array([3, 0, 2])
    with pytest.raises(ArithmeticError):
        nf.asnumpy(nf.vectorize(lambda v: 7 % v)(nf.asarray(i)))


def test_numba_style_without_signatures_and_untranslatable_fallback(lazy_graph):
    @nf.vectorize(target="cpu")
    def scale(a, b):
        return a * 3 + b  # Numba: int32 * int64 literal is int64
    a = numpy.arange(5, dtype=numpy.int32)
    r = scale(nf.asarray(a), nf.asarray(a))
    assert r._pending and r.dtype == numpy.int64
    compare(a.astype(numpy.int64) * 3 + a, nf.asnumpy(r))

    @nf.vectorize(["float32(float64)"])
    def count_up(x):
        n = 0.0
        while n < x:  # a loop on the element's value: per element on the host, same results
            n += 1.0
        return n
    x = numpy.array([0.5, 2.0, 3.5])
    got = count_up(nf.asarray(x))
    assert got.dtype == numpy.float32
    compare(numpy.ceil(x).astype(numpy.float32), nf.asnumpy(got))
