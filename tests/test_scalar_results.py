"""Results NumPy returns as scalars, on the CPU: the product of two vectors (`v @ w`, numpy.dot,
vdot, inner, matmul) and a ufunc of host scalars alone (`np.sqrt(A[i, i])` in a loop over a CPU
array's elements) are NumPy's scalar, of NumPy's type and value, as NumPy returns them. On a GPU
the product stays a 0-d array on the device (as CuPy's). Generated cases: dtypes, lengths (0 and
1 included), strides (stepped, reversed), pending and materialised operands, immediate
evaluation on and off, fusion on and off; NumPy is the oracle."""
import warnings

import numpy
import pytest

import harness

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")

DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "int64", "uint8", "bool", "float16"]
PRODUCTS = {
    "matmul operator": lambda xp, a, b: a @ b,
    "matmul": lambda xp, a, b: xp.matmul(a, b),
    "dot": lambda xp, a, b: xp.dot(a, b),
    "vdot": lambda xp, a, b: xp.vdot(a, b),
    "inner": lambda xp, a, b: xp.inner(a, b),
    "method dot": lambda xp, a, b: a.dot(b),
}


@pytest.fixture(params=["immediate", "graph"])
def evaluation(request):
    """Immediate evaluation of small CPU ops on (the default) and off: the product of two vectors
    is computed in the call or through matmul's node; the answer is the same scalar."""
    before = nf._core.immediate_max()
    if request.param == "graph":
        nf._core.set_immediate_max(0)
    yield request.param
    nf._core.set_immediate_max(before)


@pytest.fixture(params=[True, False], ids=["fusion", "no-fusion"])
def fusion(request):
    nf._core.set_fusion(request.param)
    yield request.param
    nf._core.set_fusion(True)


def _vector(rng, dtype, n, layout):
    """(base, take): a NumPy base of dtype and the view of n values that `layout` takes of it
    (contiguous, stepped, reversed); take applies to NumPy's base and to numfuse's alike."""
    m = 2 * n + 1
    raw = rng.normal(0, 3, m) + (1j * rng.normal(0, 3, m) if numpy.dtype(dtype).kind == "c" else 0)
    base = (raw.real > 0 if dtype == "bool" else
            numpy.abs(raw.real).astype(dtype) % 7 if numpy.dtype(dtype).kind in "iu" else raw.astype(dtype))
    takes = {"stepped": lambda x: x[: 2 * n : 2], "reversed": lambda x: x[:n][::-1],
             "contiguous": lambda x: x[:n]}
    return base, takes[layout]


def _numfuse_operand(base, take, kind):
    """take(base) of a CPU copy of base: materialised, or pending (the view of an add not yet run)."""
    a = nf.asarray(base, device="cpu")
    if kind == "pending":
        return take(a + numpy.zeros((), base.dtype))
    nf.eval(a)
    return take(a)


def _same_scalar(got, want, case):
    assert isinstance(got, numpy.generic), (case, type(got))
    assert type(got) is type(want), (case, type(got), type(want))
    tol = 1e-2 if want.dtype == numpy.float16 else 1e-5 if want.dtype in (numpy.float32, numpy.complex64) else 1e-12
    numpy.testing.assert_allclose(numpy.asarray(got), numpy.asarray(want), rtol=tol, atol=tol, err_msg=case)


