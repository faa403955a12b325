// The GPU matmul kernels: generated sources compile with NVRTC (no GPU needed), their
// parameter structs have the host's layout, the cuBLAS declarations match the toolkit's header,
// and, on a GPU, cuBLAS products equal the CPU's and random draws equal the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "numfuse/backend/backend.h"
#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_matmul.h"
#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/cublas_abi.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/matmul_plan.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/linalg.h"
#include "numfuse/ops/random.h"

#ifdef NUMFUSE_TEST_NVRTC
#include <cublas_api.h>
#include <nvrtc.h>
#endif

using namespace nf;
using namespace nf::cuda;

namespace {

const DType kIntDTypes[] = {DType::Bool,  DType::Int8,   DType::UInt8, DType::Int16, DType::UInt16,
                            DType::Int32, DType::UInt32, DType::Int64, DType::UInt64};

void expect_compiles(const std::string& src, const char* name) {
#ifdef NUMFUSE_TEST_NVRTC
  ::nvrtcProgram prog;
  ASSERT_EQ(nvrtcCreateProgram(&prog, src.c_str(), name, 0, nullptr, nullptr), ::NVRTC_SUCCESS);
  const char* opts[] = {"--gpu-architecture=compute_90", "-std=c++17", "--fmad=false",
                        "-I" NUMFUSE_CUDA_INCLUDE};
  ::nvrtcResult rc = nvrtcCompileProgram(prog, 4, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  std::string log(n, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  nvrtcDestroyProgram(&prog);
  EXPECT_EQ(rc, ::NVRTC_SUCCESS) << name << "\n" << log;
#else
  GTEST_SKIP() << "NVRTC not available at build time";
#endif
}

// Device code that fails to compile unless the struct's size and alignment are the host's. Every
// member is 8 bytes wide on both sides (pointers, long long, double), so with the same member
// text that pins the whole layout; NVRTC has no offsetof to check offsets one by one.
std::string layout_check(const char* type, size_t size, size_t align) {
  return "static_assert(sizeof(" + std::string(type) + ") == " + std::to_string(size) +
         ", \"size\");\nstatic_assert(alignof(" + type + ") == " + std::to_string(align) +
         ", \"align\");\n";
}

// Full NVRTC sources: the prelude and a generated body.
std::string int_gemm_source(DType dt) { return std::string(kKernelPrelude) + int_gemm_kernel_body(dt); }

bool have_gpu() { return cuda_available() && cublas_available(); }

}  // namespace

// ---- the integer matmul kernel -----------------------------------------------------------------

TEST(IntGemmCodegen, EveryIntegerDTypeCompiles) {
  for (DType dt : kIntDTypes) {
    SCOPED_TRACE(dtype_name(dt));
    expect_compiles(int_gemm_source(dt), "int_gemm.cu");
  }
}

TEST(IntGemmCodegen, ParamsLayoutMatchesHost) {
  std::string src = int_gemm_source(DType::Int32) +
                    layout_check("IntGemmParams", sizeof(IntGemmParams), alignof(IntGemmParams));
  expect_compiles(src, "int_gemm_layout.cu");
}

TEST(IntGemmCodegen, SourceDependsOnDTypeOnlyAndRejectsFloats) {
  EXPECT_EQ(int_gemm_source(DType::Int64), int_gemm_source(DType::Int64));
  EXPECT_NE(int_gemm_source(DType::Int64), int_gemm_source(DType::Int32));
  EXPECT_NE(int_gemm_source(DType::Bool).find("acc | (x & y)"), std::string::npos);
  EXPECT_NE(int_gemm_source(DType::Int8).find(kernel_templates::int_gemm), std::string::npos);
  EXPECT_THROW(int_gemm_source(DType::Float32), TypeError);
  EXPECT_THROW(int_gemm_source(DType::Complex64), TypeError);
}


// ---- cuBLAS declarations against the toolkit's header ------------------------------------------

#ifdef NUMFUSE_TEST_NVRTC
namespace {
// Every pointer is one machine word and every enum an int on the C ABI, whatever it points to.
template <class T>
using abi_arg = std::conditional_t<std::is_pointer_v<T>, const void*,
                                   std::conditional_t<std::is_enum_v<T>, int, T>>;
template <class R, class... A>
struct AbiSig {
  using type = abi_arg<R> (*)(abi_arg<A>...);
};
template <class R, class... A>
AbiSig<R, A...> abi_sig(R (*)(A...));
#define NF_ABI(f) decltype(abi_sig(f))::type
#define NF_SAME_ABI(real, ours) \
  static_assert(std::is_same_v<NF_ABI(&real), NF_ABI(cublas_abi::ours{})>, #real)
NF_SAME_ABI(cublasCreate_v2, CreateFn);
NF_SAME_ABI(cublasSetStream_v2, SetStreamFn);
NF_SAME_ABI(cublasGetVersion_v2, GetVersionFn);
NF_SAME_ABI(cublasSgemm_v2, GemmFn);
NF_SAME_ABI(cublasDgemm_v2, GemmFn);
NF_SAME_ABI(cublasCgemm_v2, GemmFn);
NF_SAME_ABI(cublasZgemm_v2, GemmFn);
NF_SAME_ABI(cublasSgemmStridedBatched, GemmBatchedFn);
NF_SAME_ABI(cublasDgemmStridedBatched, GemmBatchedFn);
NF_SAME_ABI(cublasCgemmStridedBatched, GemmBatchedFn);
NF_SAME_ABI(cublasZgemmStridedBatched, GemmBatchedFn);
NF_SAME_ABI(cublasGetStatusName, StatusTextFn);
NF_SAME_ABI(cublasGetStatusString, StatusTextFn);
// cublasGemmEx and cublasGemmStridedBatchedEx are overloaded in C++ (inline wrappers taking a
// cudaDataType compute type): pick the exported ones by their signature.
using RealGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                      int, const void*, const void*, cudaDataType, int, const void*,
                                      cudaDataType, int, const void*, void*, cudaDataType, int,
                                      cublasComputeType_t, cublasGemmAlgo_t);
using RealGemmBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                             int, int, int, const void*, const void*, cudaDataType,
                                             int, long long, const void*, cudaDataType, int,
                                             long long, const void*, void*, cudaDataType, int,
                                             long long, int, cublasComputeType_t, cublasGemmAlgo_t);
static_assert(std::is_same_v<NF_ABI(static_cast<RealGemmEx>(&cublasGemmEx)),
                             NF_ABI(cublas_abi::GemmExFn{})>);
static_assert(std::is_same_v<NF_ABI(static_cast<RealGemmBatchedEx>(&cublasGemmStridedBatchedEx)),
                             NF_ABI(cublas_abi::GemmBatchedExFn{})>);
static_assert(cublas_abi::CUBLAS_STATUS_SUCCESS == CUBLAS_STATUS_SUCCESS);
static_assert(cublas_abi::CUBLAS_STATUS_ALLOC_FAILED == CUBLAS_STATUS_ALLOC_FAILED);
static_assert(cublas_abi::CUBLAS_OP_N == CUBLAS_OP_N && cublas_abi::CUBLAS_OP_T == CUBLAS_OP_T);
static_assert(cublas_abi::CUDA_R_16F == CUDA_R_16F);
static_assert(cublas_abi::CUBLAS_COMPUTE_32F == CUBLAS_COMPUTE_32F);
static_assert(cublas_abi::CUBLAS_GEMM_DEFAULT == CUBLAS_GEMM_DEFAULT);
}  // namespace
#endif

TEST(Cublas, SupportsTheFloatDTypesOnly) {
  EXPECT_TRUE(cublas_supports(DType::Float16));
  EXPECT_TRUE(cublas_supports(DType::Complex128));
  EXPECT_FALSE(cublas_supports(DType::Int32));
  EXPECT_FALSE(cublas_supports(DType::Bool));
  EXPECT_NO_THROW(cublas_available());
  EXPECT_FALSE(cublas_description().empty());
}

// ---- on a GPU: cuBLAS against the CPU's gemm, random against the CPU's draw --------------------

namespace {

// Small integers in every dtype: every product and sum is exact, so the results compare bitwise.
std::vector<char> small_ints(DType dt, int64_t n, int salt) {
  std::vector<char> bytes(size_t(n) * itemsize(dt));
  for (int64_t i = 0; i < n; ++i) {
    const int v = int((i * 7 + salt * 3) % 7) - 3;
    char* p = bytes.data() + i * itemsize(dt);
    NF_DISPATCH(dt, "small_ints", { *reinterpret_cast<scalar_t*>(p) = nf::convert<scalar_t>(v); });
  }
  return bytes;
}

struct DeviceBytes {
  std::shared_ptr<Buffer> buf;
  DeviceBytes(const std::vector<char>& host, int dev) {
    buf = allocate_device_buffer(std::max<size_t>(host.size(), 1), dev);
    copy_host_to_device(reinterpret_cast<CUdeviceptr>(buf->data()), host.data(), host.size(),
                        current_stream(dev));
  }
  std::vector<char> get(size_t n, int dev) const {
    std::vector<char> out(n);
    copy_device_to_host(out.data(), reinterpret_cast<CUdeviceptr>(buf->data()), n, current_stream(dev));
    return out;
  }
};

}  // namespace

TEST(CublasGpu, GemmMatchesCpuForEveryDTypeAndTranspose) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU or no cuBLAS: " << cuda_unavailable_reason() << " "
                                << cublas_description();
  const int dev = 0;
  const int64_t M = 5, N = 7, K = 19, batch = 3;
  for (DType dt : {DType::Float16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      SCOPED_TRACE(std::string(dtype_name(dt)) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
      const int64_t lda = (ta ? M : K) + 2, ldb = (tb ? K : N) + 1, ldc = N + 3;
      const int64_t sa = (ta ? K : M) * lda, sb = 0, sc = M * ldc;  // b broadcast over the batch
      const size_t es = itemsize(dt);
      std::vector<char> a = small_ints(dt, batch * sa, 1), b = small_ints(dt, (tb ? N : K) * ldb, 2);
      std::vector<char> want(size_t(batch * sc) * es, 0);
      for (int64_t i = 0; i < batch; ++i) {
        cpu::gemm(dt, ta, tb, M, N, K, a.data() + i * sa * es, lda, b.data(), ldb,
                  want.data() + i * sc * es, ldc);
      }
      DeviceBytes da(a, dev), db(b, dev), dc(std::vector<char>(want.size(), 0), dev);
      gemm_strided_batched(dt, ta, tb, M, N, K, da.buf->data(), lda, sa, db.buf->data(), ldb, sb,
                           dc.buf->data(), ldc, sc, batch, dev);
      std::vector<char> got = dc.get(want.size(), dev);
      for (int64_t i = 0; i < batch; ++i) {
        for (int64_t r = 0; r < M; ++r) {
          const size_t at = size_t((i * sc + r * ldc) * int64_t(es));
          EXPECT_EQ(std::memcmp(got.data() + at, want.data() + at, size_t(N) * es), 0)
              << "matrix " << i << " row " << r;
        }
      }
      // The single-matrix entry point, and k == 0 (zeros, whatever C held).
      DeviceBytes d1(std::vector<char>(size_t(M * ldc) * es, 1), dev);
      gemm(dt, ta, tb, M, N, K, da.buf->data(), lda, db.buf->data(), ldb, d1.buf->data(), ldc, dev);
      std::vector<char> one = d1.get(size_t(M * ldc) * es, dev);
      for (int64_t r = 0; r < M; ++r) {
        EXPECT_EQ(std::memcmp(one.data() + r * ldc * es, want.data() + r * ldc * es, size_t(N) * es), 0);
      }
      gemm(dt, ta, tb, M, N, 0, da.buf->data(), lda, db.buf->data(), ldb, d1.buf->data(), N, dev);
      std::vector<char> zero = d1.get(size_t(M * N) * es, dev);
      EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](char c) { return c == 0; }));
    }
  }
}

