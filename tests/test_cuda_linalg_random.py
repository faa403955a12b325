"""Matrix products and random numbers on the GPU.

matmul/dot/einsum/tensordot on cuda arrays against NumPy (cuBLAS for float16/32/64 and complex,
the generated kernel for integers and bool): batched, broadcast, transposed and non-contiguous
operands, the 1-D rules, k = 0. Random draws on cuda equal the CPU's for the same seed:
integers and uniforms bit for bit, normals within a few ulps (CUDA's log/cos are not glibc's).

Everything skips cleanly when numfuse.cuda.is_available() is False.
"""
import contextlib

import numpy as np
import pytest

import harness
from harness import compare, make_array

nf = harness.numfuse_module()
if nf is None:
    pytest.skip("numfuse is not importable", allow_module_level=True)
if not harness.cuda_available(nf):
    pytest.skip("numfuse.cuda.is_available() is False", allow_module_level=True)

FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex64, np.complex128)]
INTS = [np.dtype(t) for t in (np.int32, np.bool_, np.int8, np.uint16, np.int64, np.uint64)]


def on_gpu(x):
    return nf.asarray(x, device="cuda")


def data(shape, dtype, seed):
    """float16 gets small integers (every product and sum exact, whatever cuBLAS's order)."""
    if np.dtype(dtype) == np.float16:
        return make_array(shape, np.int8, seed, low=-3, high=4).astype(np.float16)
    return make_array(shape, dtype, seed)


def check(expected, got, k=1):
    """got (a cuda array) equals expected; floats within k summation steps of rounding."""
    assert got.device.startswith("cuda"), got.device
    expected = np.asarray(expected)
    rtol = atol = 0.0
    if expected.dtype.kind in "fc" and expected.dtype != np.float16:
        eps = float(np.finfo(expected.dtype).eps)
        # Inputs lie in [-5, 5): each term is below 50 (100 for complex), and cuBLAS may sum in
        # another order (or split k) than NumPy's BLAS.
        rtol = 8 * eps * max(k, 1)
        atol = 100 * 8 * eps * max(k, 1)
    compare(expected, nf.asnumpy(got), rtol=rtol, atol=atol)


# ---- matmul ------------------------------------------------------------------------------------

SHAPES = [
    ((4, 5), (5, 3)),
    ((1, 1), (1, 1)),
    ((33, 17), (17, 40)),          # more than one 16x16 tile and a partial k tile
    ((2, 3, 4), (4, 5)),           # b shared: the batch folds into one product
    ((2, 3, 4), (2, 4, 5)),        # strided batched
    ((3, 1, 4, 5), (2, 5, 6)),     # broadcast batch dims
    ((1, 4, 5), (3, 5, 2)),        # a broadcast over b's batch
    ((5,), (5,)),                  # 1-D x 1-D -> 0-d
    ((5,), (5, 3)),
    ((4, 5), (5,)),
    ((2, 4, 5), (5,)),
    ((5,), (3, 5, 2)),
    ((3, 0), (0, 4)),              # k = 0: zeros
    ((2, 3, 0), (0, 4)),
    ((0, 3, 4), (4, 2)),           # empty batch
    ((3, 4), (4, 0)),
]


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_shapes(dtype, shapes):
    a, b = data(shapes[0], dtype, 1), data(shapes[1], dtype, 2)
    got = nf.matmul(on_gpu(a), on_gpu(b))
    check(np.matmul(a, b), got, k=shapes[0][-1])
    check(a @ b, on_gpu(a) @ on_gpu(b), k=shapes[0][-1])


