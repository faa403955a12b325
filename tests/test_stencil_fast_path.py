"""numfuse.stencil's repeated calls (python/numfuse/_stencil.py's fast path) and recorded
translations replayed as one generated function (_translate_array_trace.py's _compile).

A call like an earlier one (same dtypes, shapes, scalars and outside values) skips the operand
wrappers and the plan and replays the recording: these tests change, between calls, each thing
the fast path's key or the recording's validity must notice (a scalar argument, a global the
kernel reads, which arguments are the same array, a weights array's values, the input's dtype,
a shape too small for the neighbourhood, a wrong out=) and compare every call with the kernel run
point by point in Python on NumPy values (Numba's border rule: the border is cval, or out's own
values with out=). The generated replay is compared with the step-by-step replay it replaces.
"""
import numpy
import pytest

import harness
from harness import compare, make_array

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")

COEFF = 0.25


def five_point(a):
    return COEFF * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


def smooth9(a):
    s = a[-1, -1]
    for i in range(-1, 2):
        for j in range(-1, 2):
            if i != -1 or j != -1:
                s += a[i, j]
    return s * numpy.float32(1.0 / 9.0)


def two_inputs(a, b):
    return a[0, -1] - b[0, 1] + a[1, 0] * 2.0


def scaled(a, t):
    return a[0, 1] * t if a[0, 0] > t else a[-1, 0] - t


def weighted(a, w):
    return w[0] * a[0, -1] + w[1] * a[0, 0] + w[2] * a[0, 1]


class _Point:
    """a[i, j] relative to one point of a NumPy array (the kernel run by Python, point by point)."""

    def __init__(self, array, at):
        self.array, self.at = array, at

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        return self.array[tuple(p + i for p, i in zip(self.at, index))]


def by_hand(kernel, arrays, nbhd, dtype, border, standard=()):
    """The stencil in Python over NumPy arrays: `border` (an array) outside the interior."""
    out = numpy.array(border, dtype=dtype, copy=True)
    first = next(a for k, a in enumerate(arrays) if k not in standard and isinstance(a, numpy.ndarray))
    ranges = [range(-lo, n - hi) for (lo, hi), n in zip(nbhd, first.shape)]
    for at in numpy.ndindex(*[len(r) for r in ranges]):
        point = tuple(r[k] for r, k in zip(ranges, at))
        args = [a if k in standard or not isinstance(a, numpy.ndarray) else _Point(a, point)
                for k, a in enumerate(arrays)]
        with numpy.errstate(all="ignore"):
            out[point] = kernel(*args)
    return out


def _traces(st):
    return [t for plan in st._plans.values() for t in plan[2].values()]


@pytest.mark.parametrize("kernel, dtype, nbhd", [
    (five_point, numpy.float64, ((-1, 1), (-1, 1))),
    (smooth9, numpy.float32, ((-1, 1), (-1, 1))),
], ids=["5-point", "9-point"])
def test_repeated_calls_with_out_follow_new_data(device, kernel, dtype, nbhd):
    st = nf.stencil(kernel)
    rng = numpy.random.default_rng(3)
    for step in range(4):  # the first call records, the others take the fast path
        host = rng.random((7, 9)).astype(dtype)
        border = rng.random((7, 9)).astype(dtype)
        a, out = nf.asarray(host, device=device), nf.asarray(border, device=device)
        r = st(a, out=out)
        assert r is out
        compare(by_hand(kernel, [host], nbhd, dtype, border), nf.asnumpy(out), rtol=1e-6)
        if step:
            assert len(st._fast) == 1 and len(_traces(st)) == 1
        got = nf.asnumpy(st(a))  # allocating: the border is zero
        compare(by_hand(kernel, [host], nbhd, dtype, numpy.zeros_like(host)), got, rtol=1e-6)


def test_a_changed_global_is_seen_by_the_next_call(device):
    global COEFF
    st = nf.stencil(five_point)
    host = make_array((6, 6), numpy.float64, seed=4)
    a = nf.asarray(host, device=device)
    try:
        for c in (0.25, 0.25, -2.0, 0.5, 0.5):
            COEFF = c
            want = by_hand(five_point, [host], ((-1, 1), (-1, 1)), numpy.float64, numpy.zeros_like(host))
            compare(want, nf.asnumpy(st(a)), rtol=1e-12)
    finally:
        COEFF = 0.25


