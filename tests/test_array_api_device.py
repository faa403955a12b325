"""What the Array API suite found on the GPU (issue 12, /work/wt/diag/aapi.txt), tested on every
device against NumPy: var/std of non-finite values (the GPU's one-pass var gave 0 for a lone NaN),
descending sorts (NumPy 2.5's `descending=`), and the fft frequency helpers' `dtype=`.
"""
import itertools
import warnings

import numpy
import pytest

from harness import numfuse_module, oracle

FLOATS = ["float32", "float64"]


def _with_non_finite(shape, dtype, seed):
    """A seeded array of `shape` with NaN, inf and -inf sprinkled in (some slices stay finite)."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    specials = [numpy.nan, numpy.inf, -numpy.inf]
    for k in range(max(1, flat.size // 4)):
        flat[rng.integers(flat.size)] = specials[rng.integers(3)]
    return x


_SHAPES_AXES = [((), None), ((1,), None), ((1,), 0), ((5,), 0), ((3, 4), None), ((3, 4), 0),
                ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), (0, 2)), ((1, 7), 1), ((7, 1), 0)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", _SHAPES_AXES, ids=str)
@pytest.mark.parametrize("ddof", [0, 1])
@oracle(rtol=1e-4)
def test_var_std_non_finite(xp, dtype, shape, axis, ddof):
    res = []
    for seed in range(3):
        a = xp.asarray(_with_non_finite(shape, dtype, seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res += [xp.var(a, axis=axis, ddof=ddof), xp.std(a, axis=axis, ddof=ddof)]
    return res


@pytest.mark.parametrize("value", [numpy.nan, numpy.inf, -numpy.inf, 2.5])
@pytest.mark.parametrize("dtype", FLOATS)
@oracle()
def test_var_std_of_one_element(xp, value, dtype):
    # The Array API suite's case: std(array(nan)) must be NaN (it was 0 on the GPU).
    a = xp.asarray(numpy.array(value, dtype=dtype))
    b = xp.asarray(numpy.array([value], dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.var(a), xp.std(a), xp.var(b, axis=0), xp.std(b, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
@oracle()
def test_var_std_all_infinite_or_mixed(xp, dtype):
    rows = [[numpy.inf, numpy.inf], [numpy.inf, 1.0], [-numpy.inf, numpy.inf], [1.0, numpy.nan],
            [numpy.nan, numpy.nan], [1.0, 3.0]]
    a = xp.asarray(numpy.array(rows, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.var(a, axis=1), xp.std(a, axis=1, ddof=1), xp.var(a.T, axis=0)


@pytest.fixture
def nf():
    return numfuse_module()


# ---- descending sorts (NumPy 2.5's `descending=`; the Array API's sort/argsort) -----------------

def _isnan(v):
    return v != v


def _greater(a, b):
    """NumPy 2.5's descending comparator (numpy_tag.h): a before b; NaNs last in both orders,
    complex numbers by real part then imaginary part, per NaN class."""
    if isinstance(a, complex):
        ra, ia, rb, ib = a.real, a.imag, b.real, b.imag
        if ra > rb:
            return not _isnan(ia) or _isnan(ib)
        if ra < rb:
            return _isnan(ib) and not _isnan(ia)
        if ra == rb or (_isnan(ra) and _isnan(rb)):
            return ia > ib or (_isnan(ib) and not _isnan(ia))
        return _isnan(rb)
    return not _isnan(a) and (b < a or _isnan(b))


def _descending_order(line):
    """Stable order of a 1-D list of Python scalars by _greater (Python's sort is stable)."""
    import functools
    cmp = functools.cmp_to_key(lambda i, j: -1 if _greater(line[i], line[j]) else
                               (1 if _greater(line[j], line[i]) else 0))
    return sorted(range(len(line)), key=cmp)


def _reference_argsort_desc(x, axis):
    """argsort(x, axis, descending=True, stable=True) computed one line at a time on the host."""
    if axis is None:
        x, axis = x.reshape(-1), -1
    moved = numpy.moveaxis(x, axis, -1)
    out = numpy.empty(moved.shape, dtype=numpy.int64)
    for idx in numpy.ndindex(moved.shape[:-1]):
        out[idx] = _descending_order(moved[idx].tolist())
    return numpy.moveaxis(out, -1, axis)


def _ties_and_specials(shape, dtype, seed):
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        pool = numpy.array([info.min, info.max, 0, 1, 2, 2, 3], dtype=dt)
        return pool[rng.integers(0, pool.size, shape)]
    pool = [0.5, -1.0, 2.0, 2.0, numpy.inf, -numpy.inf, numpy.nan, 7.25]
    x = numpy.array(pool, dtype=numpy.float64)[rng.integers(0, len(pool), shape)]
    if dt.kind == "c":
        y = numpy.array(pool, dtype=numpy.float64)[rng.integers(0, len(pool), shape)]
        z = numpy.empty(shape, dtype=dt)
        z.real, z.imag = x, y
        return z
    return x.astype(dt)


SORT_DTYPES = ["bool", "int8", "uint8", "int16", "uint32", "int64", "uint64", "float16", "float32",
               "float64", "complex64", "complex128"]
_SORT_SHAPES_AXES = [((1,), -1), ((9,), 0), ((4, 6), -1), ((4, 6), 0), ((3, 1, 5), 1),
                     ((2, 3, 4), None), ((0, 3), 1)]


@pytest.mark.parametrize("dtype", SORT_DTYPES)
@pytest.mark.parametrize("shape,axis", _SORT_SHAPES_AXES, ids=str)
def test_sort_and_argsort_descending(nf, device, dtype, shape, axis):
    for seed in range(2):
        x = _ties_and_specials(shape, dtype, seed)
        want_idx = _reference_argsort_desc(x, axis)
        flat = x.reshape(-1) if axis is None else x
        want = numpy.take_along_axis(flat, want_idx, -1 if axis is None else axis)
        a = nf.asarray(x, device=device)
        for stable in (None, True, False):
            idx = nf.argsort(a, axis=axis, descending=True, stable=stable)
            got = nf.sort(a, axis=axis, descending=True, stable=stable)
            assert idx.dtype == numpy.int64 and got.dtype == x.dtype
            numpy.testing.assert_array_equal(nf.asnumpy(idx), want_idx)
            numpy.testing.assert_array_equal(nf.asnumpy(got), want)  # NaNs in the same places
        # descending=False / None: the ascending sort
        numpy.testing.assert_array_equal(nf.asnumpy(nf.argsort(a, axis=axis, descending=False)),
                                         numpy.argsort(x, axis=axis, stable=True))
        numpy.testing.assert_array_equal(nf.asnumpy(nf.sort(a, axis=axis, descending=None)),
                                         numpy.sort(x, axis=axis))


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex128"])
def test_sort_methods_descending(nf, device, dtype):
    x = _ties_and_specials((5, 7), dtype, 3)
    a = nf.asarray(x, device=device)
    want_idx = _reference_argsort_desc(x, 0)
    numpy.testing.assert_array_equal(nf.asnumpy(a.argsort(axis=0, descending=True)), want_idx)
    a.sort(axis=0, descending=True)  # in place, as NumPy's method
    numpy.testing.assert_array_equal(nf.asnumpy(a), numpy.take_along_axis(x, want_idx, 0))


def test_descending_matches_installed_numpy_where_it_has_it(nf, device):
    # NumPy 2.5 has `descending=`; 2.4 (CI) has not, where the reference above stands in.
    x = _ties_and_specials((6, 8), "float64", 4)
    try:
        want = numpy.argsort(x, axis=1, descending=True, stable=True)
    except TypeError:
        pytest.skip(f"NumPy {numpy.__version__} has no descending sorts")
    got = nf.argsort(nf.asarray(x, device=device), axis=1, descending=True, stable=True)
    numpy.testing.assert_array_equal(nf.asnumpy(got), want)


def test_sort_signatures_have_descending(nf):
    import inspect
    for f in (nf.sort, nf.argsort):
        p = inspect.signature(f).parameters["descending"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY


# ---- fft.fftfreq / rfftfreq with the Array API's dtype= (2024.12) --------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 64, 101])
@pytest.mark.parametrize("d", [1.0, 0.3, 4])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_fftfreq_dtype(nf, device, n, d, dtype):
    for name in ("fftfreq", "rfftfreq"):
        want = getattr(numpy.fft, name)(n, d)
        want = want if dtype is None else want.astype(dtype)
        got = getattr(nf.fft, name)(n, d, device=device, dtype=dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_allclose(nf.asnumpy(got), want, rtol=1e-15 if want.dtype == numpy.float64 else 1e-7)
        assert str(got.device).startswith(device)


@pytest.mark.parametrize("dtype", ["int64", "complex128", "bool"])
def test_fftfreq_dtype_must_be_real_floating(nf, dtype):
    for name in ("fftfreq", "rfftfreq"):
        with pytest.raises(ValueError, match="real floating"):
            getattr(nf.fft, name)(8, dtype=dtype)


# ---- linalg.vector_norm over axis=() (NumPy: each element its own vector) --------------------------

@pytest.mark.parametrize("ord", [2, 1, numpy.inf, -numpy.inf, 0, 3, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
@oracle(rtol=1e-12)
def test_vector_norm_of_no_axes(xp, ord, keepdims, shape):
    x = numpy.linspace(-3, 2.5, int(numpy.prod(shape))).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.linalg.vector_norm(xp.asarray(x), axis=(), ord=ord, keepdims=keepdims)
