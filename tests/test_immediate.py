"""Immediate evaluation of small CPU ops (NUMFUSE_IMMEDIATE_MAX): an op whose inputs are all
materialised and whose work is small runs in the call, as NumPy's does, instead of joining the
graph; everything else stays pending and fuses. The values are NumPy's either way (the property
tests of test_aliasing_properties.py run every program both ways); here: which ops run at once,
the threshold, errors at the call, out= and host views."""
import os
import subprocess
import sys

import numpy
import pytest

import harness

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")


@pytest.fixture
def limit():
    before = nf._core.immediate_max()
    nf._core.set_immediate_max(1000)
    yield 1000
    nf._core.set_immediate_max(before)


def same(got, want):
    harness.compare(numpy.asarray(want), harness.to_numpy(nf, got))


def materialised(values):
    a = nf.asarray(values, device="cpu")  # immediate evaluation is the CPU's
    nf.eval(a)
    return a


@pytest.mark.parametrize("n", [0, 1, 999, 1000])
def test_small_ops_on_materialised_inputs_run_now(limit, n):
    rng = numpy.random.default_rng(n)
    x, y = rng.random(n), rng.random(n)
    a, b = materialised(x), materialised(y)
    results = {
        "add": (a + b, x + y), "compare": (a > 0.5, x > 0.5), "sqrt": (nf.sqrt(a), numpy.sqrt(x)),
        "where": (nf.where(a > b, a, b), numpy.where(x > y, x, y)),
        "astype": (a.astype(numpy.float32), x.astype(numpy.float32)),
        "sum": (a.sum(), x.sum()), "max axis": (a.reshape(-1, 1).min(axis=1), x.reshape(-1, 1).min(axis=1)),
    }
    for name, (got, want) in results.items():
        assert not got._pending, name
        same(got, want)


def test_past_the_limit_or_on_pending_inputs_ops_stay_lazy(limit):
    a = materialised(numpy.arange(1001.0))
    assert (a + 1.0)._pending  # 1001 elements: past the limit
    b = materialised(numpy.arange(10.0))
    pending = nf.arange(2000.0, device="cpu")[:10]  # a view of a large generator: pending
    assert pending._pending
    chain = pending + b  # a pending input: the chain stays in the graph
    assert chain._pending
    c = chain * 2.0
    assert c._pending
    same(c, (numpy.arange(10.0) + numpy.arange(10.0)) * 2.0)
    assert not nf.zeros(10, device="cpu")._pending and nf.zeros(1001, device="cpu")._pending  # generators: the same limit
    # A reduction reads its input's size: a small result of a large input stays lazy.
    assert materialised(numpy.ones(5000)).sum()._pending


def test_off_keeps_every_op_in_the_graph(limit):
    nf._core.set_immediate_max(0)
    a = materialised(numpy.arange(4.0))
    assert (a + a)._pending and a.sum()._pending


def test_out_and_where_results_keep_the_redirect(limit):
    # out= results stay pending nodes written straight into the target (eval_into).
    x = numpy.arange(8.0)
    a, out = materialised(x), materialised(numpy.zeros(8))
    r = nf.add(a, 1.0, out=out)
    assert r is out
    same(out, x + 1.0)
    w = materialised(numpy.full(8, -1.0))
    nf.multiply(a, 2.0, out=w, where=a > 3)
    want = numpy.full(8, -1.0)
    numpy.multiply(x, 2.0, out=want, where=x > 3)
    same(w, want)


def test_errors_raise_at_the_call_as_numpys(limit):
    a = materialised(numpy.array([1.0, 2.0]))
    with numpy.errstate(divide="raise"), nf.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            numpy.array([1.0, 2.0]) / 0.0
        with pytest.raises(FloatingPointError):
            a / 0.0  # no read needed: it ran in the call
    with nf.errstate(divide="warn"), pytest.warns(RuntimeWarning, match="divide by zero"):
        r = a / 0.0
    # The warning came with the op; reading the result later reports nothing again.
    with nf.errstate(divide="raise"):
        assert nf.asnumpy(r)[0] == numpy.inf


def test_a_host_view_written_later_does_not_change_the_result(limit):
    # NumPy's eager semantics: the op saw the values of its call.
    a = materialised(numpy.arange(6.0))
    view = numpy.asarray(a)
    r = a * 10.0
    view[:] = -1.0
    same(r, numpy.arange(6.0) * 10.0)


