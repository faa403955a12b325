"""Reductions and scans against NumPy: dtypes, axes, keepdims, empty, views, NaNs, out=, errors."""
import numpy
import pytest

from harness import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INEXACT_DTYPES, INT_DTYPES,
                     VIEW_IDS, make_array, make_view, oracle)

# Reductions add rounding steps: a looser tolerance than elementwise results.
RTOL = {numpy.dtype(numpy.float16): 4e-3, numpy.dtype(numpy.float32): 2e-6,
        numpy.dtype(numpy.complex64): 2e-6}


def rtol_for(dtype):
    return RTOL.get(numpy.dtype(dtype), 1e-12)


AXES = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2), ()]
VALUE_FUNCS = ["sum", "prod", "max", "min", "any", "all"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("fn", VALUE_FUNCS + ["mean", "argmax", "argmin", "ptp", "count_nonzero"])
def test_all_dtypes_full(fn, dtype):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        a = xp.asarray(make_array((5, 7), dtype, low=1 if fn == "prod" else None,
                                  high=3 if fn == "prod" else None))
        return getattr(xp, fn)(a)
    body()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("fn", VALUE_FUNCS)
def test_axes(fn, axis, keepdims, dtype):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        a = xp.asarray(make_array((3, 4, 5), dtype, low=0 if fn == "prod" else None,
                                  high=3 if fn == "prod" else None))
        return getattr(xp, fn)(a, axis=axis, keepdims=keepdims)
    body()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_arg_axes(fn, axis, dtype):
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((4, 6), dtype, low=0, high=3))  # many ties: first index wins
        return getattr(xp, fn)(a, axis=axis), getattr(xp, fn)(a, axis=axis, keepdims=True)
    body()


@pytest.mark.parametrize("view", VIEW_IDS)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "complex128", "bool"])
@pytest.mark.parametrize("fn", ["sum", "max", "min", "argmax", "mean", "any", "cumsum"])
def test_views(fn, dtype, view):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        a = make_view(xp, view, dtype)
        if fn in ("max", "argmax") and a.size == 0:
            return getattr(xp, fn)(a)  # raises ValueError on both
        res = [getattr(xp, fn)(a)]
        for ax in range(a.ndim):
            if not (fn in ("max", "argmax") and a.shape[ax] == 0):
                res.append(getattr(xp, fn)(a, axis=ax))
        return res
    body()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
def test_outer_and_inner_large(dtype, axis):
    """Big enough for the threaded paths (split rows, split runs, row blocks)."""
    @oracle(rtol=rtol_for(dtype) * 50)
    def body(xp):
        a = xp.asarray(make_array((300, 700), dtype, low=0, high=2))
        return xp.sum(a, axis=axis), xp.max(a, axis=axis), xp.any(a, axis=axis), xp.argmin(a, axis=axis)
    body()


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float16", "float64", "complex64"])
def test_empty(shape, dtype):
    @oracle()
    def body(xp):
        a = xp.asarray(make_array(shape, dtype))
        out = [xp.sum(a), xp.prod(a), xp.any(a), xp.all(a), xp.sum(a, axis=0),
               xp.all(a, axis=-1), xp.cumsum(a)]
        out.append(xp.max(a, initial=3))
        return out
    body()


@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin", "ptp"])
def test_empty_raises(fn):
    @oracle()
    def body(xp):
        return getattr(xp, fn)(xp.asarray(numpy.zeros((0, 3))), axis=0)
    body()


def test_empty_message():
    import numfuse
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        numfuse.max(numfuse.asarray(numpy.zeros(0)))


@pytest.mark.parametrize("fn", ["sum", "max", "argmax", "mean", "var", "cumsum", "any"])
def test_zero_d(fn):
    @oracle()
    def body(xp):
        return getattr(xp, fn)(xp.asarray(numpy.float32(2.5)))
    body()


@pytest.mark.parametrize("bad", [2, -3, (0, 0), (0, -2), (0, 5)], ids=str)
@pytest.mark.parametrize("fn", ["sum", "max", "mean", "any"])
def test_bad_axis(fn, bad):
    @oracle()
    def body(xp):
        return getattr(xp, fn)(xp.asarray(numpy.ones((2, 3))), axis=bad)
    body()


