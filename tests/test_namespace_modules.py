"""numfuse's submodules beyond the core against NumPy's: emath (numpy.emath), testing, lib
(stride_tricks, scimath, array_utils ...), typing, ctypeslib, and the host-only families (dates,
matrix, ma, rec, strings, polynomial)."""
import ctypes

import numpy
import pytest

from harness import ALL_DTYPES, FLOAT_DTYPES, make_array, numfuse_module, oracle

nf = numfuse_module()

EMATH_ONE = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]
# Inputs inside and outside the real domains: negatives, |x| > 1, zeros, NaN and infinities.
EMATH_VALUES = {
    "inside": [0.25, 0.5, 0.0, 0.75],
    "negative": [-4.0, 2.0, 0.5, -0.25],
    "beyond_one": [3.0, -2.0, 0.5, 1.0],
    "special": [numpy.nan, numpy.inf, -numpy.inf, -0.0],
}
EMATH_DTYPES = FLOAT_DTYPES + [numpy.dtype(t) for t in (numpy.int8, numpy.int16, numpy.int32,
                                                          numpy.int64, numpy.uint8, numpy.uint16,
                                                          numpy.complex64, numpy.complex128)]


def _values(name, dtype):
    vals = numpy.asarray(EMATH_VALUES[name])
    if dtype.kind in "iu":
        vals = numpy.round(vals * 4)
        if dtype.kind == "u":
            vals = numpy.abs(vals)
    return vals.astype(dtype)


EMATH_CASES = [(d, v) for d in EMATH_DTYPES for v in EMATH_VALUES
               if not (d.kind in "iu" and v == "special")]  # integers have no NaN or infinity


@pytest.mark.parametrize("dtype,values", EMATH_CASES, ids=str)
@pytest.mark.parametrize("func", EMATH_ONE)
def test_emath_one_argument(device, func, dtype, values):
    host = _values(values, dtype)

    @oracle(rtol=1e-5 if dtype in (numpy.float16, numpy.float32, numpy.complex64) else None)
    def body(xp):
        with xp.errstate(all="ignore"):
            return getattr(xp.emath, func)(xp.asarray(host))
    body(device=device)


@pytest.mark.parametrize("x", [-1, 4, -2.5, 0.0, 3 + 4j, -8])
@pytest.mark.parametrize("func", EMATH_ONE)
@oracle()
def test_emath_python_scalars(xp, func, x):
    with xp.errstate(all="ignore"):
        return getattr(xp.emath, func)(x)


@pytest.mark.parametrize("x,p", [([-2, 4], 2), ([2, 4], -2), ([2, 4], [2, 4]), ([-8.0, 27.0], 1 / 3),
                                 ([4.0, 9.0], 0.5), ([-1, 1], [-1, 2])])
@oracle(rtol=1e-12)
def test_emath_power(xp, x, p):
    return xp.emath.power(xp.asarray(x), p if numpy.ndim(p) == 0 else xp.asarray(p))


@pytest.mark.parametrize("n,x", [(2, [4, 8]), (2, [-4, 8]), ([2, 4], [4, 16]), (-2, 4.0),
                                 (10.0, [100.0, -1000.0])])
@oracle(rtol=1e-12)
def test_emath_logn(xp, n, x):
    return xp.emath.logn(n if numpy.ndim(n) == 0 else xp.asarray(n), xp.asarray(x))


def test_emath_is_lib_scimath_and_numpy_dispatches_to_it(device):
    assert nf.lib.scimath.sqrt is nf.emath.sqrt
    a = nf.asarray([-4.0, 4.0], device=device)
    got = numpy.emath.sqrt(a)
    assert isinstance(got, nf.ndarray) and got.dtype == numpy.complex128
    numpy.testing.assert_allclose(nf.asnumpy(got), [2j, 2])


# ---- numfuse.testing --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_testing_asserts_accept_numfuse_arrays(device, dtype):
    host = make_array((3, 4), dtype)
    a = nf.asarray(host, device=device)
    nf.testing.assert_array_equal(a, host)
    nf.testing.assert_array_equal(host, a)
    nf.testing.assert_equal(a, a)
    nf.testing.assert_equal({"x": [a, 1]}, {"x": [host, 1]})
    nf.testing.assert_allclose(a, host)
    if dtype.kind != "b":
        nf.testing.assert_array_almost_equal(a, host)
        nf.testing.assert_array_less(a, nf.asarray(host, device=device) + 1 if dtype.kind != "u"
                                     or numpy.all(host < numpy.iinfo(dtype).max) else host + 1)