def test_the_limit_comes_from_the_environment():
    code = ("import numfuse, numpy; a = numfuse.asarray(numpy.ones(50)); numfuse.eval(a); "
            "print(numfuse._core.immediate_max(), (a + 1)._pending)")
    env = dict(os.environ, NUMFUSE_IMMEDIATE_MAX="10", NUMFUSE_DEVICE="cpu", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["10", "True"]


# ---- the express lane: a lone ufunc on small materialised host operands runs with no node -------

EXPRESS_OPS = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
               "maximum", "fmin", "arctan2", "greater", "equal", "logical_and", "bitwise_xor",
               "divmod", "hypot", "copysign", "left_shift"]
EXPRESS_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32",
                  "float64", "complex64", "complex128"]


def _express_operand(rng, kind, dtype, shape):
    """A NumPy operand of one layout the lane takes (contiguous, 0-d, Python scalar) or refuses
    (broadcast, strided, reversed), with zeros, NaNs and infinities among its values."""
    special = numpy.array([0, 1, -1, 2, numpy.nan, numpy.inf, -numpy.inf, 0.5, 3])
    if kind == "pyscalar":
        v = rng.choice(special[:4])
        return {"bool": bool(v), "int64": int(v), "float64": float(v)}.get(dtype, complex(v, 1))
    n = int(numpy.prod(shape))
    m = 2 * n + 8  # enough for every layout below, empty shapes included
    with numpy.errstate(all="ignore"):
        raw = numpy.where(rng.random(m) < 0.3, rng.choice(special, m),
                          rng.normal(0, 4, m)).astype(numpy.complex128)
        vals = raw.real.astype(dtype) if numpy.dtype(dtype).kind != "c" else raw.astype(dtype)
    if kind == "0d":
        return vals[0].reshape(())
    if kind == "strided":
        return vals[: 2 * n].reshape(shape[:-1] + (2 * shape[-1],))[..., ::2] if shape else vals[0].reshape(())
    if kind == "reversed":
        return vals[:n][::-1].reshape(shape)
    if kind == "broadcast":
        return vals[: shape[-1] if shape else 1].reshape(shape[-1:])
    return vals[:n].reshape(shape).copy()


def _outcome(xp, mode, call):
    """("ok", result, the warnings) or ("error", the exception's class name, None) of call()
    under xp.errstate(all=mode). NumPy divides a 0-d mean as a scalar ("in scalar divide"), where
    numfuse keeps 0-d arrays ("in divide"): the same report otherwise."""
    import warnings
    with warnings.catch_warnings(record=True) as caught, xp.errstate(all=mode):
        warnings.simplefilter("always")
        try:
            r = call()
        except Exception as e:  # noqa: BLE001 - the class is compared with NumPy's
            return ("error", type(e).__name__, None)
    return ("ok", r, sorted({(w.category.__name__, str(w.message).replace("scalar ", "")) for w in caught}))


def _assert_same_outcome(want, got, case):
    """The same class of error, or the same warnings and NumPy's values (every output)."""
    assert got[0] == want[0], (case, want, got)
    if want[0] == "error":
        assert got[1] == want[1], case
        return
    assert got[2] == want[2], case  # the same warnings, at the call
    wanted = want[1] if isinstance(want[1], tuple) else (want[1],)
    gotten = got[1] if isinstance(got[1], tuple) else (got[1],)
    for w, g in zip(wanted, gotten):
        # Small: computed in the call. Host scalars alone (a NumPy scalar and a Python number)
        # give NumPy's own scalar on the CPU, as NumPy does.
        assert isinstance(g, numpy.generic) or not g._pending, case
        harness.compare(numpy.asarray(w), harness.to_numpy(nf, g), path=case)