def test_axis_error_class():
    import numfuse
    with pytest.raises(numpy.exceptions.AxisError):
        numfuse.sum(numfuse.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        numfuse.sum(numfuse.ones((2, 3)), axis=(1, -1))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=str)
@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin", "sum", "nanmax", "nanmin",
                                "nansum", "nanprod", "nanmean", "nanargmax", "nanargmin", "nanvar",
                                "nanstd", "nancumsum", "nancumprod"])
def test_nan(fn, dtype):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        x = make_array((4, 9), dtype, low=0.5, high=1.5)
        x[1, 3] = numpy.nan
        x[2, 0] = numpy.nan
        x[3, 8] = numpy.nan
        a = xp.asarray(x)
        return getattr(xp, fn)(a), getattr(xp, fn)(a, axis=0), getattr(xp, fn)(a, axis=1)
    body()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("seed", range(24))
def test_extremes_over_leading_axis_with_nans(seed):
    """max/min/nanmax/nanmin/fmax/fmin over axis 0: whole rows folded into a row of results by the
    vector row kernels (the vector body and its tail), NaNs in random places, runs of all-NaN
    columns, ties and signed zeros; rows wide and narrow, contiguous and transposed."""
    rng = numpy.random.default_rng(seed)
    dtype = ["float32", "float64"][seed % 2]
    rows = int(rng.integers(1, 40))
    cols = int(rng.choice([1, 3, 7, 8, 9, 31, 33, 70, 1000, 1030]))
    x = rng.choice(numpy.array([-2.0, -0.0, 0.0, 0.5, 1.0, 3.0]), (rows, cols)).astype(dtype)
    x[rng.random((rows, cols)) < [0.0, 0.02, 0.3][seed % 3]] = numpy.nan
    if cols > 4:
        x[:, cols // 2] = numpy.nan  # a column with NaN in every row

    @oracle()
    def body(xp):
        a = xp.asarray(x)
        out = []
        for v in (a, xp.asarray(numpy.ascontiguousarray(x.T)).T):
            out += [xp.max(v, axis=0), xp.min(v, axis=0), xp.nanmax(v, axis=0), xp.nanmin(v, axis=0),
                    xp.fmax.reduce(v, axis=0), xp.fmin.reduce(v, axis=0)]
        return out
    body()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_all_nan_slices():
    @oracle()
    def body(xp):
        a = xp.asarray(numpy.array([[numpy.nan, numpy.nan], [1.0, numpy.nan]]))
        return xp.nanmax(a, axis=1), xp.nanmin(a, axis=1), xp.nansum(a, axis=1), xp.nanmean(a, axis=0)
    body()


def test_nanargmax_all_nan_raises():
    @oracle()
    def body(xp):
        return xp.nanargmax(xp.asarray(numpy.array([[numpy.nan, 1.0], [numpy.nan, numpy.nan]])), axis=1)
    body()


def test_nan_propagates_large():
    """NaN in the vector kernels, in the middle and in the tail, of large contiguous arrays."""
    @oracle()
    def body(xp):
        res = []
        for pos in (0, 5000, 99998, 99999):
            x = numpy.linspace(-1, 1, 100000)
            x[pos] = numpy.nan
            a = xp.asarray(x)
            res += [xp.max(a), xp.min(a), xp.nanmax(a), xp.nanmin(a), xp.argmax(a), xp.argmin(a),
                    xp.max(a.astype(xp.float32)), xp.nanmin(a.astype(xp.float32))]
        return res
    body()


@pytest.mark.parametrize("dtype", INEXACT_DTYPES + INT_DTYPES + [numpy.dtype(bool)], ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
@pytest.mark.parametrize("ddof", [0, 1])
def test_mean_var_std(dtype, axis, ddof):
    @oracle(rtol=rtol_for(dtype) * 10)
    def body(xp):
        a = xp.asarray(make_array((6, 5), dtype))
        return (xp.mean(a, axis=axis), xp.var(a, axis=axis, ddof=ddof),
                xp.std(a, axis=axis, ddof=ddof, keepdims=True), a.mean(axis), a.var(axis), a.std(axis))
    body()


def test_mean_where():
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((4, 5), "float64"))
        w = xp.asarray(make_array((4, 5), "bool"))
        return xp.mean(a, axis=1, where=w), xp.sum(a, where=w), xp.max(a, axis=0, where=w, initial=-9.0)
    body()


def test_where_needs_initial():
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((4, 5), "float64"))
        return xp.max(a, where=xp.asarray(make_array((4, 5), "bool")))
    body()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtype_rules(dtype):
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((3,), dtype, low=0, high=3))
        return [xp.sum(a), xp.prod(a), xp.cumsum(a), xp.cumprod(a), xp.any(a), xp.all(a),
                xp.argmax(a), xp.max(a), xp.add.reduce(a), xp.multiply.accumulate(a)]
    body()