def test_testing_failures_match_numpys_messages(device):
    host = numpy.arange(6.0).reshape(2, 3)
    other = host + numpy.array([0, 0, 1e-3])
    a, b = nf.asarray(host, device=device), nf.asarray(other, device=device)
    for name, args in [("assert_array_equal", ()), ("assert_allclose", ()),
                       ("assert_array_almost_equal", (6,)), ("assert_equal", ())]:
        with pytest.raises(AssertionError) as want:
            getattr(numpy.testing, name)(host, other, *args)
        with pytest.raises(AssertionError) as got:
            getattr(nf.testing, name)(a, b, *args)
        assert str(got.value) == str(want.value)
    with pytest.raises(AssertionError, match="shapes"):
        nf.testing.assert_array_equal(a, nf.ones(3, device=device))


def test_testing_reexports_everything():
    for name in numpy.testing.__all__:
        assert hasattr(nf.testing, name), name
    assert nf.testing.suppress_warnings is numpy.testing.suppress_warnings
    assert nf.testing.assert_raises is numpy.testing.assert_raises


# ---- numfuse.lib ------------------------------------------------------------------------------

def test_lib_names_are_numpys():
    for name in numpy.lib.__all__:
        assert hasattr(nf.lib, name), name
    assert nf.lib.mixins.NDArrayOperatorsMixin is numpy.lib.mixins.NDArrayOperatorsMixin
    assert nf.lib.NumpyVersion is numpy.lib.NumpyVersion
    assert nf.lib.NumpyVersion(numpy.__version__) >= "2.0.0"
    assert nf.lib.array_utils.normalize_axis_index(-1, 3) == 2


WINDOWS = [((7,), 3, None), ((4, 5), (2, 2), None), ((4, 5), 2, 1), ((4, 5), (2, 3), (0, 1)),
           ((3, 4, 5), (2, 2), (0, -1)), ((6,), (2, 3), (0, 0)), ((4, 5), 1, 0), ((5,), 5, None)]


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.float32), numpy.dtype(numpy.int64),
                                   numpy.dtype(numpy.bool_)], ids=str)
@pytest.mark.parametrize("view", ["c", "t", "sliced"])
@pytest.mark.parametrize("shape,window,axis", WINDOWS, ids=str)
@oracle()
def test_sliding_window_view(xp, shape, window, axis, view, dtype):
    base = xp.asarray(make_array(shape, dtype))
    x = {"c": base, "t": base.T, "sliced": base[..., ::-1][1:] if base.shape[0] > 1 else base}[view]
    win = window
    if view == "t" and axis is None:
        win = tuple(reversed(window)) if isinstance(window, tuple) else window
    v = xp.lib.stride_tricks.sliding_window_view(x, win, axis=axis)
    assert v.flags.writeable is False
    return v


@pytest.mark.parametrize("window,axis", [((8,), None), ((-1,), None), ((2, 2), None), ((2,), 3),
                                         ((2, 2), (0,))])
@oracle()
def test_sliding_window_view_errors(xp, window, axis):
    return xp.lib.stride_tricks.sliding_window_view(xp.arange(7.0), window, axis=axis)


@pytest.mark.parametrize("shape,strides", [((3, 3), (8, 8)), ((4,), (0,)), ((2, 3), (24, 8)),
                                           ((3,), (-8,)), ((2, 2), (16, -8))])
