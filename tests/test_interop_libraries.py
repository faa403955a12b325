"""Zero-copy exchange with CuPy, PyTorch and JAX (issue 15), on the GPU machine: DLPack both ways
and the CUDA array interface. Zero copy means the same device pointer (CuPy's data.ptr, PyTorch's
data_ptr(), JAX's unsafe_buffer_pointer(), __cuda_array_interface__['data'][0]); a write through
one library is seen through the other. Each library is skipped when it is not installed.
"""
import os

import numpy as np
import pytest

import harness

nf = harness.numfuse_module()
cuda_ok = nf is not None and harness.cuda_available(nf)
needs_cuda = pytest.mark.skipif(not cuda_ok, reason="numfuse.cuda.is_available() is False")

# Libraries that share the GPU with numfuse in one process: JAX must not take 75% of it up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

DTYPES = [np.bool_, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]
# Layouts every library can hold (PyTorch has no negative strides: those are CuPy's only).
LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "sliced": lambda a: a[1:, ::2],
    "zero-d": lambda a: a[1, 2, ...],
}
NEGATIVE = {"negative": lambda a: a[::-1, ::-2]}


def host(dtype, shape=(4, 6), seed=0):
    return np.asarray(harness.make_array(shape, dtype, seed=seed))


def ptr(a):
    return nf._core._data_ptr(a)


def gpu(x):
    return nf.asarray(x, device="cuda")


# ---- CuPy ----------------------------------------------------------------------------------------

@needs_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", {**LAYOUTS, **NEGATIVE}, ids=str)
def test_cupy_round_trip(dtype, layout):
    cp = pytest.importorskip("cupy")
    view = {**LAYOUTS, **NEGATIVE}[layout]
    x = view(host(dtype))
    a = view(gpu(host(dtype)))
    c = cp.from_dlpack(a)
    assert c.data.ptr == ptr(a) and c.shape == x.shape and c.strides == x.strides
    np.testing.assert_array_equal(cp.asnumpy(c), x)
    # CuPy -> numfuse: its memory again
    back = nf.from_dlpack(c)
    assert ptr(back) == c.data.ptr
    np.testing.assert_array_equal(nf.asnumpy(back), x)
    c2 = view(cp.asarray(host(dtype, seed=3)))
    b = nf.asarray(c2)
    assert b.device == "cuda:0" and ptr(b) == c2.data.ptr
    np.testing.assert_array_equal(nf.asnumpy(b), cp.asnumpy(c2))


@needs_cuda
def test_cupy_writes_are_seen_both_ways():
    cp = pytest.importorskip("cupy")
    a = nf.zeros(8, dtype=nf.float32, device="cuda")
    c = cp.from_dlpack(a)
    c[3] = 5
    assert float(a[3]) == 5.0
    a[4] = 7
    assert float(c[4]) == 7.0
    d = cp.arange(6, dtype=cp.float64)
    b = nf.asarray(d)
    b *= 2
    np.testing.assert_array_equal(cp.asnumpy(d), np.arange(6) * 2)


@needs_cuda
def test_cupy_cuda_array_interface_both_ways():
    cp = pytest.importorskip("cupy")
    a = gpu(np.arange(24.0).reshape(4, 6))[:, 1::2]
    iface = a.__cuda_array_interface__
    assert iface["version"] == 3 and iface["data"][0] == ptr(a)
    assert iface["strides"] == a.strides and iface["stream"] is not None
    c = cp.asarray(a)  # CuPy reads __cuda_array_interface__
    assert c.data.ptr == ptr(a)
    np.testing.assert_array_equal(cp.asnumpy(c), np.arange(24.0).reshape(4, 6)[:, 1::2])

    class OnlyInterface:  # a producer that speaks only the CUDA array interface (Numba's arrays)
        def __init__(self, x):
            self.__cuda_array_interface__ = x.__cuda_array_interface__
            self._x = x

    src = cp.arange(10, dtype=cp.int32)[::-1]
    b = nf.asarray(OnlyInterface(src))
    assert ptr(b) == src.data.ptr  # element 0, the last of the memory (negative strides)
    np.testing.assert_array_equal(nf.asnumpy(b), np.arange(10, dtype=np.int32)[::-1])


