"""numfuse.stencil's kept views (python/numfuse/_stencil_views.py): a repeated call on the same
arrays reuses the shifted views it made before. A kept view must mean what a new subscript would:
these seeded programs interleave stencil calls (with out=, allocating, in place, two inputs that
may be one array) with everything that could make a kept view stale: writes into the inputs and
outputs (slices, in-place operators, a base array the input views), swaps of which array is
which, pending and materialised inputs, layouts changed in place (strides swapped: a transpose
under the same object; resize, which takes new memory), and the kernel's global changed (to an
equal number in a new object too). The same program runs under NumPy with the stencil written
as slices (the oracle, tests/harness.py) and under numfuse; every array is compared at the end.
"""
import warnings

import numpy
import pytest

import harness

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")

COEFF = 0.25
N = 6


def five_point(a):
    return COEFF * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


def two_inputs(a, b):
    return a[0, -1] - b[0, 1] + a[1, 0] * 2.0


def smooth9(a):
    s = a[-1, -1]
    for i in range(-1, 2):
        for j in range(-1, 2):
            if i != -1 or j != -1:
                s += a[i, j]
    return s * numpy.float64(1.0 / 9.0)


def _five_slices(a):
    return COEFF * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])


def _two_slices(a, b):
    return a[:-1, :-2] - b[:-1, 2:] + a[1:, 1:-1] * 2.0


def _nine_slices(a):
    s = a[:-2, :-2]
    for i in range(3):
        for j in range(3):
            if i or j:
                s = s + a[i:N - 2 + i, j:N - 2 + j]
    return s * numpy.float64(1.0 / 9.0)


# name -> (kernel, slice-written value, interior, number of inputs)
KERNELS = {"five": (five_point, _five_slices, (slice(1, -1), slice(1, -1)), 1),
           "two": (two_inputs, _two_slices, (slice(0, -1), slice(1, -1)), 2),
           "nine": (smooth9, _nine_slices, (slice(1, -1), slice(1, -1)), 1)}


class _Slices:
    """The stencil written with slices over NumPy arrays (what numfuse.stencil must equal)."""

    def __init__(self, name):
        _, self.value, self.interior, _ = KERNELS[name]

    def __call__(self, *args, out=None):
        if out is None:
            out = numpy.zeros(args[0].shape)  # C order, as numfuse.stencil (and Numba) allocate
        out[self.interior] = self.value(*args)  # the value is computed before the write
        return out


def _transposed_in_place(xp, pool, i):
    if xp.is_numpy:
        pool[i] = pool[i].T  # NumPy's strides setter is deprecated: the same view, a new object
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pool[i].strides = pool[i].strides[::-1]  # the same object, another layout


def program(xp, seed):
    """A random program over four (N, N) float64 arrays (the last a view into `base`)."""
    global COEFF
    rng = numpy.random.default_rng(seed)
    base = xp.asarray(rng.random((N + 2, N + 2)))
    pool = [xp.asarray(rng.random((N, N))) for _ in range(3)] + [base[1:N + 1, 1:N + 1]]
    owns = [True, True, True, False]  # resize needs an array that owns its memory
    stencils = {name: _Slices(name) if xp.is_numpy else nf.stencil(KERNELS[name][0])
                for name in KERNELS}
    ops = ["out"] * 6 + ["alloc", "self", "write", "iadd", "assign", "swap", "pending", "eval",
                         "base", "transpose", "resize", "coeff"]
    try:
        for _ in range(40):
            op = ops[rng.integers(len(ops))]
            i, j, k = (int(x) for x in rng.integers(4, size=3))
            name = ("five", "two", "nine")[rng.integers(3)]
            st, nin = stencils[name], KERNELS[name][3]
            args = (pool[i],) if nin == 1 else (pool[i], pool[k])
            if op == "out":
                assert st(*args, out=pool[j]) is pool[j]
            elif op == "alloc":
                pool[j] = st(*args)
                owns[j] = True
            elif op == "self":  # out= the (first) input
                st(*((pool[j],) + args[1:]), out=pool[j])
            elif op == "write":
                r, c = (int(x) for x in rng.integers(N, size=2))
                pool[i][r:, c:c + 2] = float(rng.integers(-3, 4))
            elif op == "iadd":
                pool[i] += 1.5
            elif op == "assign":
                pool[i][...] = pool[j] * 0.5
            elif op == "swap":
                pool[i], pool[j] = pool[j], pool[i]
                owns[i], owns[j] = owns[j], owns[i]
            elif op == "pending":
                pool[i] = pool[j] + 1.0  # a new, pending array (until something evaluates it)
                owns[i] = True
            elif op == "eval" and not xp.is_numpy:
                nf.eval(pool[i])
            elif op == "base":
                base[int(rng.integers(N + 2)), :] = float(rng.integers(-3, 4))
            elif op == "transpose":
                _transposed_in_place(xp, pool, i)
                owns[i] = False  # NumPy's is a view now (and resize reads memory order)
            elif op == "resize" and owns[i]:
                pool[i].resize((N, N), refcheck=False)  # numfuse: new memory, the same values
            elif op == "coeff":
                # float(str(...)): an equal number in a new object (the value rule, not identity)
                COEFF = (0.25, -1.5, float(str(0.25)))[rng.integers(3)]
        return pool + [base]
    finally:
        COEFF = 0.25


