"""The NumPy-oracle test harness: one test body runs under NumPy and under numfuse.

    from harness import oracle, ALL_DTYPES, make_array

    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
    @oracle()
    def test_add(xp, dtype):
        a = xp.asarray(make_array((3, 4), dtype))
        return a + a

The decorated body receives `xp`, a thin view of the module under test, and returns what is to
be compared (an array, a scalar, or a tuple/list of them). The decorator adds a `device`
argument (the fixture in conftest.py) when the body does not take one, runs the body once with
numpy and once with numfuse, and checks that

- both sides raise, or neither: numfuse must raise NumPy's exception class or a subclass of it;
- the results have the same structure, dtype and shape;
- the values agree: exactly for bool and integers, within a few ulp for floats (per dtype,
  see `default_rtol`), with NaNs in the same places.

`xp.asarray` and the creation functions pass `device=` to numfuse only where that is needed
(see `XP`), so the body is written once for every device.
"""
import functools
import importlib
import inspect
import os

import numpy
import pytest

# ---- the module under test ---------------------------------------------------------------------

NUMFUSE_MODULE = os.environ.get("NUMFUSE_TEST_MODULE", "numfuse")
_numfuse = None
_numfuse_error = None


def numfuse_module():
    """The module tested as numfuse ($NUMFUSE_TEST_MODULE, default 'numfuse'), or None."""
    global _numfuse, _numfuse_error
    if _numfuse is None and _numfuse_error is None:
        try:
            _numfuse = importlib.import_module(NUMFUSE_MODULE)
        except ImportError as e:
            _numfuse_error = e
    return _numfuse


def cuda_available(mod=None) -> bool:
    """numfuse.cuda.is_available(), False where numfuse has no cuda submodule (yet)."""
    mod = mod if mod is not None else numfuse_module()
    is_avail = getattr(getattr(mod, "cuda", None), "is_available", None)
    return bool(is_avail()) if is_avail is not None else False


def to_numpy(mod, value):
    """A numfuse result as NumPy sees it: numfuse.asnumpy for arrays, other values unchanged."""
    if mod is numpy or isinstance(value, (numpy.ndarray, numpy.generic)):
        return value
    conv = getattr(mod, "asnumpy", None)
    if conv is not None and hasattr(value, "shape") and hasattr(value, "dtype"):
        return conv(value)
    return value


# Functions that create arrays from nothing or from host data: they get `device=` on numfuse.
CREATION = frozenset({
    "asarray", "array", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
    "eye", "identity", "tri", "frombuffer",
})


class XP:
    """The module a test body sees: attributes pass through to the module under test.

    On numfuse, creation functions receive `device=` when the device is not 'cpu', or when
    numfuse has CUDA (its default device is then the GPU, and 'cpu' must be asked for). On a
    machine without CUDA numfuse's CPU path therefore never needs device support. NumPy never
    gets `device=`. `xp.name` and `xp.is_numpy` let a body branch where the two must differ.
    """

    def __init__(self, module, device="cpu"):
        self._module = module
        self._device = device
        self.is_numpy = module is numpy
        self.name = "numpy" if self.is_numpy else getattr(module, "__name__", "numfuse")
        self.module = module
        self._pass_device = (not self.is_numpy) and (device != "cpu" or cuda_available(module))

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if self._pass_device and name in CREATION and callable(attr):
            dev = self._device

            @functools.wraps(attr)
            def on_device(*args, **kwargs):
                kwargs.setdefault("device", dev)
                return attr(*args, **kwargs)
            return on_device
        return attr

    def __repr__(self):
        return f"<xp {self.name} on {self._device}>"


# ---- inputs ------------------------------------------------------------------------------------

BOOL_DTYPES = [numpy.dtype(numpy.bool_)]
SIGNED_DTYPES = [numpy.dtype(t) for t in (numpy.int8, numpy.int16, numpy.int32, numpy.int64)]
UNSIGNED_DTYPES = [numpy.dtype(t) for t in (numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64)]
INT_DTYPES = SIGNED_DTYPES + UNSIGNED_DTYPES
FLOAT_DTYPES = [numpy.dtype(t) for t in (numpy.float16, numpy.float32, numpy.float64)]
COMPLEX_DTYPES = [numpy.dtype(t) for t in (numpy.complex64, numpy.complex128)]
INEXACT_DTYPES = FLOAT_DTYPES + COMPLEX_DTYPES
NUMERIC_DTYPES = INT_DTYPES + INEXACT_DTYPES
ALL_DTYPES = BOOL_DTYPES + NUMERIC_DTYPES  # the 14 dtypes numfuse supports
assert len(ALL_DTYPES) == 14

# Shapes: 0-d, empty, and small ranks. An odd size (7, 5) exercises tails of vector loops.
SHAPES = [(), (0,), (1,), (7,), (3, 0), (2, 3), (3, 5), (1, 1, 1), (2, 3, 4), (2, 1, 3, 2)]

