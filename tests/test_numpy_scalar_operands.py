"""NumPy scalars as operators' operands (`a * numpy.float32(c)`, `numpy.float64(c) - a`, `a += s`):
read in place by the bindings (no numpy.asarray) with NumPy 2's strong dtype, for every scalar
dtype against arrays of every dtype, on both sides of the operator."""
import operator

import numpy
import pytest

from harness import ALL_DTYPES, make_array, oracle

OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.lt]


def scalar_of(dtype):
    """A value every dtype holds exactly (1 for bool: True)."""
    return numpy.dtype(dtype).type(1 if numpy.dtype(dtype).kind == "b" else 3)


@pytest.mark.parametrize("scalar_dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("array_dtype", ALL_DTYPES, ids=str)
@oracle()
def test_scalar_on_either_side(xp, scalar_dtype, array_dtype):
    a = xp.asarray(make_array((7,), array_dtype, low=1))
    s = scalar_of(scalar_dtype)
    out = []
    with numpy.errstate(all="ignore"):
        for op in OPS:
            if op is operator.sub and numpy.dtype(array_dtype).kind == "b" and \
                    numpy.dtype(scalar_dtype).kind == "b":
                continue  # NumPy refuses bool - bool: test_ufuncs covers that error
            out += [op(a, s), op(s, a)]
    return tuple(out)


@pytest.mark.parametrize("scalar_dtype", [numpy.float16, numpy.int8, numpy.uint64, numpy.float64,
                                          numpy.complex128], ids=str)
@oracle()
def test_scalar_into_an_inplace_operator(xp, scalar_dtype):
    a = xp.asarray(make_array((3, 5), numpy.complex128))
    a += scalar_of(scalar_dtype)
    a *= scalar_of(scalar_dtype)
    return a


# Values that a conversion through another dtype would change.
@pytest.mark.parametrize("value", [numpy.float64(1e300), numpy.float32(-0.0), numpy.float64("nan"),
                                   numpy.int64(-2**63), numpy.uint64(2**64 - 1),
                                   numpy.complex64(1.5 - 2j), numpy.float16(65504)], ids=repr)
@oracle()
def test_edge_values(xp, value):
    a = xp.asarray(make_array((4,), numpy.float64))
    with numpy.errstate(all="ignore"):
        return a + value, value * a, a == value