@pytest.mark.parametrize("seed", range(8))
def test_vector_products_are_numpy_scalars_on_the_cpu(seed, evaluation, fusion, cpu_default_device):
    rng = numpy.random.default_rng(seed)
    for _ in range(40):
        name = str(rng.choice(sorted(PRODUCTS)))
        dtypes = [str(rng.choice(DTYPES)) for _ in range(2)]
        if rng.random() < 0.6:
            dtypes[1] = dtypes[0]  # the immediate path's case: one BLAS dtype
        n = int(rng.choice([0, 1, 2, 7, 64, 1000]))
        layouts = [str(rng.choice(["contiguous", "stepped", "reversed"])) for _ in range(2)]
        kinds = [str(rng.choice(["materialised", "materialised", "pending"])) for _ in range(2)]
        vectors = [_vector(rng, d, n, lay) for d, lay in zip(dtypes, layouts)]
        case = f"{name} {dtypes} n={n} {layouts} {kinds} {evaluation}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = PRODUCTS[name](numpy, *(take(base) for base, take in vectors))
            got = PRODUCTS[name](nf, *(_numfuse_operand(base, take, k)
                                       for (base, take), k in zip(vectors, kinds)))
        _same_scalar(got, want, case)


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_vector_products_keep_numpy_errors(name, cpu_default_device):
    a, b = numpy.arange(3.0), numpy.arange(4.0)
    with pytest.raises(ValueError) as want:
        PRODUCTS[name](numpy, a, b)
    with pytest.raises(ValueError) as got:
        PRODUCTS[name](nf, nf.asarray(a), nf.asarray(b))
    assert type(got.value) is type(want.value)


def test_vector_product_reads_operands_written_in_place(cpu_default_device):
    """The immediate product reads what the vectors hold after pending writes into them."""
    a, b = nf.asarray(numpy.arange(5.0)), nf.asarray(numpy.ones(5))
    nf.eval(a, b)
    a[1:3] = a[1:3] * 10.0  # a pending write into a's memory
    want = numpy.arange(5.0)
    want[1:3] *= 10.0
    assert a @ b == want.sum()
    assert nf.dot(a[::-1], b) == want.sum()


def test_products_of_matrices_stay_arrays(cpu_default_device):
    a = nf.asarray(numpy.ones((3, 3)))
    v = nf.asarray(numpy.ones(3))
    for r in (a @ v, v @ a, a @ a, nf.dot(a, v), nf.inner(a, v)):
        assert isinstance(r, nf.ndarray)


@pytest.mark.cuda
def test_vector_products_stay_device_arrays_on_a_gpu():
    if not harness.cuda_available():
        pytest.skip("numfuse.cuda.is_available() is False")
    a = nf.asarray(numpy.arange(5.0), device="cuda")
    for name, f in PRODUCTS.items():
        r = f(nf, a, a)
        assert isinstance(r, nf.ndarray) and r.ndim == 0 and r.device != "cpu", name
        assert float(r) == 30.0, name


UFUNCS = ["sqrt", "add", "multiply", "subtract", "true_divide", "power", "arctan2", "maximum",
          "greater", "negative", "absolute", "exp", "log", "floor_divide", "remainder", "left_shift"]
SCALARS = [numpy.float64(2.5), numpy.float32(-1.5), numpy.int8(100), numpy.uint8(200), numpy.int64(-7),
           numpy.bool_(True), numpy.complex128(1 - 2j), numpy.float16(0.0), 3, -2.0, True, 0.0, 1j]


@pytest.mark.parametrize("mode", ["ignore", "warn", "raise"])
def test_ufuncs_of_host_scalars_are_numpy_scalars(mode, cpu_default_device):
    """Every pair (and single) of host scalars: NumPy's type, value, warnings and errors."""
    for name in UFUNCS:
        f_np, f_nf = getattr(numpy, name), getattr(nf, name)
        pairs = [(x,) for x in SCALARS] if f_np.nin == 1 else [(x, y) for x in SCALARS for y in SCALARS]
        for args in pairs:
            outcomes = []
            for f in (f_np, f_nf):
                with warnings.catch_warnings(record=True) as caught, numpy.errstate(all=mode):
                    warnings.simplefilter("always")
                    try:
                        outcomes.append(("ok", f(*args), sorted(str(w.message) for w in caught)))
                    except Exception as e:  # noqa: BLE001 - compared with NumPy's
                        outcomes.append(("error", type(e), None))
            (kw, want, ww), (kg, got, wg) = outcomes
            case = f"{name}{args} errstate={mode}"
            assert kg == kw and wg == ww, (case, outcomes)
            if kw == "ok":
                assert type(got) is type(want), case
                numpy.testing.assert_array_equal(numpy.asarray(got), numpy.asarray(want), err_msg=case)