@pytest.mark.parametrize("seed", range(60))
def test_express_lane_agrees_with_numpy(seed, cpu_default_device):
    """Random ufunc calls on small materialised operands, values and errors as NumPy's: the lane
    must give NumPy's dtype and value, and its floating-point reports (warn / raise / ignore) must
    come at the call as NumPy's do (the lane gives a flagged loop back to the node's path). The
    CPU is the default device here: an op of 0-d arrays and scalars alone goes to the default
    device, which on a GPU machine is the GPU."""
    rng = numpy.random.default_rng(seed)
    for _ in range(12):
        op = str(rng.choice(EXPRESS_OPS))
        shape = tuple(int(s) for s in rng.integers(0, 5, rng.integers(0, 3)))
        kinds = [str(rng.choice(["contiguous", "contiguous", "0d", "pyscalar", "strided", "reversed", "broadcast"]))
                 for _ in range(2)]
        if kinds == ["pyscalar", "pyscalar"]:
            kinds[0] = "contiguous"
        dts = [str(rng.choice(EXPRESS_DTYPES)) for _ in range(2)]
        x, y = (_express_operand(rng, k, d, shape) for k, d in zip(kinds, dts))
        mode = str(rng.choice(["ignore", "warn", "raise"]))
        operands = {"numpy": (x, y), "numfuse": tuple(materialised(v) if isinstance(v, numpy.ndarray) else v
                                                      for v in (x, y))}
        want, got = (_outcome(xp, mode, lambda xp=xp, k=k: getattr(xp, op)(*operands[k]))
                     for k, xp in (("numpy", numpy), ("numfuse", nf)))
        _assert_same_outcome(want, got, f"{op}({kinds[0]} {dts[0]}, {kinds[1]} {dts[1]}) shape={shape} errstate={mode}")


@pytest.mark.parametrize("seed", range(40))
def test_reduction_lane_agrees_with_numpy(seed, cpu_default_device):
    """Random reductions of small materialised arrays (the reductions' express lane): NumPy's
    values, dtypes, errors and floating-point reports, axis and keepdims included."""
    rng = numpy.random.default_rng(1000 + seed)
    for _ in range(10):
        name = str(rng.choice(["sum", "prod", "max", "min", "argmax", "argmin", "any", "all", "mean", "var", "std"]))
        dt = str(rng.choice(["bool", "int8", "uint16", "int64", "float16", "float32", "float64", "complex128"]))
        shape = tuple(int(s) for s in rng.integers(0, 4, rng.integers(0, 4)))
        kind = str(rng.choice(["contiguous", "contiguous", "strided", "reversed"]))
        x = _express_operand(rng, kind, dt, shape) if shape else _express_operand(rng, "0d", dt, shape)
        kwargs = {}
        if x.ndim and rng.random() < 0.6:
            kwargs["axis"] = int(rng.integers(-x.ndim, x.ndim))
        if name not in ("argmax", "argmin") and rng.random() < 0.4:
            kwargs["keepdims"] = True
        mode = str(rng.choice(["ignore", "warn", "raise"]))
        want = _outcome(numpy, mode, lambda: getattr(numpy, name)(x, **kwargs))
        a = materialised(x)
        got = _outcome(nf, mode, lambda: getattr(nf, name)(a, **kwargs))
        _assert_same_outcome(want, got, f"{name}({kind} {dt} {shape}, {kwargs}) errstate={mode}")


# ---- the express lane over views: strided, reversed, broadcast operands, out= and in place ------

# Views of one (8, 8) base, by the shape they give: the same recipe is applied to NumPy's base and
# to numfuse's, so operands and targets may share memory exactly as they do in NumPy.
VIEW_RECIPES = {
    (4,): [lambda b: b[1:5, 2], lambda b: b[3, ::2], lambda b: b[6, 4:0:-1], lambda b: b[2, 1:5],
           lambda b: b[::-2, 7], lambda b: b[2, 2:6]],
    (4, 4): [lambda b: b[:4, :4], lambda b: b[::2, ::2], lambda b: b[4:, ::-2], lambda b: b[:4, 1:5].T,
             lambda b: b[1:5, 3:7], lambda b: b[::-2, 1::2], lambda b: b[2:6, 2:6]],
    (1, 4): [lambda b: b[2:3, :4], lambda b: b[5:6, ::-2]],
    (4, 1): [lambda b: b[:4, 5:6], lambda b: b[7:3:-1, 0:1]],
}
VIEW_OPS = ["add", "subtract", "multiply", "true_divide", "floor_divide", "maximum", "arctan2",
            "power", "hypot", "greater", "bitwise_and", "divmod"]
VIEW_DTYPES = ["int32", "int64", "float32", "float64", "complex128", "bool"]


