"""numfuse.ElementwiseKernel (CuPy's API) as a node of the lazy graph: values against NumPy on the
GPU (the `device` fixture's cuda), fusion with the element-wise ops around it (one group), and
the errors every machine sees (construction, argument counts, types, CUDAError without a GPU).
The generated fused source is compile-checked by NVRTC and run on the CUDA emulator in
cpp/tests/test_user_elementwise.cpp.
"""
import numpy as np
import pytest

import numfuse as nf


def _gpu(device):
    if device != "cuda":
        pytest.skip("ElementwiseKernel runs CUDA C++: the cuda device only")


def _on(a):
    return nf.asarray(a, device="cuda")


# ---- everywhere --------------------------------------------------------------------------------

def test_construction_never_fails_and_parses_parameters():
    k = nf.ElementwiseKernel("float32 x, T y, raw T r", "T z", "z = x * y + r[0]", "fma")
    assert [p.name for p in k.in_params] == ["x", "y", "r"]
    assert [p.raw for p in k.in_params] == [False, False, True]
    assert k.in_params[0].dtype == np.float32 and k.in_params[1].dtype is None
    assert k.nin == 3 and k.nout == 1
    nf.ElementwiseKernel("T x", "T y", "this is not C++")  # compiled at the first GPU call only


def test_bad_parameter_lists_are_value_errors():
    with pytest.raises(ValueError, match="parameter names repeat"):
        nf.ElementwiseKernel("T x, T x", "T y", "y = x")
    with pytest.raises(ValueError, match="cannot read the parameter"):
        nf.ElementwiseKernel("x", "T y", "y = x")


def test_argument_count_and_unbound_placeholder_are_type_errors():
    k = nf.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add2")
    with pytest.raises(TypeError, match="takes 2 inputs"):
        k(nf.zeros(3))
    k2 = nf.ElementwiseKernel("T x", "U z", "z = x", "cast")
    with pytest.raises(TypeError, match="cannot determine the type 'U' of 'z'"):
        k2(nf.zeros(3))


def test_call_without_a_gpu_is_a_cuda_error():
    if nf.cuda.is_available():
        pytest.skip("a GPU is present")
    k = nf.ElementwiseKernel("T x", "T y", "y = x * 2", "double_it")
    with pytest.raises(nf.cuda.CUDAError, match="double_it"):
        k(nf.arange(4.0))


FUSED_OPTIONS = ("-std=c++17", "--fmad=false")  # those of numfuse's fused kernels


@pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
@pytest.mark.parametrize("params, outs, operation, args, kwargs", [
    ("float32 x, T y", "T z", "z = x * y + 1", lambda: (nf.zeros((4, 5), np.float32), nf.zeros(5)), {}),
    ("T x, T a", "T z", "z = a * x", lambda: (nf.zeros(6, np.float32), 2.5), {}),
    ("T x, raw T r", "T z", "z = x + r[(i + 1) % r.size()] + (T)_ind.size()",
     lambda: (nf.zeros(7), nf.zeros(3)), {}),
    ("T x", "T y", "y += x", lambda: (nf.zeros(5), nf.ones(5)), {}),
    ("T x", "T s, T d", "s = x + x; d = x * x", lambda: (nf.zeros(4, np.int16),), {}),
    ("", "int64 y", "y = i * i", lambda: (), {"size": 10}),
    ("T x, bool m", "T y", "y = m ? x : T(0)", lambda: (nf.zeros((3, 1), np.complex64), np.bool_(True)), {}),
    ("T x", "T y", "y = x * 2", lambda: (nf.zeros(8, np.float16),), {}),
])
def test_fused_source_of_a_call_compiles_with_nvrtc(params, outs, operation, args, kwargs):
    # The whole front end (parsing, placeholders, scalars, raw arrays, given outputs) down to the
    # generated kernel a GPU would compile, checked here by NVRTC.
    k = nf.ElementwiseKernel(params, outs, operation, "checked")
    src = k._cuda_source(*args(), **kwargs)
    assert operation in src
    nf.RawKernel(src, "nf_fused", options=FUSED_OPTIONS).compile()


@pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
@pytest.mark.parametrize("params, outs, operation, extra, args", [
    ("T x", "raw T y", "y[_ind.size() - 1 - i] = x", {}, lambda: (nf.zeros(5), nf.zeros(5))),
    ("T x, raw T r", "T y", "y = x + r[0]", {"after_loop": "if (threadIdx.x == 0) { }"},
     lambda: (nf.zeros(5, np.float32), nf.zeros(2, np.float32))),
    ("T x", "raw U y", "y[i] = (U)x", {}, lambda: (nf.zeros(3, np.complex64), nf.zeros(3, np.complex128))),
    ("T x, raw T y", "", "y[i] = x", {"no_return": True}, lambda: (nf.zeros(4), nf.zeros(4))),
])
def test_standalone_kernels_compile_with_nvrtc(params, outs, operation, extra, args):
    # Raw outputs and after_loop: a kernel of its own, not a fused step.
    k = nf.ElementwiseKernel(params, outs, operation, "alone", **extra)
    assert k._standalone
    src = k._cuda_source(*args())
    assert operation in src and "alone(" in src
    nf.RawKernel(src, "alone", options=("-std=c++17",)).compile()


# ---- on a GPU -------------------------------------------------------------------------------------

def test_values_broadcasting_and_placeholders(device):
    _gpu(device)
    rng = np.random.default_rng(1)
    x = rng.random((4, 5), dtype=np.float32)
    y = rng.random(5)
    k = nf.ElementwiseKernel("float32 x, T y", "T z", "z = x * y + 1", "fma1")
    got = k(_on(x), _on(y))
    assert got.dtype == np.float64 and got.shape == (4, 5)
    np.testing.assert_allclose(nf.asnumpy(got), x.astype(np.float64) * y + 1, rtol=1e-15)


