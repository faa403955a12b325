"""floor_divide, remainder and divmod of NaN and infinite operands and by zero report the
floating-point flags the INSTALLED NumPy reports (core/divmod_flags.h, numfuse/_numpy_fp_probe.py):
they depend on how NumPy was built and on its libm (NumPy 2.5 on the GPU machine warns `invalid`
where 2.4 here does not, and the two differ for `x % 0.0`), so the tests compare with the NumPy that runs them, in both of numfuse's lanes (the call's
express loop and the node's), on arrays of one element and on arrays that mix such elements
with finite ones. A synthetic table that differs from every NumPy shows that numfuse follows the
table it is given rather than its own arithmetic."""
import itertools

import numpy
import pytest

import harness

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")

SPECIAL = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.5, -2.5, 7.0, 1e-300]
OPS = ["floor_divide", "remainder", "divmod"]
DTYPES = ["float16", "float32", "float64"]


def flags_of(xp, fn):
    """The flag bits xp's errstate callback receives while fn() runs (NumPy's numbering)."""
    seen = []
    with xp.errstate(all="call", call=lambda kind, flag: seen.append(int(flag))):
        r = fn()
        if xp is nf:
            for x in (r if isinstance(r, tuple) else (r,)):
                nf.eval(x)
    out = 0
    for f in seen:
        out |= f
    return out, r


@pytest.fixture(params=["express", "node"])
def lane(request, device):
    if device != "cpu" and not nf.cuda.fp_checks_enabled():
        pytest.skip("GPU floating-point checks are off (NUMFUSE_GPU_FP_CHECKS)")
    before = nf._core.immediate_max()
    if request.param == "node":
        nf._core.set_immediate_max(0)
    yield request.param
    nf._core.set_immediate_max(before)


def _numfuse_array(values, dtype, device):
    a = nf.asarray(numpy.array(values, dtype=dtype), device=device)
    nf.eval(a)
    return a


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_each_pair_reports_the_installed_numpys_flags(op, dtype, lane, device):
    mismatches = []
    for a, b in itertools.product(SPECIAL, SPECIAL):
        if numpy.isfinite(a) and numpy.isfinite(b) and b != 0:
            continue  # finite pairs: the value rules of every op (tests/test_errstate.py)
        x, y = numpy.array([a], dtype=dtype), numpy.array([b], dtype=dtype)
        want, wr = flags_of(numpy, lambda: getattr(numpy, op)(x, y))
        got, gr = flags_of(nf, lambda: getattr(nf, op)(_numfuse_array([a], dtype, device),
                                                        _numfuse_array([b], dtype, device)))
        if device != "cpu":
            want &= ~4  # the GPU checks leave underflow out (backend/cuda/fp_check_cuda.cpp)
        if got != want:
            mismatches.append((a, b, want, got))
        for w, g in zip(wr if isinstance(wr, tuple) else (wr,), gr if isinstance(gr, tuple) else (gr,)):
            harness.compare(w, harness.to_numpy(nf, g), path=f"{op}({a}, {b}) {dtype}")
    assert not mismatches, f"{op} {dtype} ({lane}): (a, b, numpy's flags, numfuse's) {mismatches}"


@pytest.mark.parametrize("seed", range(8))
def test_mixed_arrays_report_what_numpy_reports(seed, lane, device):
    """Arrays mixing NaN and infinities with finite values, strided or not: the flags of the
    whole call are NumPy's."""
    rng = numpy.random.default_rng(seed)
    for _ in range(6):
        op, dtype = str(rng.choice(OPS)), str(rng.choice(DTYPES))
        n = int(rng.integers(1, 12))
        x = rng.choice(numpy.array(SPECIAL + [3.25, -4.0]), 2 * n).astype(dtype)
        y = rng.choice(numpy.array(SPECIAL + [3.25, -4.0]), n).astype(dtype)
        want, wr = flags_of(numpy, lambda: getattr(numpy, op)(x[::2], y))
        xa = _numfuse_array(x, dtype, device)
        got, gr = flags_of(nf, lambda: getattr(nf, op)(xa[::2], _numfuse_array(y, dtype, device)))
        if device != "cpu":
            want &= ~4
        assert got == want, (op, dtype, x[::2], y, lane)


@pytest.fixture
def synthetic_table():
    """A table no NumPy has: nan // positive raises invalid, inf // positive nothing, negative // +0
    overflow (restored to the installed NumPy's after)."""
    table = bytearray(nf._numpy_fp_probe.probe())
    n = len(nf._numpy_fp_probe.CLASS_VALUES)
    for op in range(3):
        for dbl in range(2):
            table[((op * 2 + dbl) * n + 0) * n + 5] = 8  # (NaN, positive): invalid
            table[((op * 2 + dbl) * n + 1) * n + 5] = 0  # (+inf, positive): nothing
            table[((op * 2 + dbl) * n + 6) * n + 3] = 2  # (negative, +0): overflow
    nf._core._set_divmod_nonfinite_flags(bytes(table))
    yield
    nf._numpy_fp_probe.install()


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_numfuse_follows_the_table_it_is_given(op, dtype, synthetic_table, lane, device):
    fn = getattr(nf, op)
    nan_flags, _ = flags_of(nf, lambda: fn(_numfuse_array([numpy.nan], dtype, device),
                                           _numfuse_array([1.5], dtype, device)))
    inf_flags, _ = flags_of(nf, lambda: fn(_numfuse_array([numpy.inf, 2.0], dtype, device),
                                           _numfuse_array([1.5, 1.0], dtype, device)))
    by_zero, _ = flags_of(nf, lambda: fn(_numfuse_array([-2.5, 3.0], dtype, device),
                                         _numfuse_array([0.0, 1.5], dtype, device)))
    assert (nan_flags, inf_flags, by_zero) == (8, 0, 2), lane
    # An element of the installed table beside them keeps its flags: 1 // 0 divide (NumPy 2.4).
    mixed, _ = flags_of(nf, lambda: fn(_numfuse_array([numpy.inf, 1.0], dtype, device),
                                       _numfuse_array([1.5, 0.0], dtype, device)))
    want, _ = flags_of(numpy, lambda: getattr(numpy, op)(numpy.array([1.0], dtype), numpy.array([0.0], dtype)))
    assert mixed == want, lane


def test_the_table_is_the_installed_numpys():
    """The probe's table is what the core holds, entry by entry."""
    table = nf._numpy_fp_probe.probe()
    n = len(nf._numpy_fp_probe.CLASS_VALUES)
    for op, dbl, a, b in itertools.product(range(3), range(2), range(n), range(n)):
        assert nf._core._divmod_nonfinite_flags(op, dbl, a, b) == table[((op * 2 + dbl) * n + a) * n + b]
