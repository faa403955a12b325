"""Ufuncs against NumPy: every dtype, weak Python scalars, broadcasting, views, out=/where=/dtype=."""
import itertools

import numpy
import pytest

from harness import (ALL_DTYPES, BAD_BROADCAST_PAIRS, BROADCAST_PAIRS, FLOAT_DTYPES, INT_DTYPES,
                     VIEW_IDS, make_array, make_view, oracle)

BINARY_ARITH = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
                "power", "maximum", "minimum", "fmax", "fmin"]
BINARY_CMP = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor"]
BINARY_BITS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
BINARY_FLOAT = ["arctan2", "hypot", "copysign", "nextafter", "heaviside", "logaddexp",
                "logaddexp2", "float_power"]
UNARY = ["negative", "positive", "absolute", "fabs", "sign", "conjugate", "sqrt", "cbrt", "square",
         "reciprocal", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
         "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
         "deg2rad", "rad2deg", "floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite",
         "signbit", "logical_not", "invert"]

# Values where every function is defined for most inputs (domain errors give NaN on both sides).
def data(shape, dtype, seed=0):
    a = make_array(shape, dtype, seed)
    if numpy.dtype(dtype).kind in "iu":
        a = numpy.where(a == 0, 1, a).astype(dtype)  # no integer division by zero
    return a


@pytest.mark.parametrize("name", BINARY_ARITH + BINARY_CMP + BINARY_BITS + BINARY_FLOAT)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle(rtol=1e-5)
def test_binary_same_dtype(xp, name, dtype):
    a = xp.asarray(data((3, 4), dtype, 1))
    b = xp.asarray(data((3, 4), dtype, 2))
    if name in ("power",) and numpy.dtype(dtype).kind in "iu":
        b = xp.asarray(numpy.abs(data((3, 4), dtype, 2)) % 4)
    if name in ("left_shift", "right_shift") and numpy.dtype(dtype).kind in "iu":
        b = xp.asarray(numpy.abs(data((3, 4), dtype, 2)) % 5)
    return getattr(xp, name)(a, b)


_PAIR_DTYPES = [numpy.dtype(t) for t in ("bool", "int8", "uint8", "int32", "uint64", "int64",
                                         "float16", "float32", "float64", "complex64")]


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "less", "maximum", "divide"])
@pytest.mark.parametrize("d1,d2", list(itertools.product(_PAIR_DTYPES, _PAIR_DTYPES)), ids=str)
@oracle(rtol=1e-5)
def test_binary_mixed_dtypes(xp, name, d1, d2):
    return getattr(xp, name)(xp.asarray(data((5,), d1, 1)), xp.asarray(data((5,), d2, 2)))


@pytest.mark.parametrize("scalar", [3, -2, 2.5, 1 + 2j, True, 300, -1, 2**63 - 1])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("reflected", [False, True])
@oracle(rtol=1e-5)
def test_weak_python_scalars(xp, scalar, dtype, reflected):
    a = xp.asarray(data((4,), dtype))
    return (scalar + a, scalar * a, scalar < a) if reflected else (a + scalar, a * scalar, a < scalar)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle(rtol=1e-5)
def test_unary(xp, name, dtype):
    return getattr(xp, name)(xp.asarray(data((2, 5), dtype, 3)))