def _base(rng, dtype):
    special = numpy.array([0, 1, -1, 2, numpy.nan, numpy.inf, -numpy.inf, 0.5, 3])
    with numpy.errstate(all="ignore"):
        raw = numpy.where(rng.random(64) < 0.2, rng.choice(special, 64), rng.normal(0, 4, 64))
        return (raw if dtype == "complex128" else raw).astype(dtype).reshape(8, 8)


def _view_case(rng):
    """(op, operand makers, out makers or None, inplace flag): each maker takes a dict of bases."""
    op = str(rng.choice(VIEW_OPS))
    shape = [(4,), (4, 4)][int(rng.integers(2))]
    makers = []
    for _ in range(2):
        kind = str(rng.choice(["view", "view", "view", "broadcast", "scalar", "0d"]))
        dt = str(rng.choice(VIEW_DTYPES))
        if kind == "broadcast" and len(shape) == 2:
            recipe = VIEW_RECIPES[[(1, 4), (4, 1)][int(rng.integers(2))]][int(rng.integers(2))]
        elif kind in ("view", "broadcast"):
            group = VIEW_RECIPES[shape]
            recipe = group[int(rng.integers(len(group)))]
        elif kind == "scalar":
            v = float(rng.choice([0.0, 1.5, -2.0, 3.0]))
            makers.append(lambda bases, v=v: v)
            continue
        else:
            recipe = lambda b: b[3, 3]  # a 0-d view
        makers.append(lambda bases, r=recipe, d=dt: r(bases[d]))
    outs = None
    if rng.random() < 0.6:
        outs = []
        for _ in range(2 if op == "divmod" else 1):
            group = VIEW_RECIPES[shape]
            outs.append((group[int(rng.integers(len(group)))], rng.random() < 0.7))
    return op, makers, outs


def _target_makers(op, makers, outs, np_bases):
    """out= makers: views of the base of NumPy's result dtype, or of complex128 (a widening cast).
    Only casts that raise no flag: numfuse names a flag of the cast into out= "cast" where NumPy
    names the ufunc (a difference older than the express lane, docs/decisions.md)."""
    try:
        with numpy.errstate(all="ignore"):
            res = getattr(numpy, op)(*[m(np_bases) for m in makers])
        dts = [r.dtype.name for r in (res if isinstance(res, tuple) else (res,))]
    except Exception:  # noqa: BLE001 - the call's own error is what the test compares
        dts = ["float64", "float64"]
    # divmod's second target is a view of bases of its own: where two targets overlap each other
    # NumPy's result depends on its buffering order.
    return [lambda bases, r=recipe, d=(dts[j] if same else "complex128"), j=j: r(bases[d if j == 0 else "2" + d])
            for j, (recipe, same) in enumerate(outs)]


@pytest.mark.parametrize("seed", range(60))
def test_express_lane_on_views_and_targets_agrees_with_numpy(seed, cpu_default_device):
    """Random ufunc calls whose operands are views of shared bases (strided, reversed, transposed,
    broadcast, 0-d) and whose out= targets are views of the same bases (in place, overlapping
    another operand through a different mapping, or apart): NumPy's results, errors, warnings,
    and NumPy's bases afterwards (an overlapping target must see the inputs as they were)."""
    rng = numpy.random.default_rng(5000 + seed)
    for _ in range(10):
        op, makers, outs = _view_case(rng)
        mode = str(rng.choice(["ignore", "warn", "raise"]))
        casting = str(rng.choice(["same_kind", "unsafe"]))
        np_bases = {d: _base(rng, d) for d in VIEW_DTYPES}
        np_bases.update({"2" + d: _base(rng, d) for d in VIEW_DTYPES})
        nf_bases = {d: materialised(b) for d, b in np_bases.items()}
        if op == "power" and any(numpy.asarray(m(np_bases)).dtype.kind == "c" for m in makers):
            # Known, older than the express lane (both lanes alike): NumPy's complex power raises
            # `invalid` for a NaN or infinite exponent (its (npy_intp) cast of the exponent), which
            # numfuse does not report. docs/decisions.md, issue 11 fourth session.
            continue
        targets_of = _target_makers(op, makers, outs, np_bases) if outs is not None else None

        def call(xp, bases):
            args = [m(bases) for m in makers]
            kwargs = {}
            if targets_of is not None:
                targets = tuple(o(bases) for o in targets_of)
                kwargs = {"out": targets if len(targets) > 1 else targets[0], "casting": casting}
            return getattr(xp, op)(*args, **kwargs)

        case = f"{op} outs={outs is not None} casting={casting} errstate={mode} seed={seed}"
        want = _outcome(numpy, mode, lambda: call(numpy, np_bases))
        got = _outcome(nf, mode, lambda: call(nf, nf_bases))
        assert got[0] == want[0], (case, want, got)
        if want[0] == "error":
            assert got[1] == want[1], case
        else:
            assert got[2] == want[2], case
            wanted = want[1] if isinstance(want[1], tuple) else (want[1],)
            gotten = got[1] if isinstance(got[1], tuple) else (got[1],)
            for w, g in zip(wanted, gotten):
                harness.compare(numpy.asarray(w), harness.to_numpy(nf, g), path=case)
        if want[0] == "error":
            # What a failed call leaves in out= is not NumPy's contract: its integer power raises
            # in the middle of its loop after storing the first elements, and after errstate's
            # FloatingPointError it has stored every result, or none where a target overlapped
            # an input (its temporary copy is dropped). numfuse stores nothing.
            continue
        for d in np_bases:  # what the targets wrote, and nothing else
            harness.compare(np_bases[d], harness.to_numpy(nf, nf_bases[d]), path=f"{case} base {d}")