# Pairs NumPy broadcasts together (and one result shape apiece in BROADCAST_RESULTS).
BROADCAST_PAIRS = [
    ((), ()), ((), (3,)), ((3,), ()), ((4,), (3, 4)), ((3, 1), (1, 4)), ((3, 1), (4,)),
    ((2, 1, 4), (3, 1)), ((1,), (5,)), ((0,), (1,)), ((5, 0), (5, 1)), ((2, 3, 1, 5), (4, 1)),
]
# Pairs NumPy refuses (ValueError): for the exception checks.
BAD_BROADCAST_PAIRS = [((3,), (4,)), ((2, 3), (3, 2)), ((0,), (2,)), ((2, 1, 3), (4, 3, 3))]

# Views made by slicing a larger array: (id, base shape, function of the array). Apply the
# function on the xp side so that numfuse itself handles the strides and the offset.
VIEWS = [
    ("step2", (12,), lambda a: a[::2]),
    ("reversed", (9,), lambda a: a[::-1]),
    ("offset", (10,), lambda a: a[3:8]),
    ("rev_step3", (20,), lambda a: a[-2::-3]),
    ("transpose", (4, 5), lambda a: a.T),
    ("cols", (4, 6), lambda a: a[:, 1:4]),
    ("neg_cols", (4, 6), lambda a: a[:, ::-2]),
    ("inner", (6, 7), lambda a: a[1:-1, 2:-1]),
    ("rev_rows_step_cols", (5, 8), lambda a: a[::-1, ::3]),
    ("3d_mixed", (4, 5, 6), lambda a: a[::2, ::-1, 1::2]),
    ("swapped_3d", (3, 4, 5), lambda a: a.transpose(2, 0, 1)),
    ("empty_slice", (5, 4), lambda a: a[3:1]),
    ("zero_d", (4,), lambda a: a[2, ...]),
]


def make_array(shape, dtype, seed=0, low=None, high=None):
    """Deterministic NumPy data for `dtype`: small ints (no overflow in sums and products),
    non-negative unsigned values, floats in [-5, 5), complex with both parts set."""
    rng = numpy.random.default_rng(seed)
    dtype = numpy.dtype(dtype)
    shape = tuple(shape)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = low if low is not None else (0 if dtype.kind == "u" else -9)
        hi = high if high is not None else 10
        return rng.integers(lo, hi, size=shape).astype(dtype)
    lo = -5.0 if low is None else low
    hi = 5.0 if high is None else high
    vals = rng.uniform(lo, hi, size=shape)
    if dtype.kind == "c":
        vals = vals + 1j * rng.uniform(lo, hi, size=shape)
    return vals.astype(dtype)


def make_view(xp, view_id, dtype, seed=0):
    """The view named view_id (see VIEWS), built on the xp side from make_array data."""
    _, base_shape, fn = next(v for v in VIEWS if v[0] == view_id)
    return fn(xp.asarray(make_array(base_shape, dtype, seed)))


VIEW_IDS = [v[0] for v in VIEWS]


def dtype_params(dtypes=None):
    """pytest.mark.parametrize over dtypes, ids as 'float32' etc."""
    return pytest.mark.parametrize("dtype", ALL_DTYPES if dtypes is None else dtypes, ids=str)


# ---- comparison --------------------------------------------------------------------------------

ULPS = 4