# Views of (6, 8) @ (8, 7) data: transposes (one of the last two dims contiguous), reversed and
# stepped dims (neither contiguous: a copy on the device), and batched transposes.
VIEWS = [
    ("T-T", lambda a: a.T, lambda b: b.T, (8, 6), (7, 8)),
    ("T-N", lambda a: a.T, lambda b: b, (8, 6), (8, 7)),
    ("N-T", lambda a: a, lambda b: b.T, (6, 8), (7, 8)),
    ("reversed", lambda a: a[::-1], lambda b: b[:, ::-1], (6, 8), (8, 7)),
    ("stepped", lambda a: a[::2, ::2], lambda b: b[::2, 1::2], (12, 16), (16, 14)),
    ("row-slice", lambda a: a[1:5, 2:7], lambda b: b[2:7], (6, 8), (8, 7)),
    ("batch-T", lambda a: a.transpose(0, 2, 1), lambda b: b.swapaxes(-1, -2), (3, 8, 6), (3, 7, 8)),
    ("batch-rev", lambda a: a[::-1], lambda b: b[:, ::-1, :], (3, 6, 8), (3, 8, 7)),
    ("batch-step", lambda a: a[::2], lambda b: b[::2], (5, 6, 8), (5, 8, 7)),
    ("vec-step", lambda a: a[::3], lambda b: b[::-2], (15,), (10, 3)),
]


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                                         np.complex128, np.int32, np.bool_)], ids=str)
@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v[0])
def test_matmul_views(dtype, view):
    _, fa, fb, sa, sb = view
    a, b = data(sa, dtype, 3), data(sb, dtype, 4)
    expected = np.matmul(fa(a), fb(b))
    check(expected, nf.matmul(fa(on_gpu(a)), fb(on_gpu(b))), k=fa(a).shape[-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=str)
def test_matmul_pending_and_mixed_dtype_inputs(dtype):
    a, b = data((7, 9), dtype, 5), data((9, 4), np.float32, 6)
    ga, gb = on_gpu(a), on_gpu(b)
    # Pending operands (evaluated first) and promotion before the product.
    check((a * 2 + 1) @ b, (ga * 2 + 1) @ gb, k=9)
    check(np.matmul(a, b, dtype=np.float64), nf.matmul(ga, gb, dtype=np.float64), k=9)


def test_integer_matmul_wraps_like_numpy():
    a = np.full((3, 40), 100, np.int8)
    b = np.full((40, 2), 7, np.int8)
    check(a @ b, on_gpu(a) @ on_gpu(b))
    x = np.full((2, 5), 2 ** 62, np.int64)
    y = np.full((5, 2), 3, np.int64)
    with np.errstate(over="ignore"):
        check(x @ y, on_gpu(x) @ on_gpu(y))


def test_big_float32_product_against_numpy():
    a, b = data((300, 257), np.float32, 7), data((257, 129), np.float32, 8)
    check(a @ b, on_gpu(a) @ on_gpu(b), k=257)


def test_matmul_errors_match_numpy():
    with pytest.raises(ValueError):
        on_gpu(np.ones((2, 3))) @ on_gpu(np.ones((4, 2)))
    with pytest.raises(ValueError):
        nf.matmul(on_gpu(np.ones(3)), on_gpu(np.float64(2.0)))
    with pytest.raises(ValueError):  # mixed devices
        on_gpu(np.ones((2, 2))) @ nf.asarray(np.ones((2, 2)), device="cpu")


# ---- dot, einsum and friends (composed from matmul and views) ----------------------------------

@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                                         np.int32, np.bool_)], ids=str)
def test_dot_family(dtype):
    a, b = data((4, 6), dtype, 9), data((6, 5), dtype, 10)
    v, w = data((6,), dtype, 11), data((6,), dtype, 12)
    ga, gb, gv, gw = on_gpu(a), on_gpu(b), on_gpu(v), on_gpu(w)
    check(np.dot(a, b), nf.dot(ga, gb), k=6)
    check(np.dot(a, v), nf.dot(ga, gv), k=6)
    check(np.dot(v, w), nf.dot(gv, gw), k=6)
    check(np.inner(v, w), nf.inner(gv, gw), k=6)
    check(np.outer(v, w), nf.outer(gv, gw))
    check(np.tensordot(a, b, axes=1), nf.tensordot(ga, gb, axes=1), k=6)
    c, d = data((3, 4, 5), dtype, 13), data((4, 3, 2), dtype, 14)
    check(np.tensordot(c, d, axes=([0, 1], [1, 0])), nf.tensordot(on_gpu(c), on_gpu(d), axes=([0, 1], [1, 0])), k=12)
    if dtype.kind != "b":
        check(np.vdot(v, w), nf.vdot(gv, gw), k=6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int64], ids=str)