@pytest.mark.parametrize("seed", range(30))
def test_in_place_operators_on_views_agree_with_numpy(seed, cpu_default_device):
    """`v op= w` with v a view of a base and w a view of the same or another base (the LU loop's
    `a[i + 1:, i] /= a[i, i]` and `a[i + 1:, i + 1:] -= outer(...)`), NumPy's values and errors."""
    import operator
    rng = numpy.random.default_rng(7000 + seed)
    ops = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.ipow]
    for _ in range(10):
        fn = ops[int(rng.integers(len(ops)))]
        shape = [(4,), (4, 4)][int(rng.integers(2))]
        group = VIEW_RECIPES[shape]
        target = group[int(rng.integers(len(group)))]
        source = group[int(rng.integers(len(group)))] if rng.random() < 0.7 else (lambda b: b[3, 3])
        dts = [str(rng.choice(["float64", "float32", "int64", "complex128"])) for _ in range(2)]
        mode = str(rng.choice(["ignore", "warn", "raise"]))
        if fn is operator.ipow and "complex128" in dts:
            continue  # complex power's `invalid` on a NaN exponent: the known difference above
        np_bases = {d: _base(rng, d) for d in set(dts)}
        nf_bases = {d: materialised(b) for d, b in np_bases.items()}

        def run(bases):
            v = target(bases[dts[0]])
            fn(v, source(bases[dts[1]]))

        want = _outcome(numpy, mode, lambda: run(np_bases))
        got = _outcome(nf, mode, lambda: run(nf_bases))
        case = f"{fn.__name__} {dts} {shape} errstate={mode}"
        assert got[0] == want[0], (case, want, got)
        if want[0] == "error":
            assert got[1] == want[1], case
            continue  # what the target holds after a failed call: see the test above
        assert got[2] == want[2], case
        for d in np_bases:
            harness.compare(np_bases[d], harness.to_numpy(nf, nf_bases[d]), path=f"{case} base {d}")


def test_row_copies_between_arrays_keep_numpys_semantics(cpu_default_device):
    """`out[i, :] = a[i - 1, :]` copies a row with one memmove when both are contiguous host
    memory of one dtype: a pending reader of `out` still sees the old row, a read-only target
    still raises, and other dtypes, shapes and layouts take the general path (NumPy's values)."""
    rng = numpy.random.default_rng(3)
    x = rng.random((6, 5))
    a, out = materialised(x), materialised(numpy.zeros((6, 5)))
    before = nf._core.immediate_max()
    nf._core.set_immediate_max(0)
    try:
        reader = out[2, :] * 2.0  # pending: must see the zeros
        assert reader._pending
        out[2, :] = a[1, :]
        same(reader, numpy.zeros(5))
    finally:
        nf._core.set_immediate_max(before)
    same(out[2, :], x[1, :])
    want = numpy.zeros((6, 5))
    got = materialised(want)
    for i in range(1, 6):
        want[i, :] = x[i - 1, :]
        got[i, :] = a[i - 1, :]
    want[0, 1:4] = x[5, ::2]  # strided source: the general path
    got[0, 1:4] = a[5, ::2]
    want[5, :] = x[0, :].astype(numpy.float32)  # another dtype: converted
    got[5, :] = materialised(x[0, :].astype(numpy.float32))
    want[3:5, :] = x[0:2, :]  # a block of rows
    got[3:5, :] = a[0:2, :]
    same(got, want)
    ro = nf.broadcast_to(a[0, :], (2, 5))
    with pytest.raises(ValueError):
        ro[1, :] = a[2, :]