def test_scalar_arguments_dtypes_and_shapes_key_the_fast_path(device):
    st = nf.stencil(scaled)
    rng = numpy.random.default_rng(5)
    for t, dtype, shape in [(0.5, numpy.float64, (5, 6)), (0.5, numpy.float64, (5, 6)),
                            (0.2, numpy.float64, (5, 6)), (numpy.float32(0.5), numpy.float32, (5, 6)),
                            (0.5, numpy.float32, (8, 4)), (1, numpy.int64, (5, 6)),
                            (True, numpy.int64, (5, 6)), (0.5, numpy.float64, (5, 6))]:
        host = (rng.random(shape) * 4).astype(dtype)
        r = st(nf.asarray(host, device=device), t)
        want_dtype = numpy.dtype(r.dtype)  # Numba's typing of the kernel's value (not this test's)
        want = by_hand(scaled, [host, t], ((-1, 0), (0, 1)), want_dtype, numpy.zeros(shape))
        compare(want, nf.asnumpy(r), rtol=1e-6)


def test_which_arguments_are_one_array_is_part_of_the_replay(device):
    st = nf.stencil(two_inputs)
    x = make_array((6, 7), numpy.float64, seed=6)
    y = make_array((6, 7), numpy.float64, seed=7)
    a, b = nf.asarray(x, device=device), nf.asarray(y, device=device)
    nbhd = ((0, 1), (-1, 1))
    for first, second, hx, hy in [(a, b, x, y), (a, a, x, x), (a, b, x, y), (b, b, y, y), (a, a, x, x)]:
        want = by_hand(two_inputs, [hx, hy], nbhd, numpy.float64, numpy.zeros_like(x))
        compare(want, nf.asnumpy(st(first, second)), rtol=1e-12)
    assert len(_traces(st)) == 2  # one recording per aliasing


def test_weights_are_read_anew_and_small_inputs_keep_the_border(device):
    st = nf.stencil(weighted, standard_indexing=("w",), cval=-1.0)
    host = make_array((4, 6), numpy.float64, seed=8)
    a = nf.asarray(host, device=device)
    for weights in ([0.25, 0.5, 0.25], [1.0, -1.0, 2.0], [0.0, 3.0, 0.0]):
        w = numpy.array(weights)
        want = by_hand(weighted, [host, w], ((0, 0), (-1, 1)), numpy.float64,
                       numpy.full(host.shape, -1.0), standard=(1,))
        compare(want, nf.asnumpy(st(a, nf.asarray(w, device=device))), rtol=1e-12)
    narrow = nf.asarray(numpy.ones((3, 2)), device=device)  # the neighbourhood does not fit
    for _ in range(2):
        compare(numpy.full((3, 2), -1.0), nf.asnumpy(st(narrow, nf.asarray(numpy.ones(3), device=device))))


def test_a_wrong_out_raises_on_every_call(device):
    st = nf.stencil(five_point)
    a = nf.asarray(make_array((5, 5), numpy.float64, seed=9), device=device)
    st(a, out=nf.zeros((5, 5), device=device))
    for bad in (nf.zeros((5, 4), device=device), numpy.zeros((5, 5)), None.__class__):
        with pytest.raises(ValueError, match="out must be a numfuse array of shape"):
            st(a, out=bad)
    with pytest.raises(TypeError, match="takes 1 arguments"):
        st(a, a)


@pytest.mark.parametrize("make", [
    lambda: (nf.vectorize(lambda x, y: x * 2 + y if x > 0 else -x * 0.5 - y), 2),
    lambda: (nf.vectorize(lambda x: (x + 1.0, x * 3)), 1),
], ids=["if-else", "tuple"])
def test_generated_replay_is_the_stepwise_replay(device, make):
    f, nargs = make()
    rng = numpy.random.default_rng(10)
    args = [nf.asarray(rng.standard_normal(16), device=device) for _ in range(nargs)]
    f(*args)  # recorded
    traces = list(f._caches[0].values())
    assert traces
    for trace in traces:
        fresh = [nf.asarray(rng.standard_normal(16), device=device) for _ in range(nargs)]
        got, got_mixed = trace.replay(fresh)
        want, want_mixed = trace.replay_stepwise(fresh)
        assert got_mixed == want_mixed
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = getattr(g, "array", g)
            w = getattr(w, "array", w)
            assert nf.explain(g) == nf.explain(w)
            compare(nf.asnumpy(w), nf.asnumpy(g))


def _scalar_left(op, c):
    """A stencil whose recording calls `c <op> array` with c a NumPy scalar on the left."""
    def add(a):
        return c + a[0, 1]

    def sub(a):
        return c - a[0, 1]

    def mul(a):
        return c * a[0, 1]

    def div(a):
        return c / a[0, 1]
    return {"add": add, "sub": sub, "mul": mul, "div": div}[op]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("cdtype", [numpy.float64, numpy.float32, numpy.int32, numpy.int64,
                                    numpy.bool_, numpy.complex64])
