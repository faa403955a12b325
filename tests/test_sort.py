"""Sorting and searching against NumPy: sort, argsort, partition, argpartition, searchsorted,
sort_complex, lexsort and the ndarray methods, on every dtype and device.

numfuse's sorts are stable; NumPy's default quicksort is not, so argsort of data with equal keys
is compared with NumPy's stable kind. Partitions are compared through what NumPy promises: the
kth values, and the sorted elements before and after them.
"""
import numpy
import pytest

from harness import ALL_DTYPES, FLOAT_DTYPES, VIEW_IDS, make_array, make_view, oracle
import harness

SHAPES = [(0,), (1,), (7,), (3, 0), (2, 3), (4, 5), (2, 3, 4)]


def special(dtype, n=40, seed=0, neg_zero=True):
    """Floats with NaN, +-inf, -0.0 and duplicates; ints with duplicates; complex with NaN parts."""
    rng = numpy.random.default_rng(seed)
    dtype = numpy.dtype(dtype)
    a = make_array((n,), dtype, seed=seed)
    if dtype.kind in "fc":
        a[::5] = a[1]  # duplicates
        a[rng.integers(0, n, 4)] = numpy.nan
        a[rng.integers(0, n, 2)] = numpy.inf
        a[rng.integers(0, n, 2)] = -numpy.inf
        # NumPy 2.4's float16 quicksort misplaces -0.0 (its np.sort is then unsorted): no -0.0 there.
        if neg_zero and dtype != numpy.float16:
            a[rng.integers(0, n, 3)] = -0.0
            a[rng.integers(0, n, 3)] = 0.0
    if dtype.kind == "c":
        a[rng.integers(0, n, 3)] = complex(1.0, numpy.nan)
        a[rng.integers(0, n, 3)] = complex(numpy.nan, 2.0)
        a[rng.integers(0, n, 2)] = complex(numpy.nan, numpy.nan)
        a[rng.integers(0, n, 3)] = complex(1.0, -3.0)
    return a


# ---- sort / argsort ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@oracle()
def test_sort_shapes_dtypes(xp, dtype, shape):
    a = xp.asarray(make_array(shape, dtype))
    return xp.sort(a), xp.sort(a, axis=0), xp.sort(a, axis=None)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@oracle()
def test_argsort_shapes_dtypes(xp, dtype, shape):
    a = xp.asarray(make_array(shape, dtype))
    return (xp.argsort(a, kind="stable"), xp.argsort(a, axis=0, stable=True),
            xp.argsort(a, axis=None, kind="stable"))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [numpy.dtype("complex64"), numpy.dtype("complex128")], ids=str)
@pytest.mark.parametrize("n", [40, 3000, 100_003])
@oracle()
def test_nan_inf_placement(xp, dtype, n):
    a = xp.asarray(special(dtype, n))
    return xp.sort(a), xp.argsort(a, stable=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@oracle()
def test_negative_zero_is_equal_to_zero_for_stability(xp, dtype):
    a = xp.asarray(numpy.array([0.0, -0.0, 1.0, -0.0, 0.0, numpy.nan, -numpy.nan, -1.0], dtype))
    return xp.argsort(a, kind="stable"), xp.sort(a)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int8", "uint16", "int32", "bool"])
@pytest.mark.parametrize("n", [50, 5000, 200_001])
@oracle()
def test_integer_extremes_and_duplicates(xp, dtype, n):
    info = numpy.iinfo(dtype) if dtype != "bool" else None
    rng = numpy.random.default_rng(n)
    if info is None:
        a = rng.random(n) < 0.3
    else:
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        a[::3] = info.min
        a[1::7] = info.max
        a[2::11] = 0
    a = xp.asarray(a)
    return xp.sort(a), xp.argsort(a, kind="stable")


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "bool"])
@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_sort_views(xp, dtype, view):
    a = make_view(xp, view, dtype)
    if a.ndim == 0:
        return xp.sort(a, axis=None), xp.argsort(a)
    return xp.sort(a), xp.sort(a, axis=0), xp.argsort(a, axis=0, kind="stable"), xp.sort(a, axis=None)


@oracle()
def test_long_lines_along_each_axis(xp):
    a = xp.asarray(special("float64", 3 * 70_000).reshape(3, 70_000))
    return xp.sort(a, axis=-1), xp.sort(a.T, axis=0), xp.argsort(a[:, ::-2], axis=1, kind="stable")


@oracle()
def test_many_short_lines(xp):
    a = xp.asarray(make_array((300, 5, 17), "float32", low=-3, high=3).round())
    return xp.sort(a, axis=1), xp.argsort(a, axis=-1, stable=True), xp.sort(a, axis=0)