@pytest.mark.parametrize("dt", ["int8", "float32", "float64", "complex128", "uint16", "bool"])
def test_dtype_argument(dt):
    @oracle(rtol=1e-6)
    def body(xp):
        a = xp.asarray(make_array((3, 4), "float64", low=0, high=3))
        return xp.sum(a, dtype=dt), xp.sum(a, axis=0, dtype=dt), xp.prod(a, axis=1, dtype=dt), \
            xp.cumsum(a, axis=1, dtype=dt)
    body()


def test_out():
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((3, 4), "int16"))
        o1 = xp.zeros(4, dtype=xp.int8)
        r1 = xp.sum(a, axis=0, out=o1)
        o2 = xp.zeros((), dtype=xp.float32)
        xp.max(a, out=o2)
        o3 = xp.zeros((3, 4), dtype=xp.float64)
        xp.cumsum(a, axis=1, out=o3)
        o4 = xp.zeros(3, dtype=xp.int64)
        xp.argmax(a, axis=1, out=o4)
        o5 = xp.zeros(4, dtype=xp.float64)
        xp.mean(a, axis=0, out=o5)
        return r1 is o1, o1, o2, o3, o4, o5
    body()


def test_out_wrong_shape():
    @oracle()
    def body(xp):
        return xp.sum(xp.ones((2, 3)), axis=0, out=xp.zeros((1, 3)))
    body()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex(dtype):
    @oracle(rtol=rtol_for(dtype) * 10)
    def body(xp):
        a = xp.asarray(make_array((5, 200), dtype))
        return xp.sum(a), xp.sum(a, axis=0), xp.prod(a[:, :3], axis=1), xp.max(a, axis=1), \
            xp.argmin(a, axis=0), xp.var(a, axis=1), xp.cumsum(a, axis=1)
    body()


def test_float16_accuracy():
    """A long float16 sum stays as close as NumPy's (which sums in float32 blocks)."""
    import numfuse
    x = numpy.random.default_rng(1).uniform(0, 1, 100000).astype(numpy.float16)
    exact = float(numpy.sum(x.astype(numpy.float64)))
    ours = float(numfuse.sum(numfuse.asarray(x)))
    assert numfuse.sum(numfuse.asarray(x)).dtype == numpy.float16
    assert abs(ours - exact) <= max(abs(float(numpy.sum(x)) - exact), exact * 1e-3)


def test_float32_pairwise_accuracy():
    import numfuse
    x = numpy.full(10_000_001, 0.1, dtype=numpy.float32)
    exact = float(numpy.sum(x.astype(numpy.float64)))
    ours = float(numfuse.sum(numfuse.asarray(x)))
    assert abs(ours - exact) <= abs(float(numpy.sum(x)) - exact) + exact * 1e-6


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_scans(fn, axis, dtype):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        a = xp.asarray(make_array((4, 6), dtype, low=0, high=3))
        return getattr(xp, fn)(a, axis=axis), getattr(a, fn)(axis), getattr(xp, fn)(a[::-1, ::2], axis=axis)
    body()