@pytest.mark.parametrize("adtype", [numpy.float32, numpy.float64, numpy.int16])
def test_a_numpy_scalar_on_the_left_replays_as_recorded(device, op, cdtype, adtype):
    """The generated replay calls the array's reflected operator for `numpy scalar <op> array`:
    the same dtype, node and values as the recorded call and as the step-by-step replay."""
    c = cdtype(3) if cdtype is not numpy.bool_ else numpy.bool_(True)
    if op == "sub" and cdtype is numpy.bool_:
        c = numpy.int8(3)
    st = nf.stencil(_scalar_left(op, c))
    host = (make_array((4, 5), numpy.float64, seed=11) * 4 + 5).astype(adtype)  # no zero divisors
    a = nf.asarray(host, device=device)
    with numpy.errstate(all="ignore"):
        first = nf.asnumpy(st(a))  # interpreted and recorded
        again = nf.asnumpy(st(a))  # the fast path: the generated replay
        (trace,) = _traces(st)
        got, _ = trace.replay([a])
        want, _ = trace.replay_stepwise([a])
    reflected = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__"}[op]
    constants = list(trace.compiled.__globals__.values())
    if numpy.dtype(cdtype).kind in "fc" and numpy.dtype(cdtype) == numpy.dtype(adtype):
        # A scalar of the array's own dtype replays as the Python number (the same node).
        assert any(type(v) in (float, complex) and v == c for v in constants)
    else:
        assert getattr(nf.ndarray, reflected) in constants  # the path taken
    assert first.dtype == again.dtype
    numpy.testing.assert_array_equal(first, again)
    got, want = getattr(got, "array", got), getattr(want, "array", want)
    assert got.dtype == want.dtype and nf.explain(got) == nf.explain(want)
    numpy.testing.assert_array_equal(nf.asnumpy(got), nf.asnumpy(want))


def test_the_replayed_value_is_held_by_nothing_but_the_write(device, monkeypatch):
    """`out[interior] = value` computes the value into out in place only when nothing but the
    interpreter's stack holds it (NumPy's temporary elision test, python/src/bind_indexing.cpp);
    a second holder (the replay's result tuple) made an array of its own and a copying pass. The
    references _finish sees on the fast path must be those of the first call's (known-good) path."""
    import sys

    from numfuse._stencil import StencilFunc
    seen = []
    finish = StencilFunc._finish

    def counting(body, target, dtype):
        seen.append(sys.getrefcount(body))
        return finish(body, target, dtype)
    monkeypatch.setattr(StencilFunc, "_finish", staticmethod(counting))
    st = nf.stencil(five_point)
    a = nf.asarray(make_array((6, 6), numpy.float64, seed=12), device=device)
    out = nf.zeros((6, 6), device=device)
    for _ in range(3):  # recorded (the full path), then the fast path twice
        st(a, out=out)
    assert len(st._fast) == 1 and len(seen) == 3
    assert seen[1] == seen[2] == seen[0], seen


def test_out_as_the_input_reads_the_values_before_the_write(device):
    """st(a, out=a) on the full path and then on the fast path: every interior value is computed
    from the input as it was before the call (the slice-written `a[1:-1, 1:-1] = f(a)`)."""
    st = nf.stencil(smooth9)
    host = make_array((7, 8), numpy.float32, seed=13)
    a = nf.asarray(host, device=device)
    for _ in range(3):
        want = by_hand(smooth9, [host], ((-1, 1), (-1, 1)), numpy.float32, host)
        assert st(a, out=a) is a
        host = nf.asnumpy(a)
        compare(want, host, rtol=1e-6)


def test_vectorize_out_into_its_input_a_view_and_a_wrong_shape(device):
    """numfuse.vectorize(signatures)(..., out=): the value goes straight into out (computed in
    place where it can); into its own input, a strided view, and a shape it cannot broadcast to."""
    f = nf.vectorize(["float64(float64, float64)"])(lambda x, y: x * 2.0 - y if x > y else y)
    rng = numpy.random.default_rng(14)
    x, y = rng.standard_normal(12), rng.standard_normal(12)
    want = numpy.where(x > y, x * 2.0 - y, y)
    a = nf.asarray(x, device=device)
    for _ in range(2):  # recorded, then replayed
        a = nf.asarray(x, device=device)
        assert f(a, nf.asarray(y, device=device), out=a) is a
        compare(want, nf.asnumpy(a))
    big = nf.zeros(24, device=device)
    f(nf.asarray(x, device=device), y, out=big[::2])
    compare(want, nf.asnumpy(big)[::2])
    compare(numpy.zeros(12), nf.asnumpy(big)[1::2])
    with pytest.raises(ValueError, match="broadcast"):
        f(nf.asarray(x, device=device), y, out=nf.zeros(5, device=device))
