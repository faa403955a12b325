"""Products and norms against NumPy: matmul (every dtype, 1-D rules, batch broadcasting, empty
dims, strided / transposed / reversed operands, errors), dot, vdot, inner, outer, tensordot,
einsum, linalg.norm."""
import numpy
import pytest

from harness import ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, make_array, numfuse_module, oracle


def _rtol(dtype, k=8):
    """Products sum k terms in an order BLAS chooses: allow a few ulp per term."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        return 0.0
    return max(8, 2 * k) * float(numpy.finfo(dtype).eps)


def _atol(dtype, k=8):
    """Sums that cancel: the error scales with the terms (|x| <= 5 here), not the result."""
    return 25.0 * _rtol(dtype, k)


# Shapes (a, b) numpy.matmul accepts: 1-D rules, batches that broadcast, empty dims.
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((1, 1), (1, 1)),
    ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((4, 1, 2, 3), (1, 3, 3, 2)),
    ((3,), (2, 3, 4)), ((2, 3, 4), (4,)), ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((0,), (0,)),
    ((2, 3), (3, 0)), ((0, 2, 3), (3, 4)), ((3, 0), (0,)), ((7, 9), (9, 11)),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul_dtypes_shapes(sa, sb, dtype):
    @oracle(rtol=_rtol(dtype, sa[-1] if sa else 1), atol=_atol(dtype, sa[-1] if sa else 1))
    def body(xp):
        a = xp.asarray(make_array(sa, dtype, seed=1, low=-3, high=4))
        b = xp.asarray(make_array(sb, dtype, seed=2, low=0, high=4))
        return xp.matmul(a, b), a @ b
    body()


@pytest.mark.parametrize("da,db", [("int8", "uint8"), ("int64", "uint64"), ("bool", "int16"),
                                   ("float16", "int8"), ("float32", "complex64"),
                                   ("int32", "float32"), ("uint16", "float16"), ("bool", "float64")])
@oracle(rtol=1e-3)
def test_matmul_mixed_dtypes(xp, da, db):
    a = xp.asarray(make_array((3, 4), da, seed=3, low=0, high=3))
    b = xp.asarray(make_array((4, 2), db, seed=4, low=0, high=3))
    return xp.matmul(a, b), b.T @ a.T


def test_k_zero_gives_zeros():
    nf = numfuse_module()
    r = nf.matmul(nf.ones((2, 0)), nf.ones((0, 3)))
    assert nf.asnumpy(r).tolist() == [[0.0] * 3] * 2


# Operands whose strides the product must honour: transposed, sliced, reversed, broadcast rows.
VIEW_CASES = {
    "aT": lambda xp: (xp.asarray(make_array((4, 3), "float64", 1)).T,
                      xp.asarray(make_array((4, 5), "float64", 2))),
    "bT": lambda xp: (xp.asarray(make_array((3, 4), "float64", 1)),
                      xp.asarray(make_array((5, 4), "float64", 2)).T),
    "both_T": lambda xp: (xp.asarray(make_array((4, 3), "complex128", 1)).T,
                          xp.asarray(make_array((5, 4), "complex128", 2)).T),
    "step_cols": lambda xp: (xp.asarray(make_array((3, 8), "float32", 1))[:, ::2],
                             xp.asarray(make_array((4, 3), "float32", 2))),
    "neg_rows": lambda xp: (xp.asarray(make_array((3, 4), "float64", 1))[::-1],
                            xp.asarray(make_array((4, 2), "float64", 2))[::-1]),
    "neg_both": lambda xp: (xp.asarray(make_array((5, 6), "float64", 1))[::-2, ::-1],
                            xp.asarray(make_array((6, 3), "float64", 2))[:, ::-1]),
    "batch_T": lambda xp: (xp.asarray(make_array((2, 4, 3), "float64", 1)).transpose(0, 2, 1),
                           xp.asarray(make_array((3, 4, 2), "float64", 2)).transpose(1, 2, 0)),
    "batch_mixed": lambda xp: (xp.asarray(make_array((4, 5, 6), "float32", 1))[::2, ::-1, 1::2],
                               xp.asarray(make_array((3, 2), "float32", 2))),
    "sliced_batch": lambda xp: (xp.asarray(make_array((6, 3, 4), "int32", 1))[1::2],
                                xp.asarray(make_array((4, 4), "int32", 2))[:, 1:3]),
    "vec_rev": lambda xp: (xp.asarray(make_array((3, 5), "float64", 1)),
                           xp.asarray(make_array((10,), "float64", 2))[::-2]),
    "vec_left_step": lambda xp: (xp.asarray(make_array((12,), "float16", 1))[1::3],
                                 xp.asarray(make_array((4, 2), "float16", 2))),
    "fold_batch": lambda xp: (xp.asarray(make_array((6, 5, 4), "float64", 1)),
                              xp.asarray(make_array((4, 3), "float64", 2))),
    "fold_sliced": lambda xp: (xp.asarray(make_array((6, 5, 8), "float64", 1))[:, :, :4],
                               xp.asarray(make_array((4, 3), "float64", 2))),
}


@pytest.mark.parametrize("case", list(VIEW_CASES))
@oracle(rtol=1e-5)
def test_matmul_strided_operands(xp, case):
    a, b = VIEW_CASES[case](xp)
    return xp.matmul(a, b)

# ---- matrix-vector products: BLAS gemv and dot ---------------------------------------------------
# Sizes past the tiny-product loop (M*N*K > 512), so these reach gemv / dot with the operands in
# place: transposed, reversed (the reversal moves into a vector's increment), stepped, batched.

def _m(xp, shape, dtype, seed):
    return xp.asarray(make_array(shape, dtype, seed, low=-3, high=4))


MATVEC_CASES = {
    "A@x": lambda xp, dt: (_m(xp, (40, 30), dt, 1), _m(xp, (30,), dt, 2)),
    "x@A": lambda xp, dt: (_m(xp, (40,), dt, 1), _m(xp, (40, 30), dt, 2)),
    "AT@y": lambda xp, dt: (_m(xp, (30, 40), dt, 1).T, _m(xp, (30,), dt, 2)),
    "x@AT": lambda xp, dt: (_m(xp, (40,), dt, 1), _m(xp, (30, 40), dt, 2).T),
    "A@col": lambda xp, dt: (_m(xp, (40, 30), dt, 1), _m(xp, (30, 1), dt, 2)),
    "row@A": lambda xp, dt: (_m(xp, (1, 40), dt, 1), _m(xp, (40, 30), dt, 2)),
    "x@x": lambda xp, dt: (_m(xp, (600,), dt, 1), _m(xp, (600,), dt, 2)),
    "row@col": lambda xp, dt: (_m(xp, (1, 600), dt, 1), _m(xp, (600, 1), dt, 2)),
    "K1": lambda xp, dt: (_m(xp, (600, 1), dt, 1), _m(xp, (1,), dt, 2)),
    "M1_K1": lambda xp, dt: (_m(xp, (1, 1), dt, 1), _m(xp, (1, 600), dt, 2)),
    "neg_rows": lambda xp, dt: (_m(xp, (40, 30), dt, 1)[::-1], _m(xp, (30,), dt, 2)),
    "neg_cols": lambda xp, dt: (_m(xp, (40, 30), dt, 1)[:, ::-1], _m(xp, (30,), dt, 2)),
    "neg_both_T": lambda xp, dt: (_m(xp, (30, 40), dt, 1).T[::-1, ::-1], _m(xp, (60,), dt, 2)[::-2]),
    "neg_vec": lambda xp, dt: (_m(xp, (40, 30), dt, 1), _m(xp, (30,), dt, 2)[::-1]),
    "step_vec_left": lambda xp, dt: (_m(xp, (120,), dt, 1)[::3], _m(xp, (40, 30), dt, 2)[:, ::-1]),
    "no_unit_stride": lambda xp, dt: (_m(xp, (40, 60), dt, 1)[:, ::2], _m(xp, (61,), dt, 2)[1::2]),
    "dot_strided": lambda xp, dt: (_m(xp, (1200,), dt, 1)[::-2], _m(xp, (1800,), dt, 2)[::3]),
    "broadcast_vec": lambda xp, dt: (_m(xp, (40, 30), dt, 1), xp.broadcast_to(_m(xp, (1,), dt, 2), (30,))),
    "broadcast_rows": lambda xp, dt: (xp.broadcast_to(_m(xp, (30,), dt, 1), (40, 30)), _m(xp, (30,), dt, 2)),
    "batch@x": lambda xp, dt: (_m(xp, (5, 40, 30), dt, 1), _m(xp, (30,), dt, 2)),
    "batch_sliced@x": lambda xp, dt: (_m(xp, (6, 40, 30), dt, 1)[::2, 3:], _m(xp, (30,), dt, 2)),
    "batch_T@x": lambda xp, dt: (_m(xp, (5, 30, 40), dt, 1).transpose(0, 2, 1), _m(xp, (30,), dt, 2)),
    "x@batch": lambda xp, dt: (_m(xp, (40,), dt, 1), _m(xp, (5, 40, 30), dt, 2)),
    "batch@batch_col": lambda xp, dt: (_m(xp, (5, 40, 30), dt, 1), _m(xp, (5, 30, 1), dt, 2)),
    "batch_row@batch": lambda xp, dt: (_m(xp, (5, 1, 40), dt, 1), _m(xp, (5, 40, 30), dt, 2)[:, ::-1]),
    "broadcast_batches": lambda xp, dt: (_m(xp, (3, 1, 40, 30), dt, 1), _m(xp, (4, 30, 1), dt, 2)),
    "rows_0": lambda xp, dt: (_m(xp, (0, 600), dt, 1), _m(xp, (600,), dt, 2)),
    "k_0": lambda xp, dt: (_m(xp, (600, 0), dt, 1), _m(xp, (0,), dt, 2)),
    "batch_0": lambda xp, dt: (_m(xp, (0, 40, 30), dt, 1), _m(xp, (30,), dt, 2)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32"])
@pytest.mark.parametrize("case", list(MATVEC_CASES))
def test_matvec(case, dtype):
    a, b = MATVEC_CASES[case](numpy, dtype)
    k = a.shape[-1]

    @oracle(rtol=_rtol(dtype, k), atol=_atol(dtype, k))
    def body(xp):
        a, b = MATVEC_CASES[case](xp, dtype)
        return xp.matmul(a, b), xp.dot(a, b) if b.ndim == 1 else a @ b
    body()


def _random_matvec(seed):
    """A seeded matrix-vector product: a matrix view (steps of either sign, maybe transposed,
    maybe stacked) times a stepped vector, on either side. Returns (fn(xp), k)."""
    rng = numpy.random.default_rng(seed)
    dtype = ["float32", "float64", "complex64", "complex128"][seed % 4]
    rows, k = int(rng.integers(1, 60)), int(rng.integers(1, 60))
    sr, sc = (int(rng.choice([1, 2, -1, -2])) for _ in range(2))
    sv = int(rng.choice([1, 3, -1, -2]))
    transpose, left, batch = bool(rng.integers(2)), bool(rng.integers(2)), int(rng.choice([0, 3]))

    def fn(xp):
        # The matrix's core dims are (rows, k) for Mat @ v, (k, rows) for v @ Mat.
        core = (rows * abs(sr), k * abs(sc)) if not left else (k * abs(sc), rows * abs(sr))
        if transpose:
            core = core[::-1]
        base = _m(xp, ((batch,) if batch else ()) + core, dtype, seed)
        mat = base.T if transpose and not batch else (base.swapaxes(-1, -2) if transpose else base)
        steps = (sr, sc) if not left else (sc, sr)
        mat = mat[..., ::steps[0], ::steps[1]]
        vec = _m(xp, (k * abs(sv),), dtype, seed + 1)[::sv]
        return vec @ mat if left else mat @ vec
    return fn, k, dtype


@pytest.mark.parametrize("seed", range(48))
def test_matvec_random_views(seed):
    fn, k, dtype = _random_matvec(seed)
    oracle(rtol=_rtol(dtype, k), atol=_atol(dtype, k))(lambda xp: fn(xp))()


# Large products with the BLAS on one thread are split into blocks of y over numfuse's pool (each
# block a gemv of its own rows, or with a transposed matrix its own columns): the block edges, the
# last short block, reversed vectors and out= views must land each element where NumPy puts it.
SPLIT_MATVEC_CASES = {
    "A@x": lambda xp, dt: _m(xp, (1003, 173), dt, 1) @ _m(xp, (173,), dt, 2),
    "x@A": lambda xp, dt: _m(xp, (173,), dt, 1) @ _m(xp, (173, 1003), dt, 2),
    "AT@y": lambda xp, dt: _m(xp, (173, 1003), dt, 1).T @ _m(xp, (173,), dt, 2),
    "A_rev@x_rev": lambda xp, dt: _m(xp, (1003, 173), dt, 1)[::-1, ::-1] @ _m(xp, (346,), dt, 2)[::-2],
    "x_step@AT_rev": lambda xp, dt: _m(xp, (519,), dt, 1)[::3] @ _m(xp, (1003, 173), dt, 2).T[:, ::-1],
    "rows_of_wide": lambda xp, dt: _m(xp, (2000, 401), dt, 1)[:, 7:300] @ _m(xp, (293,), dt, 2),
    "batch@x": lambda xp, dt: _m(xp, (2, 700, 150), dt, 1) @ _m(xp, (150,), dt, 2),
    "out_reversed": lambda xp, dt: _matvec_out(xp, dt, slice(None, None, -1)),
    "out_stepped": lambda xp, dt: _matvec_out(xp, dt, slice(None, None, 2)),
}


def _matvec_out(xp, dt, step):
    out = xp.zeros(2006 if step.step == 2 else 1003, dt)
    xp.matmul(_m(xp, (1003, 173), dt, 1), _m(xp, (173,), dt, 2), out=out[step])
    return out


@pytest.fixture(params=[2, 3], ids=["pool2", "pool3"])
def blas_one_thread(request):
    """The BLAS on one thread (numfuse then splits large gemv calls itself) and numfuse's pool at
    2 or 3 threads, whatever this machine has; both restored afterwards."""
    nf = numfuse_module()
    blas, pool = nf._core.blas_threads(), nf._core.num_threads()
    nf._core.set_blas_threads(1)
    nf._core.set_num_threads(request.param)
    yield
    nf._core.set_num_threads(pool)
    nf._core.set_blas_threads(blas)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("case", list(SPLIT_MATVEC_CASES))
def test_matvec_split_over_pool(blas_one_thread, case, dtype):
    oracle(rtol=_rtol(dtype, 173), atol=_atol(dtype, 173))(
        lambda xp: SPLIT_MATVEC_CASES[case](xp, dtype))()


# Large gemm calls with the BLAS on one thread: blocks of C's rows (C taller than wide) or columns
# (wider than tall), each a gemm of its own, with transposed and sliced operands.
SPLIT_MATMUL_CASES = {
    "tall": lambda xp, dt: _m(xp, (333, 120), dt, 1) @ _m(xp, (120, 97), dt, 2),
    "wide": lambda xp, dt: _m(xp, (97, 120), dt, 1) @ _m(xp, (120, 333), dt, 2),
    "AT@B": lambda xp, dt: _m(xp, (120, 333), dt, 1).T @ _m(xp, (120, 97), dt, 2),
    "A@BT": lambda xp, dt: _m(xp, (97, 120), dt, 1) @ _m(xp, (333, 120), dt, 2).T,
    "AT@BT_wide": lambda xp, dt: _m(xp, (120, 97), dt, 1).T @ _m(xp, (333, 120), dt, 2).T,
    "sliced": lambda xp, dt: _m(xp, (400, 150), dt, 1)[5:338, 10:130] @ _m(xp, (130, 300), dt, 2)[3:123, :201],
    "batch": lambda xp, dt: _m(xp, (2, 150, 110), dt, 1) @ _m(xp, (110, 130), dt, 2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("case", list(SPLIT_MATMUL_CASES))
def test_matmul_split_over_pool(blas_one_thread, case, dtype):
    oracle(rtol=_rtol(dtype, 130), atol=_atol(dtype, 130))(
        lambda xp: SPLIT_MATMUL_CASES[case](xp, dtype))()


@oracle(rtol=1e-12)
def test_matvec_slice_loop(xp):
    """The pattern of the issue: a vector times column blocks of a matrix, in a loop."""
    m = _m(xp, (300, 200), "float64", 1)
    v = _m(xp, (300,), "float64", 2)
    return [v @ m[:, i:i + 64] for i in range(0, 136, 9)]


@oracle()
def test_matmul_lazy_inputs(xp):
    a = xp.asarray(make_array((3, 4), "float64", 1))
    b = xp.asarray(make_array((4, 2), "float64", 2))
    return (a * 2 + 1) @ (b - 3), (a @ b) * 2


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((3,), ()), ((2, 3), (2, 3)), ((3,), (4,)),
                                   ((2, 2, 3), (3, 3, 4)), ((3,), (3, 4, 2)),
                                   ((3, 2, 3), (2, 3, 4))], ids=str)
def test_matmul_errors_match_numpy(sa, sb):
    nf = numfuse_module()
    with pytest.raises(ValueError) as e_np:
        numpy.matmul(numpy.ones(sa), numpy.ones(sb))
    with pytest.raises(ValueError) as e_nf:
        nf.matmul(nf.ones(sa), nf.ones(sb))
    assert str(e_nf.value) == str(e_np.value)


@oracle()
def test_matmul_python_scalar_is_error(xp):
    return xp.asarray([1.0, 2.0]) @ 2


@oracle()
def test_matmul_dtype_and_out(xp):
    a = xp.asarray(make_array((3, 4), "int8", 1))
    b = xp.asarray(make_array((4, 2), "int8", 2))
    out = xp.zeros((3, 2), "float64")
    r = xp.matmul(a, b, out=out)
    return r, out, xp.matmul(a, b, dtype="float32")


@oracle()
def test_matmul_dtype_cast_error(xp):
    return xp.matmul(xp.ones(3), xp.ones(3), dtype="int32")


@oracle()
def test_imatmul(xp):
    a = xp.asarray(make_array((3, 3), "float64", 1))
    a2 = a
    a @= xp.asarray(make_array((3, 3), "float64", 2))
    return a, a2


@oracle()
def test_imatmul_shape_error(xp):
    a = xp.ones((3, 3))
    a @= xp.ones((3, 2))
    return a


@oracle()
def test_rmatmul_with_list(xp):
    b = xp.asarray(make_array((2, 3), "float64", 2))
    return [1.0, 2.0] @ b


def test_numpy_matmul_dispatches_to_numfuse():
    nf = numfuse_module()
    a = nf.asarray(make_array((2, 3), "float64", 1))
    r = numpy.matmul(a, a.T)
    assert isinstance(r, nf.ndarray)
    numpy.testing.assert_allclose(nf.asnumpy(r), nf.asnumpy(a) @ nf.asnumpy(a).T)


# ---- dot / vdot / inner / outer / tensordot ------------------------------------------------------

DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (3, 4)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((2, 3), (5, 3, 2)),
              ((2, 5, 3), (3, 4)), ((2, 5, 3), (4, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0,))]


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int16", "bool"])
@pytest.mark.parametrize("sa,sb", DOT_SHAPES, ids=str)
def test_dot(sa, sb, dtype):
    @oracle(rtol=_rtol(dtype), atol=_atol(dtype))
    def body(xp):
        a = xp.asarray(make_array(sa, dtype, 1, low=0, high=4))
        b = xp.asarray(make_array(sb, dtype, 2, low=0, high=4))
        return xp.dot(a, b), a.dot(b)
    body()


@oracle()
def test_dot_python_scalar_promotes_strongly(xp):
    return xp.dot(3, xp.ones(3, "float32")), xp.dot(2.0, xp.ones(2, "float16"))


@pytest.mark.parametrize("sa,sb", [((2, 3), (2, 3)), ((3,), (4,)), ((2, 3, 4), (3, 5))], ids=str)
def test_dot_errors_match_numpy(sa, sb):
    nf = numfuse_module()
    with pytest.raises(ValueError) as e_np:
        numpy.dot(numpy.ones(sa), numpy.ones(sb))
    with pytest.raises(ValueError) as e_nf:
        nf.dot(nf.ones(sa), nf.ones(sb))
    assert str(e_nf.value) == str(e_np.value)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "complex64", "int32", "bool"])
@oracle(rtol=1e-5)
def test_vdot(xp, dtype):
    a = xp.asarray(make_array((2, 3), dtype, 1, low=0, high=4))
    b = xp.asarray(make_array((3, 2), dtype, 2, low=0, high=4))
    return xp.vdot(a, b), xp.vdot(a.T, b)


@oracle()
def test_vdot_size_mismatch(xp):
    return xp.vdot(xp.ones(4), xp.ones(3))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)),
                                   ((2, 4, 3), (5, 3)), ((), (2, 3)), ((3,), (4,))], ids=str)
@oracle(rtol=1e-12)
def test_inner(xp, sa, sb):
    return xp.inner(xp.asarray(make_array(sa, "float64", 1)), xp.asarray(make_array(sb, "float64", 2)))


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "complex128"])
@oracle()
def test_outer(xp, dtype):
    a = xp.asarray(make_array((2, 3), dtype, 1))
    b = xp.asarray(make_array((4,), dtype, 2))
    return xp.outer(a, b), xp.outer(b[::-1], 3)


@pytest.mark.parametrize("axes", [0, 1, 2, ([1, 0], [0, 1]), ([2], [1]), (2, 1), ([], [])],
                         ids=str)
@oracle(rtol=1e-12)
def test_tensordot(xp, axes):
    a = xp.asarray(make_array((3, 4, 5), "float64", 1))
    b = xp.asarray(make_array((4, 5, 2), "float64", 2))
    if axes == ([1, 0], [0, 1]):
        a = a[:, :, 0].T
        b = b[:, :, 0].T
    if axes == (2, 1):
        b = b.transpose(0, 2, 1)
    return xp.tensordot(a, b, axes=axes)


@oracle()
def test_tensordot_mismatch(xp):
    return xp.tensordot(xp.ones((2, 3)), xp.ones((2, 3)), axes=([1], [1, 0]))


# ---- einsum -----------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bij,jk->bik", [(2, 3, 4), (4, 5)]),
    ("i,i", [(5,), (5,)]), ("i,i->i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]),
    ("ii", [(4, 4)]), ("ii->i", [(4, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("ijk->kji", [(2, 3, 4)]), ("ij", [(3, 4)]), ("ji", [(3, 4)]), ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("...i->...", [(2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 4)]), ("ij,ij->ij", [(1, 3), (2, 3)]), ("ij,jk", [(2, 1), (3, 2)]),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]), ("i,->i", [(3,), ()]), (",", [(), ()]),
    ("i->", [(0,)]), ("ij,jk", [(2, 0), (0, 3)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]), (" i j -> j i ", [(2, 3)]),
]


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int32", "bool"])
@pytest.mark.parametrize("sub,shapes", EINSUM_CASES, ids=lambda v: str(v))
def test_einsum(sub, shapes, dtype):
    @oracle(rtol=_rtol(dtype, 40), atol=_atol(dtype, 40))
    def body(xp):
        ops = [xp.asarray(make_array(s, dtype, i, low=0, high=3)) for i, s in enumerate(shapes)]
        return xp.einsum(sub, *ops)
    body()


@oracle(rtol=1e-12)
def test_einsum_interleaved_and_strided(xp):
    a = xp.asarray(make_array((4, 6), "float64", 1))[:, ::2]
    b = xp.asarray(make_array((3, 5), "float64", 2))[::-1]
    return xp.einsum(a, [0, 1], b, [1, 2], [0, 2]), xp.einsum("ij,jk->ki", a, b)


@oracle()
def test_einsum_mixed_dtypes(xp):
    a = xp.asarray(make_array((3, 4), "int8", 1))
    b = xp.asarray(make_array((4,), "float32", 2))
    return xp.einsum("ij,j->i", a, b)


@pytest.mark.parametrize("sub,shapes", [
    ("ij,jk", [(2, 3), (4, 2)]), ("ii->", [(2, 3)]), ("i->ii", [(2,)]), ("i->j", [(2,)]),
    ("ij", [(2, 3), (2,)]), ("ij->i", [(2, 3, 4)]), ("i", [(2, 3)]), ("ijk", [(2, 3)]),
    ("...i->i", [(2, 3)]), ("i,i", [(3,)]),
], ids=str)
def test_einsum_errors(sub, shapes):
    nf = numfuse_module()
    with pytest.raises(ValueError) as e_np:
        numpy.einsum(sub, *[numpy.ones(s) for s in shapes])
    with pytest.raises(ValueError) as e_nf:
        nf.einsum(sub, *[nf.ones(s) for s in shapes])
    if "broadcast" not in str(e_np.value):
        assert str(e_nf.value) == str(e_np.value)


# ---- norm -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES + [numpy.dtype("int32")], ids=str)
@pytest.mark.parametrize("ord,axis,keepdims", [
    (None, None, False), (None, None, True), (None, 0, False), (None, 1, True), (2, 1, False),
    (1, 0, False), (0, 1, False), (3, 0, False), (0.5, 1, False), ("fro", None, False),
    (None, (0, 1), False), ("fro", (1, 0), True),
], ids=str)
def test_norm(dtype, ord, axis, keepdims):
    @oracle(rtol=1e-2 if numpy.dtype(dtype) == numpy.float16 else 1e-5)
    def body(xp):
        x = xp.asarray(make_array((4, 5), dtype, 1))
        return xp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    body()


@oracle(rtol=1e-12)
def test_norm_vector_and_views(xp):
    v = xp.asarray(make_array((9,), "float64", 1))[::-2]
    m = xp.asarray(make_array((3, 4, 5), "float64", 2))
    return (xp.linalg.norm(v), xp.linalg.norm(v, 1), xp.linalg.norm(m, axis=(1, 2)),
            xp.linalg.norm(m, axis=-1), xp.linalg.vector_norm(m, axis=(0, 2)),
            xp.linalg.matrix_norm(m))


@pytest.mark.parametrize("ord,axis", [("fro", 0), (None, (0, 0)), ("abc", (0, 1)), (None, 2),
                                      (None, (0, 1, 2))], ids=str)
@oracle()
def test_norm_errors(xp, ord, axis):
    return xp.linalg.norm(xp.ones((2, 3)), ord=ord, axis=axis)


def test_blas_in_use():
    nf = numfuse_module()
    info = nf._core.blas_info()
    assert nf._core.blas_available(), info
    assert nf._core.blas_threads() >= 1