@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(4, 5), (5, 3)]),
    ("bij,bjk->bik", [(2, 4, 5), (2, 5, 3)]),
    ("ij,kj->ik", [(4, 5), (3, 5)]),
    ("i,i->", [(7,), (7,)]),
    ("ij->ji", [(3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
], ids=str)
def test_einsum(dtype, spec, shapes):
    ops = [data(s, dtype, 20 + i) for i, s in enumerate(shapes)]
    check(np.einsum(spec, *ops), nf.einsum(spec, *[on_gpu(o) for o in ops]), k=20)


# ---- random ------------------------------------------------------------------------------------

@contextlib.contextmanager
def default_device(device):
    old = nf._core.default_device()
    nf._core.set_default_device(device)
    try:
        yield
    finally:
        nf._core.set_default_device(old)


def draw_both(fn):
    """fn(generator) on the CPU and on cuda:0 from the same seed, as NumPy arrays."""
    with default_device("cpu"):
        host = fn(nf.random.default_rng(12345))
        assert host.device == "cpu"
        host = nf.asnumpy(host)
    with default_device("cuda:0"):
        dev = fn(nf.random.default_rng(12345))
        assert dev.device.startswith("cuda"), dev.device
        dev = nf.asnumpy(dev)
    return host, dev


EXACT = {
    "random-f64": lambda g: g.random((3, 1001)),
    "random-f32": lambda g: g.random((1001,), dtype=np.float32),
    "uniform": lambda g: g.uniform(-3.0, 7.5, size=(17, 33)),
    "integers-i64": lambda g: g.integers(-1000, 1000, size=(5000,)),
    "integers-u64-full": lambda g: g.integers(0, 2 ** 64, size=(999,), dtype=np.uint64, endpoint=False),
    "integers-i64-full": lambda g: g.integers(-2 ** 63, 2 ** 63 - 1, size=(999,), endpoint=True),
    "integers-i8": lambda g: g.integers(-128, 128, size=(4, 250), dtype=np.int8),
    "integers-u16": lambda g: g.integers(7, 60000, size=(1000,), dtype=np.uint16),
    "integers-bool": lambda g: g.integers(0, 2, size=(1000,), dtype=np.bool_),
    "second-draw": lambda g: (g.random(10), g.integers(0, 10 ** 12, size=(3, 7)))[1],
    "empty": lambda g: g.random((0, 3)),
}

NORMAL = {
    "standard_normal-f64": (lambda g: g.standard_normal((3, 1001)), np.float64),
    "standard_normal-f32": (lambda g: g.standard_normal(2003, dtype=np.float32), np.float32),
    "normal": (lambda g: g.normal(3.0, 2.5, size=(1000,)), np.float64),
}


@pytest.mark.parametrize("name", list(EXACT))
def test_random_bit_for_bit(name):
    host, dev = draw_both(EXACT[name])
    assert host.dtype == dev.dtype and host.shape == dev.shape
    assert host.tobytes() == dev.tobytes(), f"{name}: first difference at " \
        f"{np.argwhere(host != dev)[:1].tolist()}"


@pytest.mark.parametrize("name", list(NORMAL))
def test_random_normal_within_ulps(name):
    fn, dtype = NORMAL[name]
    host, dev = draw_both(fn)
    assert host.dtype == dev.dtype == dtype and host.shape == dev.shape
    eps = float(np.finfo(dtype).eps)
    # log and cos: a couple of ulps each on either side; loc + scale*z adds one rounding.
    np.testing.assert_allclose(dev, host, rtol=16 * eps, atol=16 * eps)


def test_random_legacy_functions_on_gpu():
    def draw(_):
        nf.random.seed(7)
        return nf.random.rand(50), nf.random.randint(0, 100, size=50)

    with default_device("cpu"):
        h = [nf.asnumpy(x) for x in draw(None)]
    with default_device("cuda:0"):
        d = draw(None)
        assert all(x.device.startswith("cuda") for x in d)
        d = [nf.asnumpy(x) for x in d]
    for x, y in zip(h, d):
        assert x.tobytes() == y.tobytes()


def test_random_feeds_fused_gpu_kernels():
    with default_device("cuda:0"):
        g = nf.random.default_rng(3)
        x = g.random((64, 64))
        y = x * 2 - 1
        z = y @ y
    with default_device("cpu"):
        x_h = nf.asnumpy(nf.random.default_rng(3).random((64, 64)))
    y_h = x_h * 2 - 1
    check(y_h @ y_h, z, k=64)
