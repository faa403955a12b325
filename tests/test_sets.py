"""Set functions against NumPy: unique (every return_*, axis=None and int, equal_nan),
unique_all/counts/inverse/values, isin, intersect1d, union1d, setdiff1d, setxor1d, on every
dtype and device, with NaNs, duplicates, empty, 0-d and strided inputs, and NumPy's errors."""
import numpy
import pytest

from harness import ALL_DTYPES, make_array, oracle, run_both

from test_sort import special


def data(dtype, n=40, seed=0):
    """Many duplicates (and NaNs, infinities for inexact dtypes)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in "fc":
        a = special(dtype, n, seed)
        a[::3] = a[2]
        return a
    return make_array((n,), dtype, seed=seed, low=0 if dtype.kind != "b" else None, high=5)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("equal_nan", [True, False])
@oracle()
def test_unique_every_return(xp, dtype, equal_nan):
    a = xp.asarray(data(dtype).reshape(5, 8))
    return (xp.unique(a, equal_nan=equal_nan),
            xp.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan),
            xp.unique(a[:, ::-3], return_counts=True, equal_nan=equal_nan),
            # NumPy sorts by its unstable quicksort when return_index is not asked: the
            # inverse of distinct NaNs is then in no given order; the values it maps back are.
            _take_back(xp, xp.unique(a.T, return_inverse=True, equal_nan=equal_nan)))


def _take_back(xp, values_inverse):
    values, inverse = values_inverse
    return values[inverse]


@pytest.mark.parametrize("shape", [(0,), (1,), (3, 0), ()], ids=str)
@oracle()
def test_unique_empty_and_0d(xp, shape):
    a = xp.asarray(make_array(shape, "float64"))
    return xp.unique(a), xp.unique(a, True, True, True)


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64", "bool"])
@pytest.mark.parametrize("axis", [0, 1, -1, 2])
@oracle()
def test_unique_axis(xp, dtype, axis):
    base = make_array((6, 3, 2), dtype, low=0, high=2)
    base[3] = base[0]
    base[5] = base[1]
    if numpy.dtype(dtype).kind == "f":
        base[2, 0, 0] = base[4, 0, 0] = numpy.nan
    a = xp.asarray(base)
    return xp.unique(a, axis=axis), xp.unique(a, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (1, 4)], ids=str)
@oracle()
def test_unique_axis_edges(xp, shape):
    a = xp.asarray(make_array(shape, "int64"))
    return xp.unique(a, axis=0, return_counts=True), xp.unique(a, axis=-1)


@oracle()
def test_unique_axis_errors(xp):
    return xp.unique(xp.asarray([1, 2, 3]), axis=1)


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128", "uint8", "bool"])
@oracle()
def test_unique_array_api_family(xp, dtype):
    a = xp.asarray(data(dtype).reshape(4, 10))
    vals = xp.unique_values(a)
    every = xp.unique_all(a)
    counts = xp.unique_counts(a)
    inverse = xp.unique_inverse(a)
    # NumPy 2.4's unique_values of integers comes from a hash table in no given order.
    return (xp.sort(vals), tuple(every), tuple(counts), _take_back(xp, inverse),
            type(every).__name__, every._fields)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("invert", [False, True])
@oracle()
def test_isin(xp, dtype, invert):
    a = xp.asarray(data(dtype, 24).reshape(4, 6))
    t = xp.asarray(data(dtype, 7, seed=4))
    return (xp.isin(a, t, invert=invert), xp.isin(a[:, ::-2], t, invert=invert, assume_unique=True),
            xp.isin(a, t[:0], invert=invert), xp.isin(a[1, 2], t, invert=invert))


@oracle()
def test_isin_mixed_dtypes_and_kinds(xp):
    a = xp.asarray(numpy.arange(-3, 9, dtype=numpy.int16))
    return (xp.isin(a, xp.asarray([0.5, 2.0, 7.0])), xp.isin(a, [1, 300], kind="table"),
            xp.isin(xp.asarray([0.0, -0.0, numpy.nan]), [-0.0, numpy.nan], kind="sort"))


@pytest.mark.parametrize("call", [
    lambda xp: xp.isin(xp.asarray([1.0]), [2.0], kind="table"),
    lambda xp: xp.isin(xp.asarray([1]), [2], kind="foo"),
])
@oracle()
def test_isin_errors(xp, call):
    return call(xp)


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "bool", "uint64", "float16"])
@oracle()
def test_two_set_functions(xp, dtype):
    a = xp.asarray(data(dtype, 30).reshape(5, 6))
    b = xp.asarray(data(dtype, 17, seed=7))
    return (xp.intersect1d(a, b), xp.intersect1d(a, b, return_indices=True), xp.union1d(a, b),
            xp.setdiff1d(a, b), xp.setxor1d(a, b), xp.setdiff1d(b[::-1], a))


@pytest.mark.parametrize("dtype", ["float64", "int64"])
@oracle()
def test_assume_unique(xp, dtype):
    a = xp.asarray(numpy.array([5, 1, 9, 3, 7], dtype))
    b = xp.asarray(numpy.array([3, 4, 5, 0], dtype))
    return (xp.intersect1d(a, b, assume_unique=True), xp.intersect1d(a, b, True, True),
            xp.setdiff1d(a, b, assume_unique=True), xp.setxor1d(a, b, assume_unique=True))


@oracle()
def test_set_functions_empty(xp):
    e = xp.asarray(numpy.zeros(0))
    a = xp.asarray([1.0, 2.0, 2.0])
    return (xp.intersect1d(e, a), xp.intersect1d(e, e, return_indices=True), xp.union1d(e, e),
            xp.setdiff1d(e, a), xp.setdiff1d(a, e), xp.setxor1d(e, e), xp.setxor1d(a, e))


@oracle()
def test_unique_large(xp):
    rng = numpy.random.default_rng(3)
    a = rng.integers(0, 5000, 300_000).astype(numpy.float64)
    a[rng.integers(0, a.size, 100)] = numpy.nan
    a = xp.asarray(a)
    return xp.unique(a, return_counts=True, return_inverse=True, return_index=True)


@pytest.mark.parametrize("seed", range(12))
def test_random_set_programs(seed, device):
    """Random dtypes and sizes with many duplicates and NaNs: unique and the two-set functions
    agree with NumPy."""
    rng = numpy.random.default_rng(100 + seed)
    dtype = numpy.dtype(rng.choice(["float64", "float32", "int64", "int8", "uint16", "complex64", "bool"]))
    x = rng.integers(0, int(rng.integers(1, 20)), int(rng.integers(0, 200))).astype(dtype)
    y = rng.integers(0, 10, int(rng.integers(0, 50))).astype(dtype)
    if dtype.kind in "fc":
        x[rng.random(x.size) < 0.1] = numpy.nan
        y[rng.random(y.size) < 0.1] = numpy.nan
    equal_nan = bool(rng.random() < 0.5)

    def body(xp):
        a, b = xp.asarray(x), xp.asarray(y)
        return (xp.unique(a, True, True, True, equal_nan=equal_nan), xp.isin(a, b),
                xp.intersect1d(a, b, return_indices=True), xp.union1d(a, b), xp.setdiff1d(a, b),
                xp.setxor1d(a, b))
    run_both(body, device=device)