@pytest.mark.parametrize("dtype", ["float64", "int16", "complex64"])
@oracle()
def test_ndarray_sort_in_place(xp, dtype):
    a = xp.asarray(make_array((4, 6), dtype))
    b = a[:, ::-1]
    b.sort(axis=0)
    a.sort()
    return a, b.argsort(kind="stable"), a.argsort(axis=None, kind="stable")


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "bool"])
@oracle()
def test_sort_complex(xp, dtype):
    return xp.sort_complex(xp.asarray(make_array((9,), dtype)))


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.sort(a),
    lambda xp, a: xp.sort(a, axis=None),
    lambda xp, a: xp.argsort(a),
    lambda xp, a: xp.argsort(a, axis=None),
    lambda xp, a: a.argsort(),
    lambda xp, a: xp.partition(a, 0),
    lambda xp, a: xp.argpartition(a, 0),
])
@oracle()
def test_zero_d(xp, call):
    return call(xp, xp.asarray(numpy.float64(3.5)))


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.sort(a, axis=2),
    lambda xp, a: xp.sort(a, axis=-3),
    lambda xp, a: xp.argsort(a, axis=5),
    lambda xp, a: xp.sort(a, kind="foo"),
    lambda xp, a: xp.argsort(a, kind="bogus"),
    lambda xp, a: xp.sort(a, kind="stable", stable=True),
    lambda xp, a: xp.sort(a, kind=3),
    lambda xp, a: xp.sort(a, axis=1.0),
    lambda xp, a: xp.partition(a, 3),
    lambda xp, a: xp.partition(a, -4),
    lambda xp, a: xp.partition(a, 1.0),
    lambda xp, a: xp.partition(a, [[0]]),
    lambda xp, a: xp.partition(a, 1, kind="quick"),
    lambda xp, a: xp.argpartition(a, 1, axis=3),
    lambda xp, a: xp.searchsorted(a, 1.0),
    lambda xp, a: xp.searchsorted(a[0], 1.0, side="middle"),
    lambda xp, a: xp.searchsorted(a[0], 1.0, side="R"),
    lambda xp, a: xp.searchsorted(a[0], 1.0, side=None),
    lambda xp, a: xp.searchsorted(a[0], [1.0], sorter=[0, 1]),
    lambda xp, a: xp.searchsorted(a[0], [1.0], sorter=[0, 1, 3]),
    lambda xp, a: xp.searchsorted(a[0], [1.0], sorter=[0.0, 1.0, 2.0]),
    lambda xp, a: xp.lexsort([]),
    lambda xp, a: xp.lexsort((a[0], a[1, :2])),
])
@oracle()
def test_bad_arguments(xp, call):
    return call(xp, xp.asarray(make_array((2, 3), "float64")))


@pytest.mark.parametrize("kind", ["quicksort", "mergesort", "heapsort", "stable", "Q", "s", None])
@oracle()
def test_every_kind_sorts(xp, kind):
    a = xp.asarray(make_array((5, 8), "int32", low=0, high=4))
    return xp.sort(a, kind=kind), xp.argsort(a.T.copy(), kind="stable")


# ---- partition -----------------------------------------------------------------------------------

def _partition_view(xp, p, kth, axis):
    """What NumPy promises of a partition: the kth values and, sorted, what lies around them."""
    p = xp.moveaxis(p, axis, -1)
    out = []
    prev = 0
    for k in sorted(kth):
        out += [xp.sort(p[..., prev:k], axis=-1), p[..., k]]
        prev = k + 1
    out.append(xp.sort(p[..., prev:], axis=-1))
    return tuple(out)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("kth", [0, 3, -1, [1, 5], (6, 2, 2)])
@oracle()
def test_partition(xp, dtype, kth):
    a = xp.asarray(special(dtype, 7 * 9).reshape(9, 7)[:, ::-1] if dtype.kind in "fc"
                   else make_array((9, 7), dtype))
    ks = [k % 7 for k in numpy.atleast_1d(kth)]
    return _partition_view(xp, xp.partition(a, kth), ks, -1)


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128", "float16", "uint8"])
@pytest.mark.parametrize("axis", [0, 1, None])
@oracle()
def test_argpartition(xp, dtype, axis):
    a = xp.asarray(special(dtype, 8 * 6).reshape(8, 6) if numpy.dtype(dtype).kind in "fc"
                   else make_array((8, 6), dtype))
    idx = xp.argpartition(a, 2, axis=axis)
    if axis is None:
        return _partition_view(xp, xp.take(xp.reshape(a, -1), idx), [2], -1)
    return _partition_view(xp, xp.take_along_axis(a, idx, axis=axis), [2], axis)


@oracle()
def test_partition_long_line_and_method(xp):
    a = xp.asarray(special("float64", 50_001))
    b = a.copy()
    b.partition(25_000)
    return _partition_view(xp, xp.partition(a, [10, 25_000, 49_999]), [10, 25_000, 49_999], -1), b[25_000]


# ---- searchsorted --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("side", ["left", "right"])
@oracle()
def test_searchsorted(xp, dtype, side):
    hay = xp.sort(xp.asarray(special(dtype, 30, neg_zero=False)))
    needles = xp.asarray(special(dtype, 12, seed=3).reshape(3, 4)[:, ::-1])
    return (xp.searchsorted(hay, needles, side=side), hay.searchsorted(needles[0], side),
            xp.searchsorted(hay, needles[1, 2], side=side))