@pytest.mark.parametrize("seed", range(40))
def test_operators_on_arrays_and_floats_agree_with_numpy(seed, cpu_default_device):
    """`a + b`, `a * 0.5` and `0.5 - a` through the ndarray's operator slots (the express lane's
    shortest paths, without operand copies): NumPy's values, dtypes, warnings and errors, for
    arrays of one shape and dtype or of two, contiguous or not, and Python floats on either side."""
    import operator
    rng = numpy.random.default_rng(9000 + seed)
    ops = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
           operator.pow, operator.lt, operator.ge, operator.eq, operator.and_, operator.lshift]
    for _ in range(12):
        fn = ops[int(rng.integers(len(ops)))]
        shape = tuple(int(s) for s in rng.integers(0, 5, rng.integers(0, 3)))
        dts = [str(rng.choice(EXPRESS_DTYPES)) for _ in range(2)]
        if rng.random() < 0.5:
            dts[1] = dts[0]
        kinds = [str(rng.choice(["contiguous", "contiguous", "contiguous", "reversed", "0d"])) for _ in range(2)]
        # a 0-d operand as a 0-d array (NumPy's reshape of a scalar gives a scalar, whose own
        # operators would answer first)
        x, y = (numpy.asarray(_express_operand(rng, k, d, shape)) for k, d in zip(kinds, dts))
        side = int(rng.integers(3))  # 0: array op array, 1: array op float, 2: float op array
        if side:
            v = float(rng.choice([0.0, 0.5, -1.5, 2.0, numpy.inf, numpy.nan]))
            x, y = (x, v) if side == 1 else (v, y)
        mode = str(rng.choice(["ignore", "warn", "raise"]))

        def on_numfuse(v):
            """v as a numfuse array: contiguous, or a strided or reversed view of the same values."""
            if not isinstance(v, numpy.ndarray):
                return v
            layout = int(rng.integers(3)) if v.ndim else 0
            if layout == 1:
                return materialised(numpy.stack([v, v], axis=-1))[..., 1]
            if layout == 2:
                return materialised(numpy.ascontiguousarray(v[..., ::-1]))[..., ::-1]
            return materialised(v)

        args = {"numpy": (x, y), "numfuse": tuple(on_numfuse(v) for v in (x, y))}
        want, got = (_outcome(xp, mode, lambda k=k: fn(*args[k])) for k, xp in (("numpy", numpy), ("numfuse", nf)))
        _assert_same_outcome(want, got, f"{fn.__name__}({kinds} {dts}, side={side}) shape={shape} errstate={mode}")


def test_in_place_writes_wait_for_pending_readers(cpu_default_device):
    """`a[:10] += 1` is small enough for the express lane, but a pending op past the immediate
    limit still reads `a`: it must see the values of before the write (NumPy's eager order), and
    a pending target is evaluated before it is written."""
    n = nf._core.immediate_max() + 3616  # past the limit, whatever it is
    x = numpy.arange(float(n))
    a = materialised(x)
    reader = a * 2.0  # past the immediate limit: pending
    assert reader._pending
    a[:10] += 1.0
    nf.multiply(a[10:20], 3.0, out=a[10:20])
    same(reader, x * 2.0)
    want = x.copy()
    want[:10] += 1.0
    want[10:20] *= 3.0
    same(a, want)
    target = nf.zeros(n, device="cpu")  # a pending generator as the target
    assert target._pending
    target[:5] += materialised(numpy.arange(5.0))
    same(target[:6], numpy.array([0.0, 1.0, 2.0, 3.0, 4.0, 0.0]))
