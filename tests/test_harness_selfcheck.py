"""Tests of the oracle harness itself. Both sides are NumPy (or a NumPy-backed fake numfuse that
misbehaves on purpose), never the real numfuse, so these run before and after numfuse exists."""
import inspect
import types

import numpy
import pytest
from hypothesis import given, settings, strategies as st

import harness
from harness import OracleMismatch, oracle, run_both

pytestmark = pytest.mark.harness_selfcheck


class Boxed:
    """A fake numfuse array: only asnumpy can open it, as with numfuse's own arrays."""

    def __init__(self, a):
        self._a = numpy.asarray(a)
        self.shape, self.dtype = self._a.shape, self._a.dtype


def fake_numfuse(**overrides):
    """A module that is NumPy, except that results are Boxed and `overrides` replace functions."""
    mod = types.ModuleType("fakefuse")
    mod.asnumpy = lambda b: b._a if isinstance(b, Boxed) else numpy.asarray(b)
    mod.calls = []
    for name, fn in overrides.items():
        setattr(mod, name, fn)
    mod.__getattr__ = lambda name: getattr(numpy, name)  # PEP 562: the rest is NumPy
    return mod


FAKE = fake_numfuse()


# ---- agreement passes --------------------------------------------------------------------------

@harness.dtype_params()
@pytest.mark.parametrize("shape", harness.SHAPES, ids=str)
@oracle(impl=numpy)
def test_identical_sides_pass(xp, dtype, shape):
    a = xp.asarray(harness.make_array(shape, dtype))
    return a, a.copy(), a.shape


@pytest.mark.parametrize("shapes", harness.BROADCAST_PAIRS, ids=str)
@oracle(impl=numpy)
def test_broadcast_pairs_broadcast(xp, shapes):
    a = xp.asarray(harness.make_array(shapes[0], numpy.float64, seed=1))
    b = xp.asarray(harness.make_array(shapes[1], numpy.float64, seed=2))
    return a + b


@pytest.mark.parametrize("shapes", harness.BAD_BROADCAST_PAIRS, ids=str)
@oracle(impl=numpy)
def test_bad_broadcast_pairs_raise_on_both_sides(xp, shapes):
    return xp.ones(shapes[0]) + xp.ones(shapes[1])


@pytest.mark.parametrize("view", harness.VIEW_IDS)
@harness.dtype_params([numpy.dtype(numpy.int16), numpy.dtype(numpy.complex64)])
@oracle(impl=numpy)
def test_views_compare(xp, view, dtype):
    v = harness.make_view(xp, view, dtype)
    return v, v * 2


def test_boxed_results_are_converted_with_asnumpy():
    fake = fake_numfuse(asarray=lambda x, **k: Boxed(numpy.asarray(x, **k)))
    run_both(lambda xp: xp.asarray([1.0, 2.0]), impl=fake)


def test_float_within_a_few_ulp_passes():
    one_ulp = fake_numfuse(sqrt=lambda a: numpy.nextafter(numpy.sqrt(a), numpy.float32(numpy.inf)))
    run_both(lambda xp: xp.sqrt(numpy.arange(1, 50, dtype=numpy.float32)), impl=one_ulp)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:divide by zero:RuntimeWarning")
def test_same_nan_positions_pass():
    run_both(lambda xp: xp.log(numpy.array([-1.0, 1.0, 0.0])), impl=FAKE)


# ---- disagreement is detected ------------------------------------------------------------------

def test_value_mismatch_is_detected():
    def body(xp):
        a = xp.arange(5)
        return a if xp.is_numpy else a + (a == 3)
    with pytest.raises(OracleMismatch, match="values differ"):
        run_both(body, impl=FAKE)


def test_float_mismatch_beyond_tolerance_is_detected():
    off = fake_numfuse(sqrt=lambda a: numpy.sqrt(a) * numpy.float32(1 + 1e-5))
    with pytest.raises(OracleMismatch, match="values differ"):
        run_both(lambda xp: xp.sqrt(numpy.arange(1, 50, dtype=numpy.float32)), impl=off)


def test_explicit_rtol_loosens_the_check():
    off = fake_numfuse(sqrt=lambda a: numpy.sqrt(a) * numpy.float32(1 + 1e-5))
    run_both(lambda xp: xp.sqrt(numpy.arange(1, 50, dtype=numpy.float32)), impl=off, rtol=1e-4)


def test_nan_position_mismatch_is_detected():
    def body(xp):
        a = xp.asarray([1.0, 2.0, 3.0])
        if not xp.is_numpy:
            a[1] = numpy.nan
        return a
    with pytest.raises(OracleMismatch):
        run_both(body, impl=FAKE)


def test_dtype_mismatch_is_detected():
    def body(xp):
        a = xp.ones(3, dtype=xp.float64)
        return a if xp.is_numpy else a.astype(xp.float32)
    with pytest.raises(OracleMismatch, match="dtype differs"):
        run_both(body, impl=FAKE)


def test_shape_mismatch_is_detected():
    with pytest.raises(OracleMismatch, match="shape differs"):
        run_both(lambda xp: xp.zeros((2, 3)) if xp.is_numpy else xp.zeros((3, 2)), impl=FAKE)