def test_scalars_take_the_placeholder_bound_by_arrays(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x, T a", "T z", "z = a * x", "scale")
    x = np.arange(6, dtype=np.float32)
    got = k(_on(x), 2.5)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(nf.asnumpy(got), x * np.float32(2.5))


def test_index_size_and_raw_parameters(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x, raw T r", "T z",
                             "z = x + r[(i + 1) % r.size()] + (T)_ind.size()", "shift_add")
    x = np.arange(7.0)
    r = np.arange(3.0) * 10
    got = nf.asnumpy(k(_on(x), _on(r)))
    idx = (np.arange(7) + 1) % 3
    np.testing.assert_array_equal(got, x + r[idx] + 7)


def test_outputs_given_are_written_and_read(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T y", "y += x", "accumulate")
    y = _on(np.ones(5))
    res = k(_on(np.arange(5.0)), y)
    assert res is y or nf.asnumpy(res).tolist() == nf.asnumpy(y).tolist()
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(5.0) + 1)


def test_multiple_outputs_and_no_return(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T s, T d", "s = x + x; d = x * x", "two")
    s, d = k(_on(np.arange(4.0)))
    np.testing.assert_array_equal(nf.asnumpy(s), np.arange(4.0) * 2)
    np.testing.assert_array_equal(nf.asnumpy(d), np.arange(4.0) ** 2)
    k2 = nf.ElementwiseKernel("T x", "T y", "y = x", "copy_nr", no_return=True)
    assert k2(_on(np.arange(3.0))) is None


def test_size_without_arrays(device):
    _gpu(device)
    k = nf.ElementwiseKernel("", "int64 y", "y = i * i", "squares")
    np.testing.assert_array_equal(nf.asnumpy(k(size=10)), np.arange(10) ** 2)
    with pytest.raises(ValueError, match="size="):
        k()


def test_fuses_with_the_ops_around_it(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T y", "y = x * x", "square")
    x = _on(np.arange(1000.0))
    y = k(nf.sin(x)) * 2 + 1
    plan = nf.explain(y)
    assert "in 1 group(s)" in plan, plan
    assert "square" in plan
    np.testing.assert_allclose(nf.asnumpy(y), np.sin(np.arange(1000.0)) ** 2 * 2 + 1, rtol=1e-14)


def test_pending_readers_see_old_values_of_a_given_output(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T y", "y = x", "assign")
    y = _on(np.zeros(4))
    before = y + 1  # pending, reads the old y
    k(_on(np.arange(4.0)), y)
    np.testing.assert_array_equal(nf.asnumpy(before), np.ones(4))
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(4.0))


def test_compile_error_names_the_operation(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T y", "y = x * undefined_thing", "broken")
    with pytest.raises(nf.cuda.CompileError, match="undefined_thing"):
        nf.asnumpy(k(_on(np.arange(3.0))))


def test_type_errors_name_the_parameter(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_same")
    with pytest.raises(TypeError, match="parameter 'y'"):
        k(_on(np.zeros(3)), _on(np.zeros(3, np.float32)))
    k2 = nf.ElementwiseKernel("int32 x", "int32 z", "z = x", "ints")
    with pytest.raises(TypeError, match="parameter 'x'"):
        k2(_on(np.zeros(3)))


def test_fuses_into_a_reduction(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "T y", "y = x * (T)(i % 3)", "weighted")
    h = np.random.default_rng(5).random((30, 400))
    x = _on(h)
    w = (np.arange(h.size) % 3).reshape(h.shape)
    np.testing.assert_allclose(float(nf.asnumpy(nf.sum(k(x)))), np.sum(h * w), rtol=1e-12)
    np.testing.assert_allclose(nf.asnumpy(nf.sum(k(x), axis=0)), np.sum(h * w, axis=0), rtol=1e-12)


def test_raw_output_scatters_as_its_own_kernel(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x", "raw T y", "y[_ind.size() - 1 - i] = x * 2", "reverse2")
    x = _on(np.arange(6.0))
    y = nf.zeros(6, device="cuda")
    before = y + 1  # pending: reads the zeros
    k(x, y)
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(6.0)[::-1] * 2)
    np.testing.assert_array_equal(nf.asnumpy(before), np.ones(6))
    with pytest.raises(TypeError, match="raw output 'y' must be given"):
        k(x)


PREAMBLE = "template <class T> __device__ T sq(T v) { return v * v; }"


@pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
def test_preamble_and_loop_prep_reach_the_fused_source():
    k = nf.ElementwiseKernel("T x", "T y", "y = sq(x) + c", "with_preamble", preamble=PREAMBLE,
                             loop_prep="const T c = 1")
    src = k._cuda_source(nf.zeros(4))
    assert PREAMBLE in src
    nf.RawKernel(src, "nf_fused", options=FUSED_OPTIONS).compile()


def test_two_kernels_sharing_a_preamble_fuse(device):
    _gpu(device)
    k1 = nf.ElementwiseKernel("T x", "T y", "y = sq(x)", "sq1", preamble=PREAMBLE)
    k2 = nf.ElementwiseKernel("T x", "T y", "y = sq(x) + 1", "sq2", preamble=PREAMBLE)
    x = _on(np.arange(5.0))
    y = k2(k1(x))
    assert "in 1 group(s)" in nf.explain(y)
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(5.0) ** 4 + 1)


@pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
def test_fused_source_of_pending_arguments():
    # Pending inputs (a GPU's zeros, a large CPU expression) are evaluated before their
    # addresses are taken (issue 14's first GPU run crashed here).
    k = nf.ElementwiseKernel("T x, raw T r", "T y", "y = x + r[0]", "pending_in")
    x = nf.arange(10**5, dtype=np.float64) * 2.0
    r = nf.zeros(10**5) + 1.0
    assert x._pending and r._pending
    src = k._cuda_source(x, r)
    nf.RawKernel(src, "nf_fused", options=FUSED_OPTIONS).compile()


def test_writes_through_a_raw_input_without_outputs(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x, raw T y", "", "y[i] = x + 1", "put_plus1", no_return=True)
    y = nf.zeros(5, device="cuda")
    assert k(_on(np.arange(5.0)), y) is None
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(5.0) + 1)


@pytest.mark.parametrize("operation, writes", [
    ("y = x + r[i]", False), ("y = r[i] == x", False), ("r[i] = x; y = x", True),
    ("r[i % 3] += x; y = x", True), ("atomicAdd(&r[0], x); y = x", True), ("++r[i]; y = x", True),
    ("y = rr[i]", False),
])
def test_kernels_writing_a_raw_input_run_on_their_own(operation, writes):
    k = nf.ElementwiseKernel("T x, raw T r, raw T rr", "T y", operation, "rawwrite")
    assert k._standalone == writes


def test_a_written_raw_input_must_be_contiguous(device):
    _gpu(device)
    k = nf.ElementwiseKernel("T x, raw T r", "", "r[i] = x", "put")
    r = nf.zeros(10, device="cuda")
    with pytest.raises(ValueError, match="raw parameter 'r' is written"):
        k(_on(np.arange(5.0)), r[::2])