@needs_cuda
def test_cupy_streams_order_the_hand_over():
    cp = pytest.importorskip("cupy")
    n = 1 << 24
    # numfuse -> CuPy: CuPy's non-blocking stream waits for numfuse's pending kernel.
    a = nf.sin(nf.arange(n, dtype=nf.float32, device="cuda")) * 0 + 1
    with cp.cuda.Stream(non_blocking=True):
        c = cp.from_dlpack(a)
        total = float(c.sum())
    assert total == n
    # CuPy -> numfuse: numfuse's stream waits for CuPy's pending kernel on its own stream.
    with cp.cuda.Stream(non_blocking=True):
        d = cp.ones(n, dtype=cp.float32) * 2  # every partial sum exact in float32
        b = nf.from_dlpack(d)
    assert float(b.sum()) == 2.0 * n
    # the explicit stream argument (a capsule for a stream of CuPy's), and -1 (no ordering)
    s = cp.cuda.Stream(non_blocking=True)
    pending = nf.ones(1 << 20, device="cuda") * 2
    cap = pending.__dlpack__(stream=s.ptr, max_version=(1, 0))
    e = nf.from_dlpack(cap)
    with s:
        total = float(cp.from_dlpack(e).sum())
    assert total == 2.0 * (1 << 20)
    nf.ones(2, device="cuda").__dlpack__(stream=-1)
    with pytest.raises(ValueError):
        nf.ones(2, device="cuda").__dlpack__(stream=0)


@needs_cuda
def test_cupy_lender_deleted_borrower_reads_right():
    cp = pytest.importorskip("cupy")
    a = nf.arange(1000, dtype=nf.float64, device="cuda") * 3
    c = cp.from_dlpack(a)
    del a
    np.testing.assert_array_equal(cp.asnumpy(c), np.arange(1000) * 3.0)
    d = cp.arange(1000, dtype=cp.float64) * 5
    b = nf.from_dlpack(d)
    del d
    cp.get_default_memory_pool().free_all_blocks()
    np.testing.assert_array_equal(nf.asnumpy(b), np.arange(1000) * 5.0)


# ---- PyTorch -------------------------------------------------------------------------------------

TORCH_DTYPES = [np.bool_, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
                np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("where", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_torch_round_trip(dtype, layout, where):
    torch = pytest.importorskip("torch")
    if where == "cuda" and not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    view = LAYOUTS[layout]
    x = view(host(dtype))
    a = view(nf.asarray(host(dtype), device=where))
    t = torch.from_dlpack(a)
    assert t.data_ptr() == ptr(a) and tuple(t.shape) == x.shape
    assert tuple(s * x.itemsize for s in t.stride()) == x.strides
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    u = view(torch.from_numpy(host(dtype, seed=5)).to(where))
    b = nf.asarray(u, device="cpu" if where == "cpu" else None)
    assert b.device == ("cpu" if where == "cpu" else "cuda:0") and ptr(b) == u.data_ptr()
    np.testing.assert_array_equal(nf.asnumpy(b), u.cpu().numpy())
    assert ptr(nf.from_dlpack(u)) == u.data_ptr()


@pytest.mark.parametrize("where", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_torch_writes_are_seen_both_ways(where):
    torch = pytest.importorskip("torch")
    if where == "cuda" and not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    a = nf.zeros(5, dtype=nf.float32, device=where)
    t = torch.from_dlpack(a)
    t[1] = 4
    assert float(a[1]) == 4.0
    a[2] = 6
    assert float(t[2]) == 6.0
    u = torch.zeros(3, device=where)
    b = nf.from_dlpack(u)
    b += 1
    assert u.sum().item() == 3.0


# ---- JAX -----------------------------------------------------------------------------------------

def _jax_on(where):
    jax = pytest.importorskip("jax")
    try:
        dev = jax.devices("gpu" if where == "cuda" else "cpu")[0]
    except RuntimeError:
        pytest.skip(f"JAX has no {where} device here")
    return jax, dev


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("where", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_jax_round_trip(dtype, where):
    jax, dev = _jax_on(where)
    import jax.numpy as jnp
    x = host(dtype)
    a = nf.asarray(x, device=where)
    j = jnp.from_dlpack(a)
    np.testing.assert_array_equal(np.asarray(j), x)
    if where == "cuda":
        assert j.unsafe_buffer_pointer() == ptr(a)
    src = jax.device_put(jnp.asarray(host(dtype, seed=7)), dev)
    b = nf.from_dlpack(src)
    assert b.device == ("cpu" if where == "cpu" else "cuda:0")
    assert ptr(b) == src.unsafe_buffer_pointer()
    np.testing.assert_array_equal(nf.asnumpy(b), np.asarray(src))
    c = nf.asarray(src, device=where)
    assert ptr(c) == src.unsafe_buffer_pointer()
