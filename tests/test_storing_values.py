"""Values that cannot be stored, integer powers with negative exponents and where= checks
(issue 10): numfuse raises what NumPy raises, at the call, and stores what NumPy stores.

Every Python scalar kind (NaN, infinities, huge and fractional floats, out-of-range ints,
complex) goes into every dtype through every way of storing it: basic setitem of one element and
of a slice, fill, integer-array and mask setitem, and full()."""
import warnings

import numpy
import pytest

from harness import ALL_DTYPES, make_array, run_both

VALUES = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, -1.5, 2.5, 300, -1, 2**63 - 1,
          2**64 - 1, 1 + 2j, 3 + 0j, True, 0.0, -0.0]
STORES = ["element", "slice", "fill", "int_index", "mask", "full", "pending_slice"]


def _store(xp, dtype, value, how):
    with warnings.catch_warnings():
        # NumPy's casts may warn (full() of NaN into int); the comparison is of values and raises.
        warnings.simplefilter("ignore")
        if how == "full":
            return xp.full(4, value, dtype=dtype)
        a = xp.asarray(make_array((4,), dtype))
        if how == "pending_slice":
            a = a * 1 if dtype != numpy.bool_ else a | False
            a[1:3] = value
        elif how == "element":
            a[2] = value
        elif how == "slice":
            a[::2] = value
        elif how == "fill":
            a.fill(value)
        elif how == "int_index":
            a[[0, 3, 3]] = value
        else:
            a[a == a[1]] = value
        return a


@pytest.mark.parametrize("how", STORES)
@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_store_python_scalar(device, dtype, value, how):
    undefined_cast = (how == "full" and dtype.kind in "iu" and isinstance(value, float) and
                      not (abs(value) < 2.0**31))
    if undefined_cast:
        # full() casts a float NaN, infinity or out-of-range value with a C cast (a warning, no
        # error): the stored value is platform-defined, and NumPy's scalar and array casts differ.
        run_both(lambda xp: _store(xp, dtype, value, how).shape, device=device)
    else:
        run_both(_store, dtype, value, how, device=device)


EXPONENTS = [
    ("array", lambda xp: xp.asarray([2, -1, 3])),
    ("pending", lambda xp: xp.asarray([2, 1, 3]) - 2),
    ("int8", lambda xp: xp.asarray([1, 2, -3], dtype="int8")),
    ("reversed_2d", lambda xp: xp.asarray([[1, 2, 3], [3, 0, -1]])[:, ::-1]),
    ("zero_d", lambda xp: xp.asarray(-2)),
    ("python", lambda xp: -1),
    ("positive", lambda xp: xp.asarray([0, 1, 5])),
    ("uint", lambda xp: xp.asarray([0, 1, 5], dtype="uint16")),
    ("empty", lambda xp: xp.asarray([], dtype="int64")),
]


@pytest.mark.parametrize("base_dtype", ["int64", "int16", "uint8", "float64"])
@pytest.mark.parametrize("name,exponent", EXPONENTS, ids=[e[0] for e in EXPONENTS])
def test_integer_power_negative_exponent(device, base_dtype, name, exponent):
    def body(xp):
        e = exponent(xp)
        n = getattr(e, "shape", ())
        base = xp.asarray(make_array(n[-1:] if n else (3,), base_dtype, low=1, high=4))
        if n and n[-1] == 0:
            base = xp.asarray([], dtype=base_dtype)
        return base ** e, xp.power(base, e)
    run_both(body, device=device)


def test_in_place_power_negative_exponent_keeps_target(device):
    def body(xp):
        a = xp.asarray([1, 2, 3])
        try:
            a **= xp.asarray([1, -1, 1])
        except ValueError:
            pass
        return a
    run_both(body, device=device)


WHERES = [
    ("float", lambda xp: xp.asarray([1.5, 2.0, 3.0])),
    ("int", lambda xp: xp.asarray([1, 0, 1])),
    ("short", lambda xp: xp.asarray([True, False])),
    ("widening", lambda xp: xp.asarray([[True], [False]])),
    ("list", lambda xp: [True, False, True]),
    ("true", lambda xp: True),
]


@pytest.mark.parametrize("with_out", [True, False])
@pytest.mark.parametrize("name,where", WHERES, ids=[w[0] for w in WHERES])
def test_where_is_checked(device, name, where, with_out):
    def body(xp):
        a = xp.asarray([1.0, 2.0, 3.0])
        w = where(xp)
        if with_out:
            out = xp.zeros(numpy.broadcast_shapes((3,), numpy.shape(w)))
            xp.add(a, 1.0, where=w, out=out)
            return out
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            r = xp.add(a, 1.0, where=w)
        return r.shape, r.dtype.name
    run_both(body, device=device)


@pytest.mark.parametrize("module", ["numpy", "numfuse"])
def test_where_without_out_warns_as_numpy(module):
    xp = pytest.importorskip(module)
    a, mask = xp.asarray([1.0, 2.0]), xp.asarray([True, False])
    with pytest.warns(UserWarning, match="'where' used without 'out'"):
        xp.add(a, 1.0, where=mask)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xp.add(a, 1.0, where=mask, out=None)