TEST(CublasGpu, BadLeadingDimensionRaisesCudaErrorNamingTheCall) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU or no cuBLAS";
  DeviceBytes d(std::vector<char>(64 * 4, 0), 0);
  try {
    gemm(DType::Float32, false, false, 4, 4, 4, d.buf->data(), 1, d.buf->data(), 4, d.buf->data(), 4, 0);
    FAIL() << "lda 1 < 4 was accepted";
  } catch (const CUDAError& e) {
    EXPECT_NE(std::string(e.what()).find("cublasSgemm_v2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << e.what();
  }
}

TEST(RandomGpu, DrawsEqualTheCpus) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  struct Case {
    RandomDist dist;
    DType dt;
    double a, b;
    uint64_t low, range;
  };
  const Case cases[] = {
      {RandomDist::Uniform, DType::Float32, -2.0, 5.0, 0, 0},
      {RandomDist::Uniform, DType::Float64, 0.0, 1.0, 0, 0},
      {RandomDist::Normal, DType::Float32, 0.0, 1.0, 0, 0},
      {RandomDist::Normal, DType::Float64, 3.0, 2.0, 0, 0},
      {RandomDist::Integers, DType::Int64, 0, 0, uint64_t(-1000), 2000},
      {RandomDist::Integers, DType::UInt64, 0, 0, 0, 0},
      {RandomDist::Integers, DType::Int8, 0, 0, uint64_t(-128), 256},
      {RandomDist::Integers, DType::Bool, 0, 0, 0, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.dt)) + " dist " + std::to_string(int(c.dist)));
    RandomSpec spec;
    spec.dist = c.dist;
    spec.seed = 0x123456789abcdefull;
    spec.stream = 3;
    spec.offset = 1000;
    spec.a = c.a;
    spec.b = c.b;
    spec.low = c.low;
    spec.range = c.range;
    const Shape shape{3, 1001};
    Array host = random(shape, c.dt, spec, Device::cpu());
    Array gpu = random(shape, c.dt, spec, Device::cuda(0));
    eval({host, gpu}, FlushReason::Explicit);
    Array back = Array::empty(shape, c.dt, Device::cpu());
    backend::copy_into(gpu, back);
    const size_t n = host.nbytes();
    if (c.dist == RandomDist::Normal) {
      // log and cos differ between CUDA and the host's libm by a few ulps.
      for (int64_t i = 0; i < host.size(); ++i) {
        const double h = c.dt == DType::Float32 ? host.data_as<float>()[i] : host.data_as<double>()[i];
        const double g = c.dt == DType::Float32 ? back.data_as<float>()[i] : back.data_as<double>()[i];
        const double tol = (c.dt == DType::Float32 ? 1e-5 : 1e-13) * (1.0 + std::abs(h));
        ASSERT_NEAR(g, h, tol) << "element " << i;
      }
    } else {
      EXPECT_EQ(std::memcmp(host.data(), back.data(), n), 0);
    }
  }
}

