"""numpy.cumulative_sum / cumulative_prod (NumPy 2.1, the Array API's): axis rules, include_initial,
dtype, out=, 0-d and empty inputs, against NumPy."""
import numpy
import pytest

from harness import ALL_DTYPES, make_array, oracle


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
@oracle()
def test_axis_and_initial(xp, name, include_initial, dtype, device):
    a = xp.asarray(make_array((3, 4), dtype))
    fn = getattr(xp, name)
    return (fn(a, axis=0, include_initial=include_initial), fn(a, axis=-1, include_initial=include_initial),
            fn(a[0], include_initial=include_initial), fn(a[:, ::-2], axis=1, include_initial=include_initial))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@oracle()
def test_dtype_out_zero_d_and_empty(xp, name, device):
    fn = getattr(xp, name)
    a = xp.asarray(numpy.arange(1, 7, dtype=numpy.int8).reshape(2, 3))
    out = xp.zeros((2, 4), dtype=numpy.float64)
    r = fn(a, axis=1, dtype=numpy.int32, include_initial=True, out=out)
    return (fn(a, axis=1, dtype=numpy.int32), r is out, out, fn(xp.asarray(3.0)),
            fn(xp.asarray(3.0), include_initial=True), fn(xp.asarray(numpy.ones(0)), include_initial=True),
            fn(xp.asarray([True, False, True])))


@pytest.mark.parametrize("call", ["no_axis_2d", "axis_out_of_range"])
@oracle()
def test_errors(xp, call, device):
    a = xp.asarray(numpy.ones((2, 3)))
    if call == "no_axis_2d":
        return xp.cumulative_sum(a)
    return xp.cumulative_prod(a[0], axis=1)