def test_kept_views_mean_what_new_subscripts_mean(device, monkeypatch):
    from numfuse._stencil_views import ViewCache
    made = []
    make = ViewCache.make

    def counting(self, *args):
        entry = make(self, *args)
        made.append(entry is not None)
        return entry
    monkeypatch.setattr(ViewCache, "make", counting)
    harness.run_seeded_programs(program, range(60), device=device)
    assert sum(made) >= 30, f"the kept views were used {sum(made)} times: the test tests nothing"


def test_a_dropped_input_is_freed_and_its_entry_dropped(device):
    """The cache holds the inputs' memory through its views, never the array objects: a dropped
    input's entry goes with it (a weak reference's callback)."""
    import gc
    import weakref
    st = nf.stencil(five_point)
    a = nf.asarray(numpy.random.default_rng(1).random((N, N)), device=device)
    out = nf.zeros((N, N), device=device)
    for _ in range(4):
        st(a, out=out)
    assert len(st._views.entries) == 1
    nf.eval(out)  # pending writes may hold the first calls' views of `a`, which name it as base
    alive = weakref.ref(a)
    del a
    gc.collect()
    assert alive() is None and not st._views.entries


def test_a_changed_layout_under_the_same_object_is_seen(device):
    """`a.shape = ...` in place: the same object, another layout; the kept views are not used."""
    st = nf.stencil(five_point)
    host = numpy.random.default_rng(2).random((N, N))
    a = nf.asarray(host.copy(), device=device)
    for _ in range(4):
        got = nf.asnumpy(st(a))
    want = _Slices("five")(host)
    harness.compare(want, got)
    a.shape = (N // 2, 2 * N)
    host.shape = (N // 2, 2 * N)
    for _ in range(3):
        harness.compare(_Slices("five")(host), nf.asnumpy(st(a)))


SCALE = 2.0


def _scaled(x):
    return x * SCALE


def through_helper(a):
    return _scaled(a[0, 1]) - a[0, -1]


def _other_code(a):
    return a[0, 1] - a[-1, 0]


def _closure_kernel():
    c = 0.5

    def kernel(a):
        return c * a[0, 1] + a[1, 0]

    def set_c(value):
        nonlocal c
        c = value
    return kernel, set_c


def _run_ping_pong(st, host, device, steps, check):
    """`steps` calls st(a, out=b), st(b, out=a) ... (kept views from the third call), each
    compared with check(NumPy input) on the same data."""
    a, b = nf.asarray(host.copy(), device=device), nf.asarray(host.copy(), device=device)
    ha, hb = host.copy(), host.copy()
    for _ in range(steps):
        st(a, out=b)
        check(ha, hb)  # writes NumPy's interior of hb from ha
        harness.compare(hb, nf.asnumpy(b))
        a, b, ha, hb = b, a, hb, ha


def test_what_the_kernel_reads_from_outside_is_read_again(device):
    """A closure's variable, a global read by a function the kernel calls, and the kernel's code
    object itself, each changed between calls that would otherwise use the kept views."""
    global SCALE
    host = numpy.random.default_rng(3).random((N, N))
    kernel, set_c = _closure_kernel()
    st = nf.stencil(kernel)
    for c in (0.5, -3.0, 0.5):
        set_c(c)

        def closure_check(x, y, c=c):
            y[:-1, :-1] = c * x[:-1, 1:] + x[1:, :-1]
        _run_ping_pong(st, host, device, 5, closure_check)
    st = nf.stencil(through_helper)
    try:
        for s in (2.0, -1.0, float(str(-1.0))):
            SCALE = s

            def helper_check(x, y, s=s):
                y[:, 1:-1] = x[:, 2:] * s - x[:, :-2]
            _run_ping_pong(st, host, device, 5, helper_check)
    finally:
        SCALE = 2.0

    def replaced(a):
        return a[0, 1] + a[0, -1]
    st = nf.stencil(replaced)
    _run_ping_pong(st, host, device, 4, lambda x, y: y.__setitem__(
        (slice(None), slice(1, -1)), x[:, 2:] + x[:, :-2]))
    replaced.__code__ = _other_code.__code__  # the same object, another function

    def other_check(x, y):
        y[1:, :-1] = x[1:, 1:] - x[:-1, :-1]
    _run_ping_pong(st, host, device, 4, other_check)


def _constant(a):
    return 3.0


def _weights_only(a, w):
    return w[1] * 2.0 + a[0, 0] * 0.0


@pytest.mark.parametrize("kernel, standard, want", [
    (_constant, (), lambda x, w: numpy.full(x.shape, 3.0)),
    (_weights_only, ("w",), lambda x, w: w[1] * 2.0 + x * 0.0),
], ids=["constant", "weights"])
def test_values_that_need_broadcasting_on_the_kept_path(device, kernel, standard, want):
    """A kernel whose value is not an array of the interior's shape (a constant, a weight):
    _finish runs on the kept path too."""
    st = nf.stencil(kernel, standard_indexing=standard) if standard else nf.stencil(kernel)
    rng = numpy.random.default_rng(4)
    host, weights = rng.random((N, N)), rng.random(3)
    a, w = nf.asarray(host, device=device), nf.asarray(weights, device=device)
    args = (a, w) if standard else (a,)
    for _ in range(4):
        out = nf.zeros((N, N), device=device)
        assert st(*args, out=out) is out
        harness.compare(want(host, weights), nf.asnumpy(out))
        harness.compare(want(host, weights), nf.asnumpy(st(*args)))
    assert st._views.entries  # the kept path ran


def test_a_used_stencil_pickles_as_its_kernel_and_options(device):
    """Dask ships functions to workers with cloudpickle: the caches (weak references, kept views,
    generated replays) are not pickled; the copy computes the same."""
    import pickle
    st = nf.stencil(five_point, cval=-1.0)
    host = numpy.random.default_rng(5).random((N, N))
    a = nf.asarray(host, device=device)
    out = nf.zeros((N, N), device=device)
    for _ in range(4):
        st(a, out=out)
    assert st._views.entries
    copy = pickle.loads(pickle.dumps(st))
    assert copy.options == st.options and not copy._views.entries
    harness.compare(nf.asnumpy(st(a)), nf.asnumpy(copy(a)))


def _divides(a):
    return (a[0, 1] - a[0, -1]) / (a[1, 0] * 0.0) if a[0, 0] > 0.5 else a[-1, 0] / 2.0


@pytest.mark.parametrize("kernel, dtype", [(five_point, numpy.float64), (two_inputs, numpy.float32),
                                           (smooth9, numpy.float32), (_divides, numpy.float64)],
                         ids=["five", "two", "nine", "divides"])
def test_views_replay_is_the_stepwise_replay(device, kernel, dtype):
    """Trace.views_replay: the shifted subscripts taken out and given as views is the recording
    replayed step by step (the same graph and values), errstate runs included."""
    st = nf.stencil(kernel)
    rng = numpy.random.default_rng(6)
    nin = kernel.__code__.co_argcount
    # 300^2: small CPU arrays are computed at once, and explain would have no graph to show.
    args = tuple(nf.asarray(rng.random((300, 300)).astype(dtype), device=device)
                 for _ in range(nin))
    with numpy.errstate(all="ignore"):
        st(*args)  # recorded
        traces = [t for plan in st._plans.values() for t in plan[2].values()]
        assert traces
        for trace in traces:
            shifts, body = trace.views_replay()
            assert shifts, "no subscript was taken out"
            views = tuple(args[k][key] for k, key in shifts)
            got = body(args, views)
            want, _ = trace.replay_stepwise(list(args))
            got, want = getattr(got, "array", got), getattr(want, "array", want)
            assert nf.explain(got) == nf.explain(want) and "group 0" in nf.explain(got)
            harness.compare(nf.asnumpy(want), nf.asnumpy(got))