@pytest.mark.parametrize("v", [2, 2.5, -1, True, [1, 7], [[0.5], [9.0]]])
@oracle()
def test_searchsorted_promotes_values(xp, v):
    return xp.searchsorted(xp.asarray(numpy.arange(8, dtype=numpy.int16)), v)


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
@oracle()
def test_searchsorted_sorter(xp, dtype):
    a = xp.asarray(special(dtype, 25, neg_zero=False))
    s = xp.argsort(a, kind="stable")
    v = xp.asarray(special(dtype, 10, seed=9))
    return xp.searchsorted(a, v, sorter=s), xp.searchsorted(a, v, side="right", sorter=s)


@oracle()
def test_searchsorted_empty(xp):
    e = xp.asarray(numpy.zeros(0))
    return xp.searchsorted(e, xp.asarray([1.0, 2.0])), xp.searchsorted(xp.asarray([1.0]), e)


# ---- lexsort -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int64", "float64", "bool", "complex128"])
@oracle()
def test_lexsort(xp, dtype):
    k1 = make_array((30,), dtype, seed=1, low=0, high=3) if dtype != "bool" else make_array((30,), dtype)
    k2 = make_array((30,), dtype, seed=2, low=0, high=3) if dtype != "bool" else make_array((30,), dtype, 5)
    keys = xp.asarray(numpy.stack([k1, k2]))
    return xp.lexsort((xp.asarray(k1), xp.asarray(k2))), xp.lexsort(keys), xp.lexsort([xp.asarray(k1)])


@oracle()
def test_lexsort_2d_keys_axis(xp):
    a = xp.asarray(make_array((2, 4, 5), "int32", low=0, high=3))
    return xp.lexsort(a), xp.lexsort(a, axis=0)


# ---- a seeded property test ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_random_programs(seed, device):
    """Random shapes, axes and dtypes with many duplicates and NaNs: sort, stable argsort,
    partition and searchsorted agree with NumPy."""
    from harness import run_both
    rng = numpy.random.default_rng(seed)
    dtype = numpy.dtype(rng.choice(["float64", "float32", "int64", "int16", "uint8", "complex128",
                                    "float16", "bool"]))
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(x) for x in rng.integers(0, 9, ndim))
    if rng.random() < 0.3:
        shape = shape[:-1] + (int(rng.integers(2000, 9000)),)
    base = rng.integers(0, 6, shape)  # few distinct values: many duplicates
    data = base.astype(dtype)
    if dtype.kind in "fc" and data.size:
        flat = data.reshape(-1)
        flat[rng.random(flat.size) < 0.2] = numpy.nan
    axis = int(rng.integers(-ndim, ndim))
    n = shape[axis]
    kth = int(rng.integers(0, n)) if n else None

    def body(xp):
        a = xp.asarray(data)
        out = [xp.sort(a, axis=axis), xp.argsort(a, axis=axis, kind="stable"), xp.sort(a, axis=None)]
        if kth is not None:
            out += _partition_view(xp, xp.partition(a, kth, axis=axis), [kth], axis)
        flat = xp.sort(a, axis=None)
        out += [xp.searchsorted(flat, a[..., :3].reshape(-1)),
                xp.searchsorted(flat, a[..., :3].reshape(-1), side="right")]
        return tuple(out)
    run_both(body, device=device)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint32", "uint64"])
@pytest.mark.parametrize("span", [1, 3, 1000, 5000])
@oracle()
def test_long_line_small_range_integers(xp, dtype, span):
    """Integers in a narrow range (one radix digit or two), negative ones included where signed."""
    rng = numpy.random.default_rng(span)
    lo = -span // 2 if numpy.dtype(dtype).kind == "i" else 7
    a = rng.integers(lo, lo + span, 100_003).astype(dtype)
    a = xp.asarray(a)
    return xp.sort(a), xp.sort(a[::-2]), xp.argsort(a, kind="stable")


def test_cuda_sorts_use_cub(device):
    # Without libnumfuse_cub.so beside the module the GPU sorts fall back to merge kernels 10-25x
    # slower than CUB's radix sort, silently (the H100 runs did once): check that it was found.
    if device != "cuda":
        pytest.skip("CUB's radix sort is the cuda device's")
    import numfuse
    assert numfuse.cuda._c.cub_sort_available()


def test_searchsorted_refuses_operands_of_two_devices():
    """A kernel of one device cannot read another's memory: NumPy's-style ValueError at the call,
    never the GPU's illegal-address error (isin under Dask met it)."""
    nf = harness.numfuse_module()
    if not harness.cuda_available(nf):
        pytest.skip("needs a GPU beside the CPU")
    a = nf.asarray(numpy.arange(5.0), device="cuda")
    v = nf.asarray(numpy.array([1.5, 3.0]), device="cpu")
    with pytest.raises(ValueError, match="different devices"):
        nf.searchsorted(a, v)
    with pytest.raises(ValueError, match="different devices"):
        nf.searchsorted(v, a)
    # isin takes test elements given as a list or a NumPy array on element's device.
    got = nf.isin(nf.asarray(numpy.arange(5.0), device="cpu"), numpy.array([1.0, 3.0]))
    assert got.device == "cpu" and nf.asnumpy(got).tolist() == [False, True, False, True, False]
