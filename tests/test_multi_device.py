"""Several GPUs in one process (issue 15): numfuse.cuda.Device(i) as a context that new arrays
follow, to_device between GPUs (peer copies), per-device streams, and the errors for a device that
does not exist or for mixing devices. Written for N GPUs: the tests that need two run where
numfuse.cuda.runtime.getDeviceCount() >= 2 and are skipped on one; everything that one GPU (or
none) can check runs everywhere.
"""
import threading

import numpy as np
import pytest

import harness

nf = harness.numfuse_module()
cuda_ok = nf is not None and harness.cuda_available(nf)
needs_cuda = pytest.mark.skipif(not cuda_ok, reason="numfuse.cuda.is_available() is False")


def device_count():
    return nf.cuda.runtime.getDeviceCount() if cuda_ok else 0


needs_two = pytest.mark.skipif(device_count() < 2, reason="needs two CUDA devices")


def test_thread_device_stack_directs_new_arrays():
    before = nf._core.default_device()
    nf._core.push_thread_device("cpu")
    try:
        assert nf.ones(3).device == "cpu"
        seen = []
        t = threading.Thread(target=lambda: seen.append(nf._core.default_device()))
        t.start()
        t.join()
        assert seen == [before]  # other threads keep the process default
    finally:
        nf._core.pop_thread_device()
    assert nf._core.default_device() == before
    with pytest.raises(ValueError, match="stack is empty"):
        nf._core.pop_thread_device()


def test_a_device_that_does_not_exist():
    a = nf.arange(3.0, device="cpu")
    n = device_count()
    if not cuda_ok:
        with pytest.raises(nf.cuda.CUDAError):
            a.to_device("cuda:1")
        return
    with pytest.raises(ValueError, match="does not exist"):
        a.to_device(f"cuda:{n}")
    with pytest.raises(ValueError, match="does not exist"):
        nf.zeros(2, device=f"cuda:{n}")
    with pytest.raises(nf.cuda.CUDAError):
        with nf.cuda.Device(n):
            pass
    assert nf.cuda.get_device_id() == 0 and nf._core.default_device() in ("cpu", "cuda:0")


@needs_cuda
def test_device_context_on_device_zero():
    before = nf._core.default_device()
    nf._core.set_default_device("cpu")
    try:
        with nf.cuda.Device(0) as dev:
            a = nf.arange(5.0)
            assert a.device == "cuda:0" and nf.cuda.get_device_id() == 0
            assert nf.cuda.Stream().device_id == 0
            dev.synchronize()
        assert nf.arange(2.0).device == "cpu"
        assert nf._core._data_ptr(a.to_device("cuda:0")) == nf._core._data_ptr(a)  # no copy
        np.testing.assert_array_equal(nf.asnumpy(a.to_device("cpu") * 2), np.arange(5.0) * 2)
    finally:
        nf._core.set_default_device(before)


@needs_cuda
def test_mixing_devices_raises():
    a = nf.ones(3, device="cuda:0")
    b = nf.ones(3, device="cpu")
    with pytest.raises(ValueError, match="different devices"):
        a + b


@needs_two
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_to_device_between_gpus(dtype):
    x = np.asarray(harness.make_array((6, 8), dtype))
    a = nf.asarray(x, device="cuda:0")
    b = a.to_device("cuda:1")
    assert b.device == "cuda:1"
    np.testing.assert_array_equal(nf.asnumpy(b), x)
    c = a[::2, ::-3].to_device("cuda:1")  # non-contiguous: made dense on cuda:0 first
    np.testing.assert_array_equal(nf.asnumpy(c), x[::2, ::-3])
    d = (b * 2).to_device("cuda:0")  # pending on cuda:1, back to cuda:0
    np.testing.assert_array_equal(nf.asnumpy(d), x * 2)
    with pytest.raises(ValueError, match="different devices"):
        a + b


@needs_two
def test_each_device_computes_with_its_own_streams_and_memory():
    x = np.arange(1 << 20, dtype=np.float64)
    with nf.cuda.Device(1):
        a = nf.asarray(x)
        assert a.device == "cuda:1"
        s = nf.cuda.Stream()
        assert s.device_id == 1
        with s:
            r = float((nf.sin(a) ** 2 + nf.cos(a) ** 2).sum())
        m = a.reshape(1024, 1024)
        mm = nf.asnumpy(m @ m.T)
    assert r == pytest.approx(x.size)
    np.testing.assert_allclose(mm, x.reshape(1024, 1024) @ x.reshape(1024, 1024).T, rtol=1e-12)
    assert nf.cuda.memory_info(1)["used"] >= x.nbytes  # a is alive: held in cuda:1's pool
    # the same kernel on both devices: each device loads its own module
    b = nf.asarray(x)
    assert float((nf.sin(b) ** 2 + nf.cos(b) ** 2).sum()) == pytest.approx(x.size)


@needs_two
def test_dlpack_names_the_device():
    a = nf.ones(4, device="cuda:1")
    assert tuple(int(v) for v in a.__dlpack_device__()) == (2, 1)
    b = nf.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert b.device == "cuda:1" and nf._core._data_ptr(b) == nf._core._data_ptr(a)