// ---- the GPU matmul plan, executed with the CPU's gemm (no GPU needed) -------------------------

namespace {

// A float64 host array of small integers (every product and sum exact), as a view of `base`.
Array int_valued(const Shape& base_shape, int salt) {
  Array a = Array::empty(base_shape, DType::Float64, Device::cpu());
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = double((i * 5 + salt) % 7) - 3.0;
  return a;
}

// a @ b through plan_matmul's calls for a library with `limits`, with the copies and gemms done
// on the host.
Array run_plan(Array a, Array b, const GemmLimits& limits, size_t* ncalls) {
  const Shape out_shape = matmul_shape(a.shape, b.shape);
  const Shape out_batch = matmul_out_batch(out_shape, a.ndim(), b.ndim());
  MatrixStack A = describe_operand(a, true, out_batch, limits);
  MatrixStack B = describe_operand(b, false, out_batch, limits);
  auto c_order = [](const Array& x) {
    Array c = Array::empty(x.shape, x.dtype, Device::cpu());
    cpu::copy_cast(x, c);
    return c;
  };
  if (!A.usable) A = describe_operand(a = c_order(a), true, out_batch, limits);
  if (!B.usable) B = describe_operand(b = c_order(b), false, out_batch, limits);
  EXPECT_TRUE(A.usable && B.usable);
  Array out = Array::empty(out_shape, DType::Float64, Device::cpu());
  std::fill(out.data_as<double>(), out.data_as<double>() + out.size(), -999.0);  // unwritten shows
  const MatmulPlan plan = plan_matmul(A, B, out_batch, limits);
  for (const GemmCall& c : plan.calls) {
    cpu::gemm_strided_batched(DType::Float64, plan.trans_a, plan.trans_b, c.M, plan.N, plan.K,
                              a.data_as<double>() + c.a_off, c.lda, c.stride_a,
                              b.data_as<double>() + c.b_off, plan.ldb, c.stride_b,
                              out.data_as<double>() + c.c_off, plan.ldc, c.stride_c, c.count);
  }
  *ncalls = plan.calls.size();
  return out;
}

struct PlanCase {
  const char* name;
  Shape a_base, a_shape;
  Strides a_strides;
  int64_t a_off;  // elements
  Shape b_base, b_shape;
  Strides b_strides;
  int64_t b_off;
  size_t calls;   // gemm calls expected for cuBLAS
  size_t blas_calls;  // and for CPU BLAS (negative batch strides allowed): 0 for the same
};

}  // namespace