def test_as_strided_views_memory_and_writes_reach_it(device, shape, strides):
    host = numpy.arange(12.0)
    a = nf.asarray(host, device=device)
    start = 8 * 5 if min(strides) < 0 else 0
    want = numpy.lib.stride_tricks.as_strided(host[start // 8:], shape, strides)
    got = nf.lib.stride_tricks.as_strided(a[start // 8:], shape, strides)
    numpy.testing.assert_array_equal(nf.asnumpy(got), want)
    assert got.strides == want.strides
    if 0 not in strides:
        got[(0,) * len(shape)] = -1.0
        assert float(a[start // 8]) == -1.0


def test_as_strided_refuses_memory_outside_the_storage(device):
    a = nf.arange(4.0, device=device)
    with pytest.raises(ValueError):
        nf.lib.stride_tricks.as_strided(a, (5,), (8,))
    with pytest.raises(ValueError):
        nf.lib.stride_tricks.as_strided(a[1:], (2,), (-16,))
    v = nf.lib.stride_tricks.as_strided(a, (2,), (8,), writeable=False)
    with pytest.raises(ValueError):
        v[0] = 1


def test_as_strided_of_a_pending_array_sees_its_values(device, lazy_graph):
    a = nf.arange(6.0, device=device) * 2
    v = nf.lib.stride_tricks.as_strided(a, (5, 2), (8, 8))
    numpy.testing.assert_array_equal(nf.asnumpy(v), numpy.lib.stride_tricks.as_strided(
        numpy.arange(6.0) * 2, (5, 2), (8, 8)))


def test_stride_tricks_broadcast_is_numfuses():
    assert nf.lib.stride_tricks.broadcast_to is nf.broadcast_to
    assert nf.lib.stride_tricks.broadcast_shapes((2, 1), (3,)) == (2, 3)


# ---- typing, ctypeslib, core ------------------------------------------------------------------

def test_typing_names_are_numpys():
    assert {"ArrayLike", "DTypeLike", "NDArray"} <= set(nf.typing.__all__)
    for name in numpy.typing.__all__:
        assert getattr(nf.typing, name) is getattr(numpy.typing, name)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c" and d != numpy.float16],
                         ids=str)
def test_ctypeslib_as_ctypes_shares_cpu_memory(dtype):
    host = make_array((2, 3), dtype)
    a = nf.asarray(host, device="cpu")
    c = nf.ctypeslib.as_ctypes(a)
    want = numpy.ctypeslib.as_ctypes(host.copy())
    assert type(c) is type(want)
    assert numpy.array_equal(numpy.ctypeslib.as_array(c), host)
    c[0][0] = c[1][2]
    assert nf.asnumpy(a)[0, 0] == host[1, 2]


def test_ctypeslib_as_array_copies_into_numfuse():
    buf = (ctypes.c_int32 * 4)(1, 2, 3, 4)
    got = nf.ctypeslib.as_array(buf)
    want = numpy.ctypeslib.as_array(buf)
    assert isinstance(got, nf.ndarray) and got.dtype == want.dtype
    numpy.testing.assert_array_equal(nf.asnumpy(got), want)
    ptr = ctypes.cast(buf, ctypes.POINTER(ctypes.c_int32))
    numpy.testing.assert_array_equal(nf.asnumpy(nf.ctypeslib.as_array(ptr, (2, 2))),
                                     numpy.ctypeslib.as_array(ptr, (2, 2)))


@pytest.mark.skipif(not hasattr(numpy, "core"), reason="the installed NumPy removed numpy.core")
def test_core_is_numpys_shim():
    assert nf.core is numpy.core


# ---- the host-only families -------------------------------------------------------------------

def test_host_family_names_are_numpys():
    for name in ("datetime64", "timedelta64", "datetime_data", "busdaycalendar", "matrix",
                 "recarray", "record", "ma", "rec", "char", "strings", "f2py"):
        if hasattr(numpy, name):  # those the installed NumPy has
            assert getattr(nf, name) is getattr(numpy, name), name


@pytest.mark.parametrize("dtype", ["M8[D]", "m8[s]"])
def test_datetime_arrays_are_refused_naming_the_dtype(device, dtype):
    with pytest.raises(TypeError, match=numpy.dtype(dtype).str.replace("[", r"\[").replace("]", r"\]")):
        nf.asarray(numpy.array([1, 2], dtype=dtype), device=device)


def test_isnat_and_datetime_functions_delegate_to_numpy(device):
    d = numpy.array(["2024-01-01", "NaT", "2024-03-01"], dtype="M8[D]")
    numpy.testing.assert_array_equal(nf.isnat(d), numpy.isnat(d))
    numpy.testing.assert_array_equal(nf.datetime_as_string(d), numpy.datetime_as_string(d))
    assert nf.datetime_data(d.dtype) == numpy.datetime_data(d.dtype)
    with pytest.raises(TypeError) as want:
        numpy.isnat(numpy.zeros(3))
    with pytest.raises(TypeError) as got:
        nf.isnat(nf.zeros(3, device=device))
    assert str(got.value) == str(want.value)
    begin, end = numpy.array(["2024-01-01", "2024-02-01"], "M8[D]"), numpy.array(
        ["2024-03-01", "2024-02-29"], "M8[D]")
    got = nf.busday_count(begin, end)
    assert isinstance(got, nf.ndarray)
    numpy.testing.assert_array_equal(nf.asnumpy(got), numpy.busday_count(begin, end))
    numpy.testing.assert_array_equal(nf.asnumpy(nf.is_busday(begin)), numpy.is_busday(begin))
    numpy.testing.assert_array_equal(nf.busday_offset(begin, nf.asarray([1, 2], device=device)),
                                     numpy.busday_offset(begin, [1, 2]))


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.float64), numpy.dtype(numpy.int32)], ids=str)
def test_matrix_functions_give_numpy_matrices(device, dtype):
    host = make_array((2, 3), dtype)
    a = nf.asarray(host, device=device)
    m = nf.asmatrix(a)
    assert type(m) is numpy.matrix
    numpy.testing.assert_array_equal(m, numpy.asmatrix(host))
    b = nf.bmat([[a, a], [a, a]])
    numpy.testing.assert_array_equal(b, numpy.bmat([[host, host], [host, host]]))
    assert type(b) is numpy.matrix
