"""Type promotion against NumPy 2 (NEP 50): Hypothesis draws dtypes, Python scalars and ufuncs."""
import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import ALL_DTYPES, make_array, run_both

UFUNCS = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "fmin",
          "equal", "less", "logical_and", "bitwise_or", "arctan2", "hypot", "copysign", "remainder",
          "left_shift", "heaviside", "logaddexp"]
PY_SCALARS = st.one_of(st.integers(-300, 300), st.floats(-1e3, 1e3, allow_nan=False), st.booleans(),
                       st.complex_numbers(max_magnitude=100, allow_nan=False, allow_infinity=False))
DTYPES = st.sampled_from(ALL_DTYPES)


@settings(max_examples=300, deadline=None)
@given(d1=DTYPES, d2=DTYPES, name=st.sampled_from(UFUNCS))
def test_array_array_promotion(d1, d2, name):
    def body(xp):
        with numpy.errstate(all="ignore"):
            return getattr(xp, name)(xp.asarray(make_array((3,), d1, 1, low=1)),
                                     xp.asarray(make_array((3,), d2, 2, low=1))).dtype
    run_both(body)


@settings(max_examples=300, deadline=None)
@given(d=DTYPES, scalar=PY_SCALARS, name=st.sampled_from(UFUNCS), reflected=st.booleans())
def test_array_python_scalar_promotion(d, scalar, name, reflected):
    def body(xp):
        a = xp.asarray(make_array((3,), d, 1, low=1))
        args = (scalar, a) if reflected else (a, scalar)
        with numpy.errstate(all="ignore"):
            return getattr(xp, name)(*args).dtype
    run_both(body)


@settings(max_examples=200, deadline=None)
@given(ds=st.lists(DTYPES, min_size=1, max_size=4), scalars=st.lists(PY_SCALARS, max_size=2))
def test_result_type(ds, scalars):
    run_both(lambda xp: xp.result_type(*[xp.asarray(make_array((2,), d)) for d in ds], *scalars))


@settings(max_examples=100, deadline=None)
@given(calls=st.lists(st.tuples(DTYPES, PY_SCALARS, st.sampled_from(UFUNCS)), min_size=2, max_size=6))
def test_repeated_and_alternating_calls_resolve_each_time(calls):
    # Each call twice in a row, then the next: a resolution remembered from one call must not
    # answer for another (numfuse keeps the last plain call's loop per thread).
    def body(xp):
        out = []
        for d, scalar, name in calls:
            a = xp.asarray(make_array((3,), d, 1, low=1))
            for _ in range(2):
                with numpy.errstate(all="ignore"):
                    try:
                        out.append(str(getattr(xp, name)(a, scalar).dtype))
                    except TypeError:  # NumPy's UFuncTypeError subclasses vary by case
                        out.append("TypeError")
                    except (OverflowError, ValueError) as e:
                        out.append(type(e).__name__)
        return out
    run_both(body)
