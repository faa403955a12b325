"""Reductions over every kind of layout against NumPy, from a seeded generator (issue 11): random
shapes, transpositions, negative and stepped strides, axis sets (leading, middle, several,
negative, None), keepdims, dtypes and ops, on arrays in memory and on fused expressions. Some
cases are large enough to take the threaded paths (rows split between threads, slices of one
output). The CPU reduction driver is one for fused and unfused inputs: a fused result must equal
the reduction of the same values stored first, bit for bit."""
import numpy
import pytest

from harness import make_array, numfuse_module, to_numpy

DTYPES = [numpy.float64, numpy.float32, numpy.int64, numpy.int32, numpy.uint8, numpy.bool_,
          numpy.complex128, numpy.complex64]
OPS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "var", "std"]
SMALL_DIMS = [1, 2, 3, 5, 7, 16, 33]


def make_case(seed):
    """One reduction case: (description, numpy input builder, op, axis, keepdims, fused)."""
    rng = numpy.random.default_rng(seed)
    dtype = numpy.dtype(DTYPES[rng.integers(len(DTYPES))])
    op = OPS[rng.integers(len(OPS))]
    if dtype == bool and op in ("var", "std", "mean", "prod"):
        op = "sum"
    ndim = int(rng.integers(1, 5))
    shape = [int(rng.choice(SMALL_DIMS)) for _ in range(ndim)]
    if seed % 5 == 0:  # large: the threaded paths (at least 2 * 32768 elements)
        shape = [int(rng.choice([300, 1000, 2100]))] + [int(rng.choice([64, 130, 257]))] + shape[2:3]
        ndim = len(shape)
    perm = rng.permutation(ndim) if rng.random() < 0.5 else numpy.arange(ndim)
    flips = [bool(rng.random() < 0.3) for _ in range(ndim)]
    steps = [2 if rng.random() < 0.2 else 1 for _ in range(ndim)]
    if op in ("argmax", "argmin"):
        axis = None if rng.random() < 0.2 else int(rng.integers(-ndim, ndim))
    else:
        r = rng.random()
        if r < 0.15:
            axis = None
        elif r < 0.6:
            axis = int(rng.integers(-ndim, ndim))
        else:
            k = int(rng.integers(1, ndim + 1))
            axis = tuple(int(a) for a in rng.choice(ndim, size=k, replace=False))
    keepdims = bool(rng.random() < 0.3)
    fused = bool(rng.random() < 0.5)
    nan = dtype.kind == "f" and op in ("max", "min", "argmax", "argmin", "sum") and rng.random() < 0.25
    low, high = (0.9, 1.1) if op == "prod" and dtype.kind in "fc" else (None, None)
    if op == "prod" and dtype.kind in "iu":
        low, high = 0, 2
    if op in ("argmax", "argmin", "max", "min") and dtype.kind in "fiu":
        low, high = 0, 4  # ties: the first index wins

    def build(xp, seed_data):
        base = make_array([s * st for s, st in zip(shape, steps)], dtype, seed=seed_data, low=low, high=high)
        if dtype.kind == "f" and low == 0:  # whole numbers: ties
            base = numpy.floor(base)
        if nan:
            flat = base.reshape(-1)
            flat[numpy.random.default_rng(seed_data).integers(flat.size, size=3)] = numpy.nan
        a = xp.asarray(base)
        a = a[tuple(slice(None, None, -st if f else st) for st, f in zip(steps, flips))]
        return a.transpose(tuple(int(p) for p in perm))

    desc = (f"seed={seed} {op} {dtype.name} shape={shape} perm={list(perm)} flips={flips} steps={steps} "
            f"axis={axis} keepdims={keepdims} fused={fused} nan={nan}")
    return desc, build, op, axis, keepdims, fused


def combine(xp, a, b):
    if a.dtype == bool:
        return a ^ b
    return a * b if a.dtype.kind == "f" and a.dtype.itemsize >= 4 else a + b