def test_ufuncs_of_arrays_and_scalars_stay_numfuse_arrays(cpu_default_device):
    a = nf.asarray(numpy.arange(3.0))
    zero_d = nf.asarray(numpy.float64(2.0))
    for r in (nf.sqrt(a), nf.add(numpy.float64(1.0), a), nf.add(zero_d, 1.0), nf.sqrt(zero_d)):
        assert isinstance(r, nf.ndarray)


MATRIX_LAYOUTS = {
    "C": lambda m: m,
    "F": lambda m: numpy.asfortranarray(m),
    "rows sliced": lambda m: numpy.ascontiguousarray(numpy.pad(m, ((0, 0), (1, 2))))[:, 1:-2],
    "columns sliced": lambda m: numpy.asfortranarray(numpy.pad(m, ((1, 2), (0, 0))))[1:-2, :],
    "stepped": lambda m: numpy.repeat(m, 2, axis=1)[:, ::2],
    "reversed": lambda m: numpy.ascontiguousarray(m[::-1])[::-1],
}


def _numfuse_matrix(m, layout):
    """The layout built on a numfuse copy of the same base as on NumPy's side (views stay views)."""
    if layout in ("C", "F"):
        a = nf.asarray(MATRIX_LAYOUTS[layout](m))
        nf.eval(a)
        return a
    base = {"rows sliced": lambda: numpy.ascontiguousarray(numpy.pad(m, ((0, 0), (1, 2)))),
            "columns sliced": lambda: numpy.asfortranarray(numpy.pad(m, ((1, 2), (0, 0)))),
            "stepped": lambda: numpy.repeat(m, 2, axis=1),
            "reversed": lambda: numpy.ascontiguousarray(m[::-1])}[layout]()
    a = nf.asarray(base)
    nf.eval(a)
    return {"rows sliced": lambda: a[:, 1:-2], "columns sliced": lambda: a[1:-2, :],
            "stepped": lambda: a[:, ::2], "reversed": lambda: a[::-1]}[layout]()


@pytest.mark.parametrize("seed", range(6))
def test_matrix_vector_products_agree_with_numpy(seed, evaluation, cpu_default_device):
    """v @ M, M @ v, dot and matmul of a vector and a matrix of every layout (the immediate path
    takes rows or columns contiguous; the others go through the node): NumPy's values and shape."""
    rng = numpy.random.default_rng(100 + seed)
    for _ in range(30):
        dtype = str(rng.choice(["float32", "float64", "complex64", "complex128", "int64"]))
        r, c = (int(rng.choice([0, 1, 2, 5, 33])) for _ in range(2))
        m = rng.normal(size=(r, c)).astype(dtype) if dtype != "int64" else rng.integers(-5, 5, (r, c))
        layout = str(rng.choice(sorted(MATRIX_LAYOUTS)))
        left = bool(rng.random() < 0.5)  # v @ M, else M @ v
        vbase, take = _vector(rng, dtype, r if left else c, str(rng.choice(["contiguous", "stepped", "reversed"])))
        v = take(vbase)
        kind = str(rng.choice(["materialised", "pending"]))
        fm, fv = _numfuse_matrix(m, layout), _numfuse_operand(vbase, take, kind)
        name = str(rng.choice(["@", "dot", "matmul"]))
        f = {"@": lambda xp, x, y: x @ y, "dot": lambda xp, x, y: xp.dot(x, y),
             "matmul": lambda xp, x, y: xp.matmul(x, y)}[name]
        want = f(numpy, v, MATRIX_LAYOUTS[layout](m)) if left else f(numpy, MATRIX_LAYOUTS[layout](m), v)
        got = f(nf, fv, fm) if left else f(nf, fm, fv)
        case = f"{name} {'v@M' if left else 'M@v'} {dtype} {(r, c)} {layout} {kind} {evaluation}"
        assert isinstance(got, nf.ndarray), case
        # A BLAS sum's order differs from NumPy's: a few ulp of the row's magnitude.
        tol = 1e-4 if dtype in ("float32", "complex64") else 1e-12
        harness.compare(want, harness.to_numpy(nf, got), rtol=tol, atol=tol * 10, path=case)