def test_zero_d_against_one_element_is_a_shape_mismatch():
    with pytest.raises(OracleMismatch, match="shape differs"):
        run_both(lambda xp: xp.float64(1.0) if xp.is_numpy else xp.ones(1), impl=FAKE)


def test_python_scalar_type_mismatch_is_detected():
    with pytest.raises(OracleMismatch, match="Python int"):
        run_both(lambda xp: 3 if xp.is_numpy else 3.0, impl=FAKE)


def test_structure_mismatch_is_detected():
    with pytest.raises(OracleMismatch, match="tuple"):
        run_both(lambda xp: (xp.ones(2), xp.ones(2)) if xp.is_numpy else xp.ones(2), impl=FAKE)


def test_exception_only_from_numfuse_is_detected():
    def body(xp):
        if not xp.is_numpy:
            raise NotImplementedError("add")
        return xp.ones(2)
    with pytest.raises(OracleMismatch, match="numpy raised nothing"):
        run_both(body, impl=FAKE)


def test_exception_only_from_numpy_is_detected():
    with pytest.raises(OracleMismatch, match="numfuse raised nothing"):
        run_both(lambda xp: xp.ones(3) + xp.ones(4) if xp.is_numpy else xp.ones(3), impl=FAKE)


def test_other_exception_class_is_detected():
    # NumPy raises AxisError (a ValueError and an IndexError); a plain ValueError is not enough.
    def bad_sum(a, axis=None):
        raise ValueError("axis 5 is out of bounds")
    with pytest.raises(OracleMismatch, match="AxisError"):
        run_both(lambda xp: xp.sum(xp.ones((2, 2)), axis=5), impl=fake_numfuse(sum=bad_sum))


def test_subclass_of_numpy_exception_passes():
    class NumfuseBroadcastError(ValueError):
        pass

    def add(a, b):
        raise NumfuseBroadcastError("operands could not be broadcast together with shapes (3,) (4,)")
    run_both(lambda xp: xp.add(xp.ones(3), xp.ones(4)), impl=fake_numfuse(add=add))


# ---- the decorator and the device plumbing -----------------------------------------------------

def test_decorator_signature_hides_xp_and_adds_device():
    @oracle(impl=numpy)
    def body(xp, dtype):
        return xp.ones(2, dtype=dtype)
    assert list(inspect.signature(body).parameters) == ["dtype", "device"]
    body(dtype=numpy.float32, device="cpu")


def test_decorator_reports_mismatch():
    @oracle(impl=FAKE)
    def body(xp):
        return xp.ones(2) if xp.is_numpy else xp.zeros(2)
    with pytest.raises(OracleMismatch):
        body(device="cpu")


def test_decorator_rejects_body_without_xp():
    with pytest.raises(TypeError, match="xp"):
        oracle()(lambda a: a)


@oracle(impl=numpy)
def test_device_fixture_reaches_the_body(xp, device):
    assert device in ("cpu", "cuda")
    return xp.arange(3)


def test_device_keyword_only_off_cpu():
    seen = []

    def asarray(x, **kw):
        seen.append(kw.get("device"))
        return numpy.asarray(x)
    fake = fake_numfuse(asarray=asarray)
    harness.XP(fake, "cpu").asarray([1])
    harness.XP(fake, "cuda").asarray([1])
    harness.XP(numpy, "cuda").asarray([1])  # NumPy never gets device=
    assert seen == [None, "cuda"]


def test_cuda_available_without_cuda_module():
    assert harness.cuda_available(numpy) is False
    assert harness.cuda_available(types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: True)))


# ---- the input builders ------------------------------------------------------------------------

def test_fourteen_distinct_dtypes():
    assert len(set(harness.ALL_DTYPES)) == 14


@harness.dtype_params()
def test_make_array_is_deterministic_and_typed(dtype):
    a, b = harness.make_array((4, 5), dtype, seed=3), harness.make_array((4, 5), dtype, seed=3)
    assert a.dtype == dtype and a.shape == (4, 5)
    assert numpy.array_equal(a, b)


def test_views_are_views_with_the_strides_they_promise():
    views = {vid: harness.make_view(harness.XP(numpy), vid, numpy.float64) for vid in harness.VIEW_IDS}
    assert any(v.strides and min(v.strides) < 0 for v in views.values())
    assert not views["step2"].flags.c_contiguous
    assert views["reversed"].strides[0] < 0
    assert views["zero_d"].shape == ()
    assert views["empty_slice"].size == 0
    for vid, v in views.items():
        if v.ndim:
            assert v.base is not None, vid  # shares memory with the larger array


def test_default_rtol_is_a_few_ulp():
    assert harness.default_rtol(numpy.float32) == 4 * numpy.finfo(numpy.float32).eps
    assert harness.default_rtol(numpy.complex128) == 4 * numpy.finfo(numpy.float64).eps
    assert harness.default_rtol(numpy.int64) == 0.0


# ---- Hypothesis drives an @oracle body ---------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), scalar=st.integers(-3, 3))
@oracle(impl=numpy)
def test_hypothesis_with_oracle(xp, shape, scalar):
    return xp.asarray(harness.make_array(shape, numpy.int32)) * scalar