def reduce(xp, op, x, axis, keepdims):
    if op in ("argmax", "argmin"):
        return getattr(xp, op)(x, axis=axis, keepdims=keepdims)
    return getattr(xp, op)(x, axis=axis, keepdims=keepdims)


def tolerance(op, dtype, x_np, axis):
    """(rtol, atol): sums of n values may be associated differently from NumPy's (threads split the
    rows; NumPy adds them in order); the bound grows with n and the values' size."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc" and op not in ("mean", "var", "std"):
        return 0.0, 0.0
    eps = float(numpy.finfo(dtype if dtype.kind in "fc" else numpy.float64).eps)
    n = x_np.size if axis is None else int(numpy.prod([x_np.shape[a] for a in numpy.atleast_1d(axis)]))
    finite = numpy.abs(x_np[numpy.isfinite(x_np)]) if dtype.kind in "fc" else numpy.ones(1)
    scale = float(finite.max()) if finite.size else 1.0
    if op in ("max", "min", "argmax", "argmin", "any", "all"):
        return 0.0, 0.0
    if op == "prod":
        return 8 * n * eps, 0.0
    return 8 * eps, 4 * max(n, 1) * eps * max(scale, 1.0) ** (2 if op == "var" else 1)


@pytest.mark.parametrize("seed", range(240))
def test_reduction_layouts(seed):
    nf = numfuse_module()
    desc, build, op, axis, keepdims, fused = make_case(seed)
    x_np = build(numpy, 0)
    x_nf = build(nf, 0)
    if fused:
        x_np = combine(numpy, x_np, build(numpy, 1))
        x_nf = combine(nf, x_nf, build(nf, 1))
    with numpy.errstate(all="ignore"):
        try:
            expected = reduce(numpy, op, x_np, axis, keepdims)
        except ValueError:  # an empty reduction without identity
            with pytest.raises(ValueError):
                to_numpy(nf, reduce(nf, op, x_nf, axis, keepdims))
            return
        got = to_numpy(nf, reduce(nf, op, x_nf, axis, keepdims))
    expected = numpy.asarray(expected)
    assert got.dtype == expected.dtype, desc
    assert got.shape == expected.shape, desc
    rtol, atol = tolerance(op, x_np.dtype, x_np, axis)
    if rtol == 0 and atol == 0:
        numpy.testing.assert_array_equal(got, expected, err_msg=desc)
    else:
        numpy.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=desc)
    if fused:  # the same values stored first: the same result, bit for bit
        stored = nf.asarray(to_numpy(nf, x_nf))
        with numpy.errstate(all="ignore"):
            again = to_numpy(nf, reduce(nf, op, stored, axis, keepdims))
        numpy.testing.assert_array_equal(again, got, err_msg="fused vs stored: " + desc)


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32])
@pytest.mark.parametrize("op", ["argmax", "argmin", "max", "min"])
def test_leading_axis_ties_and_nans(op, dtype, fused):
    """Over axis 0 of a tall array (rows split between threads): ties give the first row, the first
    NaN of a column wins whichever thread's rows hold it, and a NaN in a later part still wins."""
    nf = numfuse_module()
    rng = numpy.random.default_rng(5)
    x = numpy.floor(rng.uniform(0, 3, size=(6000, 40))).astype(dtype)
    if numpy.dtype(dtype).kind == "f":
        for col, rows in [(0, [5]), (1, [5999]), (2, [3000, 10]), (3, [4500, 4499]), (4, [0, 5999])]:
            x[rows, col] = numpy.nan
    y = numpy.ones_like(x)
    expected = getattr(numpy, op)(x * y if fused else x, axis=0)
    a = nf.asarray(x)
    got = getattr(nf, op)(a * nf.asarray(y) if fused else a, axis=0)
    numpy.testing.assert_array_equal(to_numpy(nf, got), expected)