@pytest.mark.parametrize("name", ["sqrt", "log", "arccos", "arctanh", "exp", "sin", "tanh"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@oracle()
def test_unary_special_values(xp, name, dtype):
    vals = numpy.array([0.0, -0.0, 1.0, -1.0, 2.0, numpy.inf, -numpy.inf, numpy.nan, 1e-30, 700.0])
    with numpy.errstate(all="ignore"):
        return getattr(xp, name)(xp.asarray(vals.astype(dtype)))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@oracle()
def test_integer_division_by_zero_and_signs(xp, dtype):
    a = xp.asarray(numpy.array([7, 0, 5, 3, 9], dtype=dtype))
    b = xp.asarray(numpy.array([2, 3, 0, 4, 1], dtype=dtype))
    with numpy.errstate(all="ignore"):
        return xp.floor_divide(a, b), xp.remainder(a, b), xp.fmod(a, b), xp.divmod(a, b)


@pytest.mark.parametrize("s1,s2", BROADCAST_PAIRS, ids=str)
@oracle()
def test_broadcasting(xp, s1, s2):
    return xp.asarray(data(s1, "float64", 1)) - xp.asarray(data(s2, "float64", 2))


@pytest.mark.parametrize("s1,s2", BAD_BROADCAST_PAIRS, ids=str)
@oracle()
def test_bad_broadcast_raises(xp, s1, s2):
    return xp.asarray(numpy.ones(s1)) + xp.asarray(numpy.ones(s2))


@pytest.mark.parametrize("view", VIEW_IDS)
@pytest.mark.parametrize("dtype", ["int16", "float32", "complex128"])
@oracle()
def test_views_as_operands(xp, view, dtype):
    a = make_view(xp, view, dtype, 1)
    b = make_view(xp, view, dtype, 2)
    return a * b + a, xp.negative(a)


@oracle()
def test_out_argument(xp):
    a = xp.asarray(numpy.arange(6.0).reshape(2, 3))
    out = xp.zeros((2, 3))
    r = xp.add(a, 1.0, out=out)
    return r, out, r is out


@oracle()
def test_out_is_a_view(xp):
    a = xp.asarray(numpy.arange(12.0).reshape(3, 4))
    xp.multiply(a[:, :2], 10, out=a[:, 2:])
    return a


@oracle()
def test_out_cast_error(xp):
    return xp.add(xp.asarray([1, 2]), 1.5, out=xp.zeros(2, dtype="int64"))


@oracle()
def test_out_with_unsafe_casting(xp):
    out = xp.zeros(3, dtype="int32")
    xp.multiply(xp.asarray([1.5, 2.5, 3.5]), 2, out=out, casting="unsafe")
    return out


@oracle()
def test_where_argument(xp):
    a = xp.asarray(numpy.arange(6.0))
    out = xp.full(6, -1.0)
    xp.sqrt(a, out=out, where=xp.asarray(numpy.array([True, False] * 3)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64"])
@oracle()
def test_dtype_argument(xp, dtype):
    return xp.add(xp.asarray([1, 2, 3], dtype="int16"), xp.asarray([1, 2, 4], dtype="int16"), dtype=dtype)


@oracle()
def test_no_loop_raises_type_error(xp):
    return xp.bitwise_and(xp.asarray([1.0]), xp.asarray([2.0]))


@oracle()
def test_python_int_out_of_bounds(xp):
    return xp.asarray([1, 2], dtype="int8") + 300


@oracle()
def test_comparison_with_out_of_range_int(xp):
    a = xp.asarray([0, 5, 255], dtype="uint8")
    return a < -1, a == 1000, a != 300


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="])
@pytest.mark.parametrize("dtype", ["int32", "float64", "bool", "uint8"])
@oracle()
def test_inplace_operators(xp, op, dtype):
    a = xp.asarray(data((6,), dtype, 1))
    b = xp.asarray(numpy.abs(data((6,), dtype, 2)) % 3 + (0 if dtype == "bool" else 1)).astype(dtype)
    view = a[::2]
    ns = {"a": a, "b": b}
    exec(f"a {op} b", ns)
    return ns["a"], view


@oracle()
def test_inplace_cast_error(xp):
    a = xp.asarray([1, 2, 3])
    a += 1.5
    return a


@oracle()
def test_inplace_on_overlapping_view(xp):
    a = xp.asarray(numpy.arange(10.0))
    a[1:] += a[:-1]
    return a


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@oracle()
def test_multi_output(xp, dtype):
    x = xp.asarray(data((7,), dtype))
    return xp.frexp(x), xp.modf(x), xp.divmod(x, 1.5)


@oracle()
def test_operators_match_ufuncs(xp):
    a = xp.asarray(data((3, 3), "int64", 1))
    b = xp.asarray(data((3, 3), "int64", 2))
    return (a + b, a - b, a * b, a / b, a // b, a % b, -a, +a, abs(a), ~a, a & b, a | b, a ^ b,
            a == b, a != b, a < b, a <= b, a > b, a >= b, 2 ** xp.abs(b % 5), a << 2, a >> 1)


@oracle()
def test_aliases_exist(xp):
    return [getattr(xp, n).__name__ for n in ("true_divide", "mod", "abs", "conj", "bitwise_not",
                                               "acos", "pow")]


@pytest.mark.parametrize("decimals", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "uint8", "complex128"])
@oracle()
def test_round(xp, decimals, dtype):
    a = xp.asarray((make_array((9,), dtype) * 13.37).astype(dtype) if dtype != "uint8"
                   else make_array((9,), dtype) * 13)
    return xp.round(a, decimals), xp.around(a, decimals), a.round(decimals)


@pytest.mark.parametrize("lo,hi", [(0, 3), (-1.5, 2.5), (None, 2), (3, None), (5, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "uint8"])
@oracle()
def test_clip(xp, lo, hi, dtype):
    a = xp.asarray(data((2, 5), dtype))
    if dtype == "uint8" and lo is not None and lo < 0:
        lo = 0
    return xp.clip(a, lo, hi), a.clip(lo, hi)


@oracle()
def test_clip_nan_propagates(xp):
    return xp.clip(xp.asarray([numpy.nan, -3.0, 7.0]), -1, 1)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128", "int64"])
@oracle()
def test_real_imag_angle(xp, dtype):
    z = xp.asarray(data((6,), dtype))
    return xp.real(z), xp.imag(z), xp.angle(z), xp.angle(z, deg=True), xp.conj(z), z.conj()


@oracle()
def test_isclose_allclose(xp):
    a = xp.asarray([1.0, 2.0, numpy.nan, numpy.inf, 1e-9])
    b = xp.asarray([1.0 + 1e-9, 2.1, numpy.nan, numpy.inf, 0.0])
    return (xp.isclose(a, b), xp.isclose(a, b, equal_nan=True), xp.allclose(a[:2], b[:2]),
            xp.array_equal(a, a), xp.array_equal(a, a, equal_nan=True))


@pytest.mark.parametrize("exponent", [2, 2.0, 0.5, -1, -1.0, 3, 1, 0])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float32", "float64", "complex64"])
@oracle()
def test_power_operator_fast_paths(xp, exponent, dtype):
    a = xp.asarray(numpy.arange(1, 6).astype(dtype))
    return a ** exponent
