"""numfuse.ReductionKernel (CuPy's API): the generated source compiles with NVRTC for every dtype
family (no GPU needed), the errors every machine sees, and values against NumPy on the GPU."""
import numpy as np
import pytest

import numfuse as nf

L2 = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")


def _gpu(device):
    if device != "cuda":
        pytest.skip("ReductionKernel runs CUDA C++: the cuda device only")


def test_construction_checks_the_parameters():
    nf.ReductionKernel(*L2)
    with pytest.raises(ValueError, match="one output"):
        nf.ReductionKernel("T x", "T y, T z", "x", "a + b", "y = a", "0")
    with pytest.raises(ValueError, match="raw"):
        nf.ReductionKernel("raw T x", "T y", "x", "a + b", "y = a", "0")


def test_an_unbound_placeholder_is_named():
    k = nf.ReductionKernel("T x", "U y", "x", "a + b", "y = a", "0", "r")
    with pytest.raises(TypeError, match="ReductionKernel 'r': cannot determine the type 'U' of 'y'"):
        k(nf.arange(4.0))


def test_call_without_a_gpu_is_a_cuda_error():
    if nf.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(nf.cuda.CUDAError, match="l2norm"):
        nf.ReductionKernel(*L2)(nf.arange(4.0))


@pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool", "complex128", "float16"])
def test_generated_source_compiles(dtype):
    dt = np.dtype(dtype)
    k = nf.ReductionKernel("T x, float64 w", "T y", "x", "a + b", "y = a", "0", "sum_k")
    src, entry = k._source([dt, np.dtype("float64")], [False, True], dt, dt, [("T", dt)])
    nf.RawKernel(src, entry, options=("-std=c++17",)).compile()


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), ((0, 2), True), (-1, False), ((), False)])
def test_values_against_numpy(device, axis, keepdims):
    _gpu(device)
    rng = np.random.default_rng(2)
    x = rng.random((3, 70, 5))
    got = nf.ReductionKernel(*L2)(nf.asarray(x, device="cuda"), axis=axis, keepdims=keepdims)
    want = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
    np.testing.assert_allclose(nf.asnumpy(got), want, rtol=1e-12)


def test_max_with_identity_scalars_and_out(device):
    _gpu(device)
    x = np.random.default_rng(3).standard_normal((4, 1000)).astype(np.float32)
    k = nf.ReductionKernel("T x, T s", "T y", "x * s", "max(a, b)", "y = a", "-1e30", "scaled_max")
    out = nf.empty(4, dtype=np.float32, device="cuda")
    res = k(nf.asarray(x, device="cuda"), np.float32(2), axis=1, out=out)
    np.testing.assert_array_equal(nf.asnumpy(out), (x * 2).max(axis=1))
    assert res is out
    with pytest.raises(ValueError, match="out must be"):
        k(nf.asarray(x, device="cuda"), np.float32(2), axis=1, out=nf.empty(3, dtype=np.float32, device="cuda"))


def test_two_pass_reduction_of_few_long_rows(device):
    _gpu(device)
    x = np.random.default_rng(4).random((2, 3_000_000))
    k = nf.ReductionKernel(*L2)
    np.testing.assert_allclose(nf.asnumpy(k(nf.asarray(x, device="cuda"), axis=1)),
                               np.sqrt(np.sum(x * x, axis=1)), rtol=1e-12)
    np.testing.assert_allclose(float(nf.asnumpy(k(nf.asarray(x, device="cuda")))),
                               np.sqrt(np.sum(x * x)), rtol=1e-12)
