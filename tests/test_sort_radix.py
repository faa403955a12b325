"""Issue 12's GPU sort paths against NumPy, on every device (the cases are the CUDA backend's
corners; the CPU runs them too): CUB's float sort straight into the output with NaNs of either
sign (those with the sign bit set come first out of CUB and are moved to the end), argsort with
32-bit indices inside the radix passes, complex64 by one 64-bit radix key (NumPy's NaN classes,
-0.0), and unique as one node (sort, first of each run, count).
"""
import numpy
import pytest

from harness import oracle

NEG_NAN = numpy.copysign(numpy.nan, -1.0)


def floats(dtype, n, seed, nan_share=0.1, neg_nan_share=0.1, zeros=True, infs=True):
    """Normals with duplicates, +-inf, NaNs of both signs and +-0.0."""
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    if n > 4 and infs:
        a[::7] = a[1]
        a[rng.random(n) < 0.01] = numpy.inf
        a[rng.random(n) < 0.01] = -numpy.inf
    a[rng.random(n) < nan_share] = numpy.nan
    a[rng.random(n) < neg_nan_share] = NEG_NAN
    if zeros:
        a[rng.random(n) < 0.05] = -0.0
        a[rng.random(n) < 0.05] = 0.0
    return a


SIZES = [1, 2, 7, 3000, 300_001]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("nans", [(0.0, 0.0), (0.1, 0.0), (0.0, 0.1), (0.2, 0.2), (0.0, 1.0), (1.0, 0.0),
                                  (0.5, 0.6)], ids=str)
@oracle()
def test_float_sort_nans_of_either_sign(xp, dtype, n, nans):
    a = xp.asarray(floats(dtype, n, n, *nans))
    return xp.sort(a), xp.sort(a[::-1]), xp.sort(a * 2)


@oracle()
def test_float_sort_one_negative_nan_first(xp):
    a = numpy.arange(100_000, dtype=numpy.float32)
    a[50] = NEG_NAN
    a[7] = numpy.nan
    return xp.sort(xp.asarray(a))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8", "int64", "bool"])
@pytest.mark.parametrize("n", [5, 4096, 200_003])
@oracle()
def test_argsort_is_stable_with_32_bit_indices(xp, dtype, n):
    rng = numpy.random.default_rng(n)
    if numpy.dtype(dtype).kind == "f":
        h = floats(dtype, n, n, zeros=dtype != "float16")
        h[rng.random(n) < 0.3] = 1.5  # long runs of equal keys
    else:
        h = rng.integers(0, 4, n).astype(dtype)
    a = xp.asarray(h)
    return xp.argsort(a, stable=True), xp.argsort(a[::2], stable=True)


@pytest.mark.parametrize("shape,axis", [((30, 5000), -1), ((5000, 7), 0), ((3, 4, 2000), 1)], ids=str)
@oracle()
def test_segmented_argsort_and_sort(xp, shape, axis):
    h = floats("float32", int(numpy.prod(shape)), 3).reshape(shape)
    a = xp.asarray(h)
    return xp.argsort(a, axis=axis, stable=True), xp.sort(a, axis=axis)


def complex_specials(n, seed, dtype="complex64"):
    """Real and imaginary parts drawn from few values with +-0.0, +-inf and NaNs of both signs:
    every NaN class of NumPy's complex order, and many equal keys."""
    rng = numpy.random.default_rng(seed)
    parts = numpy.array([0.0, -0.0, 1.0, -1.0, 2.5, numpy.inf, -numpy.inf, numpy.nan, NEG_NAN])
    z = numpy.empty(n, dtype)
    z.real = rng.choice(parts, n)
    z.imag = rng.choice(parts, n)
    return z


@pytest.mark.parametrize("n", [1, 9, 2048, 100_001])
@oracle()
def test_complex64_radix_order(xp, n):
    a = xp.asarray(complex_specials(n, n))
    return xp.argsort(a, stable=True), xp.sort(a)


@oracle()
def test_complex64_random_and_rows(xp):
    rng = numpy.random.default_rng(5)
    h = (rng.standard_normal((40, 3000)) + 1j * rng.standard_normal((40, 3000))).astype(numpy.complex64)
    h[:, ::9] = h[:, 1:2]  # equal values: stability
    a = xp.asarray(h)
    return (xp.argsort(a, axis=-1, stable=True), xp.sort(a, axis=0), xp.argsort(a, axis=None, stable=True),
            xp.sort_complex(a[3]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint16", "int32", "uint64",
                                   "int64", "bool"])
