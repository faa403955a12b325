"""cholesky against NumPy on every route CUDA takes (backend/cuda/linalg_run_cuda.h: one matrix or
a stack of large ones through a transposed lower-triangle copy and potrf lower; upper=True
through the upper triangle copied as it is; stacks of 17..32 wide through potrfBatched), with
garbage or NaN in the triangle NumPy does not read, on inputs of every layout the triangle copy
takes (transposed, negative strides, strided, stacks whose batch axes do not collapse, broadcast
stacks), for every LAPACK dtype, complex Hermitian included. The same cases run on the CPU.
"""
import numpy
import pytest

from harness import numfuse_module, oracle

DTYPES = ["float32", "float64", "complex64", "complex128"]


def _with_other_triangle(shape, dtype, upper, seed, fill=None):
    """Positive definite Hermitian matrices of `shape` holding their values only in the triangle
    cholesky reads (lower, or upper with upper=True); the other one holds large garbage, or
    `fill`."""
    rng = numpy.random.default_rng(seed)
    n = shape[-1]
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    h = x @ numpy.conj(numpy.swapaxes(x, -1, -2)) + n * numpy.eye(n)
    other = rng.standard_normal(shape) * 1e3 if fill is None else numpy.full(shape, fill)
    if dtype.startswith("complex") and fill is None:
        other = other + 1j * rng.standard_normal(shape) * 1e3
    keep = numpy.triu(numpy.ones((n, n), bool)) if upper else numpy.tril(numpy.ones((n, n), bool))
    return numpy.where(keep, h, other).astype(dtype)


def _tol(dtype, n):
    eps = float(numpy.finfo(numpy.dtype(dtype)).eps)
    return dict(rtol=10 * n * eps, atol=100 * n * eps)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(17, 17), (40, 40), (100, 100), (3, 40, 40), (5, 24, 24),
                                   (2, 1, 33, 33)], ids=str)
def test_reads_only_its_triangle(shape, dtype, upper, device):
    a = _with_other_triangle(shape, dtype, upper, seed=sum(shape))

    @oracle(**_tol(dtype, shape[-1]))
    def body(xp):
        return xp.linalg.cholesky(xp.asarray(a), upper=upper)
    body(device=device)


@pytest.mark.parametrize("upper", [False, True])
def test_nan_in_the_other_triangle_is_not_read(upper, device):
    a = _with_other_triangle((50, 50), "float64", upper, seed=3, fill=numpy.nan)

    @oracle(**_tol("float64", 50))
    def body(xp):
        return xp.linalg.cholesky(xp.asarray(a), upper=upper)
    body(device=device)


# Each layout: (stored array from the wanted matrices `good`, the view of it that equals good).
LAYOUTS = {
    "transposed": (lambda g: numpy.ascontiguousarray(numpy.swapaxes(g, -1, -2)),
                   lambda xp, s: xp.swapaxes(s, -1, -2)),
    "reversed": (lambda g: numpy.ascontiguousarray(g[..., ::-1, ::-1]),
                 lambda xp, s: s[..., ::-1, ::-1]),
    "rows_reversed": (lambda g: numpy.ascontiguousarray(g[..., ::-1, :]),
                      lambda xp, s: s[..., ::-1, :]),
    "strided": (lambda g: numpy.repeat(g, 2, axis=-1), lambda xp, s: s[..., ::2]),
}


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("shape", [(45, 45), (2, 40, 40), (4, 20, 20)], ids=str)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layouts(layout, shape, dtype, upper, device):
    store, view = LAYOUTS[layout]
    stored = store(_with_other_triangle(shape, dtype, upper, seed=11))

    @oracle(**_tol(dtype, shape[-1]))
    def body(xp):
        return xp.linalg.cholesky(view(xp, xp.asarray(stored)), upper=upper)
    body(device=device)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("n", [20, 40])
def test_stacks_whose_batch_axes_do_not_collapse(n, upper, device):
    stored = _with_other_triangle((2, 4, n, n), "complex128", upper, seed=5)

    @oracle(**_tol("complex128", n))
    def body(xp):
        x = xp.asarray(stored)
        return (xp.linalg.cholesky(x[:, ::2], upper=upper),
                xp.linalg.cholesky(xp.broadcast_to(x[1, 3], (3, n, n)), upper=upper))
    body(device=device)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape,bad", [((40, 40), ()), ((3, 40, 40), (1,)), ((5, 24, 24), (4,))],
                         ids=str)
def test_not_positive_definite_raises_for_the_stack(shape, bad, upper, device):
    nf = numfuse_module()
    a = _with_other_triangle(shape, "float64", upper, seed=9)
    a[bad + (shape[-1] // 2, shape[-1] // 2)] = -1e6
    message = "^Matrix is not positive definite$"
    with pytest.raises(numpy.linalg.LinAlgError, match=message):
        numpy.linalg.cholesky(a, upper=upper)
    with pytest.raises(nf.linalg.LinAlgError, match=message):
        nf.linalg.cholesky(nf.asarray(a, device=device), upper=upper)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(40, 40), (5, 24, 24)], ids=str)
def test_input_is_left_as_it_was(shape, upper, device):
    nf = numfuse_module()
    a = _with_other_triangle(shape, "complex128", upper, seed=2)
    x = nf.asarray(a, device=device)
    nf.asnumpy(nf.linalg.cholesky(x, upper=upper))
    numpy.testing.assert_array_equal(nf.asnumpy(x), a)