TEST(MatmulPlan, CallsComputeWhatTheCpuMatmulComputes) {
  const PlanCase cases[] = {
      {"plain", {6, 8}, {6, 8}, {8, 1}, 0, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"a.T", {8, 6}, {6, 8}, {1, 6}, 0, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"b.T", {6, 8}, {6, 8}, {8, 1}, 0, {7, 8}, {8, 7}, {1, 8}, 0, 1},
      {"b rows reversed (copy)", {6, 8}, {6, 8}, {8, 1}, 0, {8, 7}, {8, 7}, {-7, 1}, 49, 1},
      {"a stepped (copy)", {12, 16}, {6, 8}, {32, 2}, 0, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"a padded rows", {6, 10}, {6, 8}, {10, 1}, 1, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"fold", {4, 3, 5}, {4, 3, 5}, {15, 5, 1}, 0, {5, 6}, {5, 6}, {6, 1}, 0, 1},
      {"fold M=1", {5, 1, 8}, {5, 1, 8}, {8, 8, 1}, 0, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"batched", {2, 3, 4}, {2, 3, 4}, {12, 4, 1}, 0, {2, 4, 5}, {2, 4, 5}, {20, 5, 1}, 0, 1},
      {"batched a.T", {3, 8, 6}, {3, 6, 8}, {48, 1, 6}, 0, {3, 8, 7}, {3, 8, 7}, {56, 7, 1}, 0, 1},
      {"a broadcast", {6, 8}, {3, 6, 8}, {0, 8, 1}, 0, {3, 8, 7}, {3, 8, 7}, {56, 7, 1}, 0, 1},
      {"batch reversed", {3, 6, 8}, {3, 6, 8}, {-48, 8, 1}, 96, {8, 7}, {8, 7}, {7, 1}, 0, 3, 1},
      {"batch stepped", {6, 6, 8}, {3, 6, 8}, {96, 8, 1}, 0, {3, 8, 7}, {3, 8, 7}, {56, 7, 1}, 0, 1},
      {"4-d broadcast", {3, 1, 4, 5}, {3, 1, 4, 5}, {20, 20, 5, 1}, 0, {2, 5, 6}, {2, 5, 6}, {30, 6, 1}, 0, 3},
      {"1-d @ 2-d", {8}, {8}, {1}, 0, {8, 7}, {8, 7}, {7, 1}, 0, 1},
      {"2-d @ 1-d stepped", {6, 8}, {6, 8}, {8, 1}, 0, {24}, {8}, {3}, 0, 1},
      {"1-d reversed @ 1-d", {8}, {8}, {-1}, 7, {8}, {8}, {1}, 0, 1},
      {"1-d @ batched", {5}, {5}, {1}, 0, {3, 5, 2}, {3, 5, 2}, {10, 2, 1}, 0, 1},
      {"batched @ 1-d", {2, 4, 5}, {2, 4, 5}, {20, 5, 1}, 0, {5}, {5}, {1}, 0, 1},
  };
  for (const PlanCase& c : cases) {
    SCOPED_TRACE(c.name);
    Array abase = int_valued(c.a_base, 1), bbase = int_valued(c.b_base, 2);
    Array a = abase.view(c.a_shape, c.a_strides, c.a_off * 8);
    Array b = bbase.view(c.b_shape, c.b_strides, c.b_off * 8);
    Array want = matmul(a, b);
    eval({want}, FlushReason::Explicit);
    // One planner, two libraries: the same products, the calls each library's limits allow.
    for (bool cublas : {true, false}) {
      SCOPED_TRACE(cublas ? "cuBLAS limits" : "BLAS limits");
      size_t ncalls = 0;
      Array got = run_plan(a, b, cublas ? cublas_limits() : blas_limits(), &ncalls);
      ASSERT_EQ(got.shape, want.shape);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.nbytes()), 0);
      EXPECT_EQ(ncalls, cublas || !c.blas_calls ? c.calls : c.blas_calls);
    }
  }
}