def default_rtol(dtype, ulps=ULPS):
    """A few ulp: ulps * machine epsilon of the (component) float type; 0 for exact dtypes."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in "fc":
        return ulps * float(numpy.finfo(dtype).eps)
    return 0.0


class OracleMismatch(AssertionError):
    """numfuse disagreed with NumPy."""


def compare(expected, got, rtol=None, atol=0.0, check_dtype=True, path="result"):
    """Raises OracleMismatch unless got (numfuse, already converted) matches expected (NumPy)."""
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            raise OracleMismatch(f"{path}: numpy gave a {type(expected).__name__} of {len(expected)}, "
                                 f"numfuse gave {type(got).__name__} {got!r:.200}")
        for i, (e, g) in enumerate(zip(expected, got)):
            compare(e, g, rtol, atol, check_dtype, f"{path}[{i}]")
        return
    if expected is None or isinstance(expected, (str, bytes)):
        if got != expected:
            raise OracleMismatch(f"{path}: numpy gave {expected!r}, numfuse gave {got!r}")
        return
    if isinstance(expected, (bool, int, float, complex)) and not isinstance(expected, numpy.generic):
        # A Python scalar from NumPy (item(), tolist(), len) must be the same Python type.
        if type(got) is not type(expected):
            raise OracleMismatch(f"{path}: numpy gave Python {type(expected).__name__}, "
                                 f"numfuse gave {type(got).__name__}")
    e, g = numpy.asarray(expected), numpy.asarray(got)
    if check_dtype and e.dtype != g.dtype:
        raise OracleMismatch(f"{path}: dtype differs: numpy {e.dtype}, numfuse {g.dtype}")
    if e.shape != g.shape:
        raise OracleMismatch(f"{path}: shape differs: numpy {e.shape}, numfuse {g.shape}")
    if e.dtype.kind in "fc" or g.dtype.kind in "fc":
        tol = default_rtol(e.dtype if e.dtype.kind in "fc" else g.dtype) if rtol is None else rtol
        try:  # NaN positions must match; infinities must match exactly
            numpy.testing.assert_allclose(g, e, rtol=tol, atol=atol, equal_nan=True,
                                          err_msg=f"{path}: values differ (numfuse vs numpy)")
        except AssertionError as err:
            raise OracleMismatch(str(err)) from None
    elif not numpy.array_equal(e, g):
        bad = numpy.argwhere(e != g) if e.shape else ()
        raise OracleMismatch(f"{path}: values differ at {len(bad)} of {e.size} positions, first "
                             f"{tuple(bad[0]) if len(bad) else ()}: numpy {e if not e.shape else e[tuple(bad[0])]!r}, "
                             f"numfuse {g if not g.shape else g[tuple(bad[0])]!r}")


def _call(fn, xp, args, kwargs):
    try:
        return fn(xp, *args, **kwargs), None
    except Exception as e:  # the comparison decides whether this was expected
        return None, e


def run_both(fn, *args, device="cpu", impl=None, rtol=None, atol=0.0, check_dtype=True, **kwargs):
    """Calls fn(xp, *args, **kwargs) under NumPy and under impl (numfuse by default); compares.

    Usable without the decorator, e.g. inside a Hypothesis test. Returns NumPy's result.
    """
    impl = impl if impl is not None else numfuse_module()
    if impl is None:  # a broken build must fail the suite, never skip it
        pytest.fail(f"{NUMFUSE_MODULE} cannot be imported: {_numfuse_error}")
    expected, e_exc = _call(fn, XP(numpy, device), args, kwargs)
    got, g_exc = _call(fn, XP(impl, device), args, kwargs)
    if e_exc is not None or g_exc is not None:
        if e_exc is None:
            raise OracleMismatch(f"numfuse raised {type(g_exc).__name__}: {g_exc}; numpy raised nothing") from g_exc
        if g_exc is None:
            raise OracleMismatch(f"numpy raised {type(e_exc).__name__}: {e_exc}; numfuse raised nothing "
                                 f"and returned {got!r:.200}") from e_exc
        if not isinstance(g_exc, public_exception_class(type(e_exc))):
            raise OracleMismatch(f"numpy raised {type(e_exc).__module__}.{type(e_exc).__name__}: {e_exc}; "
                                 f"numfuse raised {type(g_exc).__module__}.{type(g_exc).__name__} "
                                 f"(must be the same class or a subclass): {g_exc}") from g_exc
        return e_exc
    compare(expected, _convert(impl, got), rtol, atol, check_dtype)
    return expected


def run_seeded_programs(program, seeds, device="cpu"):
    """run_both(program, seed) for each seed; a mismatch names the seed that rebuilds it."""
    if numfuse_module() is None:  # a broken build must fail the suite, never skip it
        pytest.fail(f"{NUMFUSE_MODULE} cannot be imported: {_numfuse_error}")
    for seed in seeds:
        try:
            run_both(program, seed, device=device)
        except AssertionError as e:
            raise AssertionError(f"program seed {seed}: {e}") from None


def public_exception_class(cls):
    """NumPy's exception class as users can name it: private subclasses such as
    numpy._core._exceptions._UFuncOutputCastingError map to their public ancestor
    (UFuncTypeError), which numfuse's own UFuncTypeError subclasses."""
    for c in cls.__mro__:
        if not c.__qualname__.startswith("_"):
            return c
    return cls


def _convert(mod, value):
    if isinstance(value, (tuple, list)):
        return type(value)(_convert(mod, v) for v in value)
    return to_numpy(mod, value)


def oracle(rtol=None, atol=0.0, check_dtype=True, impl=None):
    """Decorator: run the body under NumPy and numfuse and compare (see the module docstring).

    rtol: None for a few ulp of the result's dtype; a number to loosen it (reductions, say).
    impl: the module to test against NumPy (default: numfuse); the self-check passes fakes.
    """
    def deco(fn):
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if not params or params[0].name != "xp":
            raise TypeError(f"{fn.__name__}: an @oracle test body takes xp as its first argument")
        takes_device = "device" in sig.parameters
        outer = params[1:]
        if not takes_device:
            outer.append(inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY))

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            device = kwargs.pop("device", "cpu")
            extra = {"device": device} if takes_device else {}

            def body(xp, *a, **k):
                return fn(xp, *a, **extra, **k)
            run_both(body, *args, device=device, impl=impl, rtol=rtol, atol=atol,
                     check_dtype=check_dtype, **kwargs)

        # pytest reads the signature to find fixtures: hide xp, show device.
        wrapper.__signature__ = sig.replace(parameters=outer)
        del wrapper.__wrapped__
        return wrapper
    return deco