def test_scan_large_outer():
    @oracle(rtol=1e-12)
    def body(xp):
        a = xp.asarray(make_array((500, 300), "float64"))
        return xp.cumsum(a, axis=0), xp.cumsum(a, axis=1), xp.cumsum(a.T, axis=0)
    body()


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "float32", "complex64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("axis", [0, -1])
def test_diff(dtype, n, axis):
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((4, 5), dtype))
        return xp.diff(a, n=n, axis=axis)
    body()


def test_diff_prepend_append():
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((3, 4), "int32"))
        return (xp.diff(a, prepend=0), xp.diff(a, axis=0, append=xp.asarray(make_array((2, 4), "int32"))),
                xp.diff(a, n=2, prepend=1.5, append=-1))
    body()


@pytest.mark.parametrize("bad", ["zero_d", "neg_n"])
def test_diff_errors(bad):
    @oracle()
    def body(xp):
        if bad == "zero_d":
            return xp.diff(xp.asarray(numpy.float64(1.0)))
        return xp.diff(xp.ones(3), n=-1)
    body()


def test_average():
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((3, 4), "float64"))
        w = xp.asarray(make_array((4,), "float64", low=0.5, high=2))
        return xp.average(a), xp.average(a, axis=1, weights=w), xp.average(a, axis=0, returned=True)
    body()


@pytest.mark.parametrize("uf", ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or",
                                "fmax", "fmin"])
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_ufunc_reduce(uf, dtype):
    @oracle(rtol=rtol_for(dtype))
    def body(xp):
        a = xp.asarray(make_array((3, 4, 2), dtype, low=0, high=3))
        u = getattr(xp, uf)
        return u.reduce(a), u.reduce(a, axis=1), u.reduce(a, axis=None), u.reduce(a, axis=(0, 2), keepdims=True)
    body()


@pytest.mark.parametrize("uf", ["add", "multiply"])
def test_ufunc_accumulate(uf):
    @oracle()
    def body(xp):
        a = xp.asarray(make_array((3, 4), "int8", low=0, high=3))
        u = getattr(xp, uf)
        return u.accumulate(a), u.accumulate(a, axis=1), u.accumulate(a, dtype=xp.float32)
    body()


def test_accumulate_scalar_raises():
    @oracle()
    def body(xp):
        return xp.add.accumulate(xp.asarray(numpy.int32(3)))
    body()


def test_numpy_dispatch():
    """numpy.sum(numfuse_array) and numpy.add.reduce run numfuse's."""
    import numfuse
    a = numfuse.asarray(numpy.arange(6.0).reshape(2, 3))
    assert isinstance(numpy.sum(a, axis=0), numfuse.ndarray)
    assert isinstance(numpy.add.reduce(a), numfuse.ndarray)
    numpy.testing.assert_array_equal(numfuse.asnumpy(numpy.cumsum(a)), numpy.cumsum(numpy.arange(6.0)))


def test_lazy(lazy_graph):
    """A reduction is a pending node; its result reads back right."""
    import numfuse
    a = numfuse.asarray(numpy.arange(10.0))
    before = numfuse.pending_node_count()
    s = (a * 2).sum()
    assert numfuse.pending_node_count() > before
    assert float(s) == 90.0


@pytest.mark.parametrize("shape,axis", [((100_000,), None), ((300, 1000), 1), ((1000, 300), 0), ((7,), 0)])
@pytest.mark.parametrize("dtype", ["int64", "float64", "float32"])
@oracle(rtol=1e-5)
def test_sum_and_prod_add_initial_once(xp, shape, axis, dtype):
    # The initial value is part of the result once, however many threads or blocks reduce an
    # output (on the GPU each thread's accumulator started from it: 256 times in a sum).
    a = xp.asarray(make_array(shape, dtype, low=0, high=3))
    small = xp.asarray(make_array(shape, "float64", low=0.99, high=1.01))
    return xp.sum(a, axis=axis, initial=1), xp.sum(a, axis=axis, initial=-7, keepdims=True), \
        xp.prod(small, axis=axis, initial=2.0)