@pytest.mark.parametrize("n", [1, 6, 5000, 250_007])
@pytest.mark.parametrize("equal_nan", [True, False])
@oracle()
def test_unique_values_one_node(xp, dtype, n, equal_nan):
    rng = numpy.random.default_rng(n)
    if numpy.dtype(dtype).kind == "f":
        # NumPy 2.4's float16 quicksort misplaces -0.0 and -inf (its np.sort is then unsorted, and
        # np.unique repeats values): neither in float16 data.
        h = floats(dtype, n, n, 0.01, 0.01, zeros=dtype != "float16", infs=dtype != "float16")
        h[rng.random(n) < 0.5] = numpy.round(h[0] * 4)  # many repeats
    elif dtype == "bool":
        h = rng.random(n) < 0.5
    else:
        info = numpy.iinfo(dtype)
        h = rng.integers(0, 50, n).astype(dtype)
        h[:: max(n // 3, 1)] = info.max  # the all-ones key is a value here, not a NaN
        h[1 :: max(n // 3, 1)] = info.min
    a = xp.asarray(h)
    return (xp.unique(a, equal_nan=equal_nan), xp.unique(a.reshape(-1)[::-3], equal_nan=equal_nan),
            xp.unique(a + a, equal_nan=equal_nan), xp.unique(a, return_counts=True, equal_nan=equal_nan),
            tuple(xp.unique_counts(a)))


@oracle()
def test_unique_values_shapes(xp):
    a = xp.asarray(numpy.array([[3.0, NEG_NAN, 1.0], [numpy.nan, 1.0, -0.0]], numpy.float32))
    return (xp.unique(a), xp.unique(a, equal_nan=False), xp.unique(xp.asarray(2.5)), xp.unique(a[:, :0]),
            xp.unique_values(a), xp.unique(a.T), xp.unique(a, return_counts=True),
            xp.unique(a, return_counts=True, equal_nan=False), xp.unique(a[:, :0], return_counts=True))


@pytest.mark.parametrize("nans", [(0.0, 0.0), (0.05, 0.0), (0.0, 0.05), (0.05, 0.05), (0.0, 1.0), (1.0, 0.0),
                                  (0.5, 0.5)], ids=str)
@pytest.mark.parametrize("equal_nan", [True, False])
@oracle()
def test_unique_counts_with_nans_of_either_sign(xp, nans, equal_nan):
    h = floats("float32", 20_001, 4, *nans)
    h[::3] = numpy.round(h[::3])  # repeats
    a = xp.asarray(h)
    return xp.unique(a, return_counts=True, equal_nan=equal_nan), xp.unique(a.astype("float64"), equal_nan=equal_nan)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint32", "int64", "uint64", "bool"])
@oracle()
def test_integer_rows_sorted_straight_into_the_output(xp, dtype):
    rng = numpy.random.default_rng(11)
    if dtype == "bool":
        h = rng.random((9, 7000)) < 0.5
    else:
        info = numpy.iinfo(dtype)
        h = rng.integers(info.min, info.max, (9, 7000), dtype=dtype, endpoint=True)
        h[:, ::5] = info.min
        h[:, 1::7] = info.max
    a = xp.asarray(h)
    return xp.sort(a, axis=-1), xp.sort(a[3]), xp.sort(a, axis=0), xp.sort(a, axis=None)


def test_cub_helper_exports_every_entry():
    """sort_radix_cuda.cpp takes each fast path only when libnumfuse_cub.so exports its entry: a
    stale helper would fall back silently (slower, still right). No GPU needed to look."""
    import ctypes
    import os

    import numfuse
    path = os.path.join(os.path.dirname(numfuse.__file__), "libnumfuse_cub.so")
    if not os.path.exists(path):
        pytest.skip("built without nvcc: no CUB helper")
    lib = ctypes.CDLL(path)
    for name in ["nf_cub_radix_sort", "nf_cub_radix_sort_v", "nf_cub_float_sort", "nf_cub_int_sort",
                 "nf_cub_unique", "nf_cub_float_unique", "nf_cub_error_string"]:
        assert hasattr(lib, name), name
