"""RawKernel, RawModule and the PyCUDA names (numfuse.cuda.SourceModule, mem_alloc, memcpy_*).

What needs only NVRTC (compilation, compile errors, name expressions and lowered names, signature
reading) and what needs no GPU at all (construction, CUDAError at the call) runs everywhere; the
launches run on the `device` fixture's cuda (skipped without a GPU) and compare with NumPy.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import numfuse as nf
from numfuse import _kernels

needs_nvrtc = pytest.mark.skipif(not nf.cuda.nvrtc_available(), reason="NVRTC not found")
needs_gpu = pytest.mark.skipif(not nf.cuda.is_available(), reason="no CUDA GPU")

ADD = r'''
extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
'''

TEMPLATES = r'''
template <typename T> __global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
__global__ void set_first(double* x, double v) { x[0] = v; }
extern "C" __global__ void plain(int* x) { x[threadIdx.x] = threadIdx.x; }
'''


# ---- without a GPU: construction, signatures, errors ---------------------------------------------

def test_construction_never_compiles_nor_needs_a_gpu():
    k = nf.RawKernel("this is not CUDA", "k")  # compiled at first use only
    assert k.name == "k" and k.code == "this is not CUDA"
    m = nf.RawModule(code="neither", name_expressions=["f<int>"])
    assert m.name_expressions == ("f<int>",)


def test_backend_and_module_arguments_are_checked():
    with pytest.raises(ValueError, match="backend"):
        nf.RawKernel(ADD, "add", backend="hip")
    with pytest.raises(TypeError, match="exactly one of code= and path="):
        nf.RawModule()
    with pytest.raises(TypeError, match="exactly one of code= and path="):
        nf.RawModule(code=ADD, path="x.cubin")


@pytest.mark.parametrize("decl, expected", [
    ("const float* __restrict__ x", ("x", "p", "")),
    ("int n", ("n", "s", "int32")),
    ("unsigned long long n", ("n", "s", "uint64")),
    ("const double a", ("a", "s", "float64")),
    ("long long int n", ("n", "s", "int64")),
    ("bool flag", ("flag", "s", "bool")),
    ("complex<double> z", ("z", "s", "complex128")),
    ("T a", ("a", "?", "")),
    ("MyStruct s", ("s", "?", "")),
    ("size_t n", ("n", "s", "uint64")),
])
def test_parameter_declarations_are_read(decl, expected):
    assert _kernels._param_spec(decl, 0) == expected


def test_kernel_signature_is_found_among_other_functions():
    src = "__device__ int add(int a, int b) { return a + b; }\n" + ADD + "\n// add(float x)\n"
    assert _kernels._kernel_params(src, "add") == [
        ("x", "p", ""), ("y", "p", ""), ("z", "p", ""), ("n", "s", "int32")]
    assert _kernels._kernel_params("__global__ void k() {}", "k") == []
    assert _kernels._kernel_params("__global__ void k(void) {}", "k") == []
    assert _kernels._kernel_params(ADD, "missing") is None
    declared = 'extern "C" __global__ void add(const float* x, const float* y, float* z, int n);\n' + ADD
    assert _kernels._kernel_params(declared, "add") == _kernels._kernel_params(ADD, "add")
    overloads = "__global__ void k(int* x) {}\n__global__ void k(float* x, int n) {}\n"
    assert _kernels._kernel_params(overloads, "k") is None


def test_call_without_a_gpu_raises_cuda_error_naming_why():
    if nf.cuda.is_available():
        pytest.skip("a GPU is present")
    k = nf.RawKernel(ADD, "add")
    x = nf.zeros(4, dtype=np.float32)
    with pytest.raises(nf.cuda.CUDAError, match="kernel 'add' needs a CUDA GPU"):
        k((1,), (4,), (x, x, x, 4))


def test_cpu_device_call_raises_cuda_error():
    # NUMFUSE_DEVICE=cpu: the arrays are on the CPU; every kernel call is a CUDAError at the call.
    code = ("import numfuse as nf, numpy as np\n"
            "k = nf.RawKernel(%r, 'add')\n"
            "x = nf.zeros(4, dtype=np.float32)\n"
            "try:\n    k(1, 4, (x, x, x, 4))\nexcept nf.cuda.CUDAError as e:\n    print('CUDAError', e)\n") % ADD
    env = dict(os.environ, NUMFUSE_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("CUDAError"), out.stdout
    assert "CPU" in out.stdout or "needs a CUDA GPU" in out.stdout


@needs_nvrtc
def test_compile_error_carries_the_log_and_the_numbered_source():
    k = nf.RawKernel("__global__ void bad(int* x) {\n  x[0] = undefined_name;\n}\n", "bad")
    with pytest.raises(nf.cuda.CompileError) as info:
        k.compile()
    text = str(info.value)
    assert "undefined_name" in text and "is undefined" in text  # NVRTC's log
    assert "   2 |   x[0] = undefined_name;" in text  # the numbered source
    assert isinstance(info.value, nf.cuda.CUDAError)


@needs_nvrtc
def test_name_expressions_give_lowered_names():
    m = nf.RawModule(code=TEMPLATES, name_expressions=["scale<float>", "scale<double>", "set_first"])
    lf, ld = m._lowered_name("scale<float>"), m._lowered_name("scale<double>")
    assert lf != ld and lf.startswith("_Z") and ld.startswith("_Z")
    assert "scale" in lf
    assert m._lowered_name("set_first").startswith("_Z")  # a C++ name, mangled
    assert m.get_function("plain").lowered_name() == "plain"  # extern "C": its own name


@needs_nvrtc
def test_raw_kernel_accepts_cpp_and_template_names():
    assert nf.RawKernel(TEMPLATES, "scale<int>").lowered_name().startswith("_Z")
    assert nf.RawKernel(ADD, "add").lowered_name() == "add"


@needs_nvrtc
def test_compilation_is_cached():
    src = ADD + "\n// cache test %d\n" % os.getpid()
    before = nf.cuda.kernel_cache_stats()["compilations"]
    nf.RawKernel(src, "add").compile()
    nf.RawKernel(src, "add").compile()  # a new object: the process cache answers
    assert nf.cuda.kernel_cache_stats()["compilations"] == before + 1


@needs_nvrtc
def test_compiled_kernels_are_read_back_from_the_disk_cache(tmp_path):
    src = ADD + "\n// disk cache test %d\n" % os.getpid()
    before_dir = nf.cuda._c.kernel_cache_dir()
    try:
        nf.cuda._c.set_kernel_cache_dir(str(tmp_path))
        nf.RawKernel(src, "add").compile()
        assert any(tmp_path.iterdir())  # a file was written
        nf.cuda._c.set_kernel_cache_dir(str(tmp_path))  # forgets what memory held
        nf.cuda._c.reset_kernel_cache_stats()
        nf.RawKernel(src, "add").compile()
        stats = nf.cuda.kernel_cache_stats()
        assert stats["disk_hits"] == 1 and stats["compilations"] == 0
    finally:
        nf.cuda._c.set_kernel_cache_dir(before_dir)


@needs_nvrtc
def test_module_from_a_cubin_or_a_source_file(tmp_path):
    cubin = tmp_path / "add.cubin"
    cubin.write_bytes(nf.cuda._c.compile_to_cubin(ADD, "add", "sm_90", []))
    m = nf.RawModule(path=cubin)
    assert m.code is None and m.get_function("add").lowered_name() == "add"
    cu = tmp_path / "t.cu"
    cu.write_text(TEMPLATES)
    m2 = nf.RawModule(path=str(cu), name_expressions=["scale<float>"])
    assert m2._lowered_name("scale<float>").startswith("_Z")


@needs_nvrtc
def test_options_reach_nvrtc():
    src = "extern \"C\" __global__ void k(int* x) {\n#ifndef MY_FLAG\n#error no flag\n#endif\n}\n"
    with pytest.raises(nf.cuda.CompileError, match="no flag"):
        nf.RawKernel(src, "k").compile()
    nf.RawKernel(src, "k", options=("-DMY_FLAG",)).compile()


@needs_nvrtc
def test_source_module_wraps_in_extern_c_and_compiles_at_construction():
    m = nf.cuda.SourceModule("__global__ void f(float* x) { x[0] = 1; }")
    assert m.get_function("f")._raw.lowered_name() == "f"
    with pytest.raises(nf.cuda.CompileError):
        nf.cuda.SourceModule("__global__ void f(float* x) { x[0] = nope; }")


# ---- on a GPU -----------------------------------------------------------------------------------

def _gpu(device):
    if device != "cuda":
        pytest.skip("launches need the cuda device")


def test_raw_kernel_add(device):
    _gpu(device)
    rng = np.random.default_rng(0)
    n = 1000
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    k = nf.RawKernel(ADD, "add")
    z = nf.empty(n, dtype=np.float32, device="cuda")
    k(((n + 127) // 128,), (128,), (nf.asarray(x, device="cuda"), nf.asarray(y, device="cuda"), z, n))
    np.testing.assert_array_equal(nf.asnumpy(z), x + y)


def test_kernel_write_orders_with_the_lazy_graph(device):
    _gpu(device)
    k = nf.RawKernel(TEMPLATES, "scale<double>")
    a = nf.arange(10, dtype=np.float64, device="cuda")
    before = a + 1  # pending: must read the old values
    k(1, 32, (a, 3.0, 10))
    after = a + 1  # must read the kernel's values
    np.testing.assert_array_equal(nf.asnumpy(before), np.arange(10.0) + 1)
    np.testing.assert_array_equal(nf.asnumpy(after), np.arange(10.0) * 3 + 1)


def test_pending_argument_is_evaluated_first(device):
    _gpu(device)
    k = nf.RawKernel(TEMPLATES, "scale<float>")
    a = nf.arange(8, dtype=np.float32, device="cuda") * 2  # pending
    k(1, 8, (a, np.float32(0.5), 8))
    np.testing.assert_array_equal(nf.asnumpy(a), np.arange(8, dtype=np.float32))


def test_argument_errors_name_the_parameter(device):
    _gpu(device)
    k = nf.RawKernel(ADD, "add")
    x = nf.zeros(4, dtype=np.float32, device="cuda")
    with pytest.raises(TypeError, match=r"takes 4 arguments \(x, y, z, n\), 3 given"):
        k(1, 4, (x, x, x))
    with pytest.raises(TypeError, match="parameter 'n'"):
        k(1, 4, (x, x, x, np.float64(4)))
    with pytest.raises(TypeError, match="parameter 'n'"):
        k(1, 4, (x, x, x, x))
    with pytest.raises(TypeError, match="parameter 'y'"):
        k(1, 4, (x, 2.0, x, 4))
    with pytest.raises(TypeError, match="parameter 'n'"):
        k(1, 4, (x, x, x, 4.5))
    with pytest.raises(OverflowError, match="parameter 'n'"):
        k(1, 4, (x, x, x, 2**40))


def test_python_scalars_typed_as_cupy_when_the_signature_is_unknown(device):
    _gpu(device)
    m = nf.RawModule(code=r'''
    struct Box { double v; };
    extern "C" __global__ void put(double* out, long long i, double f, bool b, Box box) {
      out[0] = (double)i; out[1] = f; out[2] = b ? 1.0 : 0.0; out[3] = box.v;
    }''')
    out = nf.zeros(4, device="cuda")
    m.get_function("put")(1, 1, (out, 2**40 + 3, 2.5, True, np.float64(7.0)))
    np.testing.assert_array_equal(nf.asnumpy(out), [2.0**40 + 3, 2.5, 1.0, 7.0])


def test_template_instances_of_a_module(device):
    _gpu(device)
    m = nf.RawModule(code=TEMPLATES, name_expressions=["scale<float>", "scale<double>"])
    a = nf.ones(5, dtype=np.float32, device="cuda")
    b = nf.ones(5, dtype=np.float64, device="cuda")
    m.get_function("scale<float>")(1, 32, (a, np.float32(2), np.int32(5)))
    m.get_function("scale<double>")(1, 32, (b, np.float64(3), np.int32(5)))
    np.testing.assert_array_equal(nf.asnumpy(a), np.full(5, 2, np.float32))
    np.testing.assert_array_equal(nf.asnumpy(b), np.full(5, 3.0))


def test_shared_memory_stream_and_attributes(device):
    _gpu(device)
    src = r'''extern "C" __global__ void rev(const int* x, int* y, int n) {
      extern __shared__ int buf[];
      int t = threadIdx.x;
      buf[t] = x[t];
      __syncthreads();
      y[t] = buf[n - 1 - t];
    }'''
    k = nf.RawKernel(src, "rev")
    x = nf.arange(64, dtype=np.int32, device="cuda")
    y = nf.empty(64, dtype=np.int32, device="cuda")
    s = nf.cuda.Stream()
    k((1,), (64,), (x, y, 64), shared_mem=64 * 4, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(nf.asnumpy(y), np.arange(64)[::-1])
    assert k.max_threads_per_block >= 64 and k.num_regs > 0
    assert set(k.attributes) >= {"num_regs", "max_threads_per_block", "shared_size_bytes"}
    with pytest.raises(ValueError, match="grid"):
        k((0,), (64,), (x, y, 64))


def test_pycuda_mem_alloc_program(device):
    _gpu(device)
    import numfuse.cuda as cuda
    import numpy
    from numfuse.cuda import SourceModule
    a = numpy.random.randn(4, 4).astype(numpy.float32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    mod = SourceModule("""
    __global__ void doublify(float *a)
    {
      int idx = threadIdx.x + threadIdx.y*4;
      a[idx] *= 2;
    }
    """)
    func = mod.get_function("doublify")
    func(a_gpu, block=(4, 4, 1))
    a_doubled = numpy.empty_like(a)
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 2 * a)
    func.prepare("P")
    func.prepared_call((1, 1), (4, 4, 1), a_gpu)
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 4 * a)
    n = numpy.int32(16)
    scale = SourceModule("__global__ void sc(float* a, float s, int n)"
                         "{ int i = threadIdx.x; if (i < n) a[i] *= s; }").get_function("sc")
    scale(a_gpu, numpy.float32(0.5), n, block=(16, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 2 * a)


@pytest.mark.parametrize("program", ["pycuda_multiply_them.py", "pycuda_mem_alloc.py"])
def test_pycuda_example_programs_run(device, program):
    _gpu(device)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", program)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    if program == "pycuda_multiply_them.py":
        assert set(out.stdout.replace("[", " ").replace("]", " ").split()) <= {"0.", "-0."}, out.stdout
    else:
        assert "back to a: True" in out.stdout, out.stdout


def test_launch_from_a_cubin_file_and_the_internal_entry_point(device, tmp_path):
    _gpu(device)
    arch = nf.cuda._c.device_arch(nf.cuda.get_device_id())
    cubin = tmp_path / "add.cubin"
    cubin.write_bytes(nf.cuda._c.compile_to_cubin(ADD, "add", arch, []))
    x = nf.arange(100, dtype=np.float32, device="cuda")
    z = nf.empty(100, dtype=np.float32, device="cuda")
    nf.RawModule(path=cubin).get_function("add")(1, 128, (x, x, z, np.int32(100)))
    np.testing.assert_array_equal(nf.asnumpy(z), np.arange(100, dtype=np.float32) * 2)
    _kernels.launch(ADD, "add", 1, 128, (z, x, z, 100))  # source, signature-typed scalar
    _kernels.launch(cubin.read_bytes(), "add", (1, 1), (128,), (z, x, z, np.int32(100)))
    np.testing.assert_array_equal(nf.asnumpy(z), np.arange(100, dtype=np.float32) * 4)


@needs_nvrtc
def test_pycuda_prepare_accepts_struct_letters_and_numpy_types():
    f = nf.cuda.SourceModule("__global__ void f(float* a, int n) { }").get_function("f")
    assert f.prepare("Pi") is f
    assert f.prepare([np.intp, np.int32]) is f
    with pytest.raises(ValueError, match="unknown argument type"):
        f.prepare("Px")


COOPERATIVE = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void shift(float* x, float* y, int n) {
  cg::grid_group g = cg::this_grid();
  const int i = g.thread_rank();
  if (i < n) x[i] += 1.0f;
  g.sync();  // every block's writes are visible after it
  if (i < n) y[i] = x[(i + 1) % n];
}
'''


@needs_nvrtc
def test_cooperative_kernel_compiles():
    nf.RawKernel(COOPERATIVE, "shift", enable_cooperative_groups=True).compile()


def test_cooperative_launch_syncs_the_grid(device):
    _gpu(device)
    k = nf.RawKernel(COOPERATIVE, "shift", enable_cooperative_groups=True)
    x = nf.arange(256, dtype=np.float32, device="cuda")
    y = nf.empty(256, dtype=np.float32, device="cuda")
    k((4,), (64,), (x, y, 256))
    np.testing.assert_array_equal(nf.asnumpy(y), np.roll(np.arange(256, dtype=np.float32) + 1, -1))
