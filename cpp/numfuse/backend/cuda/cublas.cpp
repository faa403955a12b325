#include "numfuse/backend/cuda/cublas.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <complex>
#include <mutex>

#include "numfuse/backend/cuda/cublas_abi.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

using namespace cublas_abi;

struct CublasApi {
#define NF_CUBLAS_MEMBER(member, symbol, type) type member = nullptr;
  NF_CUBLAS_CALLS(NF_CUBLAS_MEMBER)
#undef NF_CUBLAS_MEMBER
  StatusTextFn GetStatusName = nullptr;    // optional (cuBLAS >= 11.4.2)
  StatusTextFn GetStatusString = nullptr;  // optional
  std::string path;
};

struct CublasState {
  bool ok = false;
  std::string reason;
  CublasApi api;
  int version = 0;
  std::mutex mutex;  // a handle's stream binding and the call that uses it go together
  std::array<cublasHandle_t, 64> handles{};
};

CublasState& state() {
  static auto* s = new CublasState();  // lives until exit: handles are never destroyed
  static std::once_flag once;
  std::call_once(once, [] {
    std::string path, err;
    void* h = open_library({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, library_dirs(),
                           false, &path, &err);
    if (!h) {
      s->reason = "cuBLAS (libcublas.so.13 or .12) could not be loaded: " + err +
                  " (install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-cublas)";
      return;
    }
    s->api.path = path;
#define NF_CUBLAS_LOAD(member, symbol, type)                           \
  s->api.member = reinterpret_cast<type>(dlsym(h, symbol));            \
  if (!s->api.member) {                                                \
    s->reason = std::string("cuBLAS at ") + path + " lacks " + symbol; \
    return;                                                            \
  }
    NF_CUBLAS_CALLS(NF_CUBLAS_LOAD)
#undef NF_CUBLAS_LOAD
    s->api.GetStatusName = reinterpret_cast<StatusTextFn>(dlsym(h, "cublasGetStatusName"));
    s->api.GetStatusString = reinterpret_cast<StatusTextFn>(dlsym(h, "cublasGetStatusString"));
    s->ok = true;
  });
  return *s;
}

const CublasApi& api() {
  CublasState& s = state();
  if (!s.ok) throw CUDAError(s.reason);
  return s.api;
}

void check_status(cublasStatus_t st, const char* call) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  const std::string msg = std::string(call) + " failed: " + cublas_status_text(st);
  if (st == CUBLAS_STATUS_ALLOC_FAILED) throw CUDAOutOfMemoryError(msg);
  throw CUDAError(msg);
}

// The device's handle, bound to the stream numfuse enqueues on now. Call with s.mutex held.
cublasHandle_t bound_handle(CublasState& s, int device) {
  if (device < 0 || device >= int(s.handles.size())) {
    throw CUDAError("cuBLAS: device " + std::to_string(device) + " is out of range");
  }
  Stream stream = enqueue_stream(device);  // activates the device's context
  cublasHandle_t& h = s.handles[device];
  if (!h) {
    check_status(s.api.Create(&h), "cublasCreate_v2");
    if (!s.version) s.api.GetVersion(h, &s.version);
  }
  check_status(s.api.SetStream(h, stream.handle()), "cublasSetStream_v2");
  return h;
}

int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX) {
    throw NotImplementedError(std::string("cuBLAS matmul: ") + what + " " + std::to_string(v) +
                              " does not fit cuBLAS's 32-bit int");
  }
  return static_cast<int>(v);
}

// alpha = 1 and beta = 0 in the scalar type cuBLAS expects for dt (float for float16's float32
// compute), as host memory (the handle's default pointer mode).
struct Scalars {
  std::complex<double> one{1.0, 0.0}, zero{0.0, 0.0};
  std::complex<float> one_f{1.0f, 0.0f}, zero_f{0.0f, 0.0f};
  const void* alpha(DType dt) const {
    return (dt == DType::Float64 || dt == DType::Complex128) ? static_cast<const void*>(&one)
                                                             : static_cast<const void*>(&one_f);
  }
  const void* beta(DType dt) const {
    return (dt == DType::Float64 || dt == DType::Complex128) ? static_cast<const void*>(&zero)
                                                             : static_cast<const void*>(&zero_f);
  }
};

// K == 0: every element of each M x N result is 0 (cuBLAS would skip the call).
void zero_results(int64_t M, int64_t N, void* C, int64_t ldc, int64_t stride_c, int64_t batch,
                  size_t es, int device) {
  Stream s = enqueue_stream(device);
  auto memset = [&](char* p, int64_t bytes) {
    check(driver().MemsetD8Async(reinterpret_cast<CUdeviceptr>(p), 0, size_t(bytes), s.handle()),
          "cuMemsetD8Async");
  };
  char* c = static_cast<char*>(C);
  if (ldc == N && (batch == 1 || stride_c == M * N)) {
    memset(c, batch * M * N * int64_t(es));
    return;
  }
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < M; ++i) memset(c + (b * stride_c + i * ldc) * int64_t(es), N * int64_t(es));
  }
}

}  // namespace

bool cublas_available() noexcept {
  try {
    return state().ok;
  } catch (...) {
    return false;
  }
}

std::string cublas_description() {
  CublasState& s = state();
  if (!s.ok) return s.reason;
  std::lock_guard<std::mutex> lock(s.mutex);
  return "cuBLAS " + (s.version ? std::to_string(s.version) : std::string("(version unknown)")) +
         " at " + s.api.path;
}

bool cublas_supports(DType dt) {
  return dt == DType::Float16 || dt == DType::Float32 || dt == DType::Float64 ||
         dt == DType::Complex64 || dt == DType::Complex128;
}

std::string cublas_status_text(int status) {
  CublasState& s = state();
  const char* name = nullptr;
  if (s.ok && s.api.GetStatusName) name = s.api.GetStatusName(status);
  std::string out = name ? name : "CUBLAS_STATUS_" + std::to_string(status);
  if (s.ok && s.api.GetStatusString) {
    if (const char* text = s.api.GetStatusString(status)) out += std::string(" (") + text + ")";
  }
  return out;
}

void gemm(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
          int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc, int device) {
  gemm_strided_batched(dt, trans_a, trans_b, M, N, K, A, lda, 0, B, ldb, 0, C, ldc, 0, 1, device);
}

void gemm_strided_batched(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                          const void* A, int64_t lda, int64_t stride_a, const void* B, int64_t ldb,
                          int64_t stride_b, void* C, int64_t ldc, int64_t stride_c, int64_t batch,
                          int device) {
  if (!cublas_supports(dt)) {
    throw TypeError(std::string("cuBLAS gemm: unsupported dtype ") + dtype_name(dt));
  }
  if (M <= 0 || N <= 0 || batch <= 0) return;
  const size_t es = itemsize(dt);
  if (K == 0) {
    zero_results(M, N, C, ldc, stride_c, batch, es, device);
    return;
  }
  const CublasApi& f = api();
  // Column-major view: C^T (N x M) = op(B)^T (N x K) * op(A)^T (K x M). A row-major matrix read
  // as column-major is its transpose, so B's storage is cuBLAS's first operand with B's own
  // transpose flag, and A's the second.
  const int m = as_int(N, "dimension"), n = as_int(M, "dimension"), k = as_int(K, "dimension");
  const int ta = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, tb = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int l1 = as_int(ldb, "leading dimension"), l2 = as_int(lda, "leading dimension");
  const int lc = as_int(ldc, "leading dimension");
  const Scalars sc;
  const void* alpha = sc.alpha(dt);
  const void* beta = sc.beta(dt);

  CublasState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  cublasHandle_t h = bound_handle(s, device);
  if (batch == 1) {
    switch (dt) {
      case DType::Float16:
        check_status(f.GemmEx(h, ta, tb, m, n, k, alpha, B, CUDA_R_16F, l1, A, CUDA_R_16F, l2, beta,
                              C, CUDA_R_16F, lc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
        return;
      case DType::Float32:
        check_status(f.Sgemm(h, ta, tb, m, n, k, alpha, B, l1, A, l2, beta, C, lc), "cublasSgemm_v2");
        return;
      case DType::Float64:
        check_status(f.Dgemm(h, ta, tb, m, n, k, alpha, B, l1, A, l2, beta, C, lc), "cublasDgemm_v2");
        return;
      case DType::Complex64:
        check_status(f.Cgemm(h, ta, tb, m, n, k, alpha, B, l1, A, l2, beta, C, lc), "cublasCgemm_v2");
        return;
      default:
        check_status(f.Zgemm(h, ta, tb, m, n, k, alpha, B, l1, A, l2, beta, C, lc), "cublasZgemm_v2");
        return;
    }
  }
  // cuBLAS counts the batch in an int: larger batches go in pieces.
  constexpr int64_t kMaxBatch = int64_t(1) << 30;
  for (int64_t first = 0; first < batch; first += kMaxBatch) {
    const int count = static_cast<int>(std::min(kMaxBatch, batch - first));
    const char* a = static_cast<const char*>(A) + first * stride_a * int64_t(es);
    const char* b = static_cast<const char*>(B) + first * stride_b * int64_t(es);
    char* c = static_cast<char*>(C) + first * stride_c * int64_t(es);
    switch (dt) {
      case DType::Float16:
        check_status(f.GemmBatchedEx(h, ta, tb, m, n, k, alpha, b, CUDA_R_16F, l1, stride_b, a,
                                     CUDA_R_16F, l2, stride_a, beta, c, CUDA_R_16F, lc, stride_c,
                                     count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmStridedBatchedEx");
        break;
      case DType::Float32:
        check_status(f.SgemmBatched(h, ta, tb, m, n, k, alpha, b, l1, stride_b, a, l2, stride_a,
                                    beta, c, lc, stride_c, count),
                     "cublasSgemmStridedBatched");
        break;
      case DType::Float64:
        check_status(f.DgemmBatched(h, ta, tb, m, n, k, alpha, b, l1, stride_b, a, l2, stride_a,
                                    beta, c, lc, stride_c, count),
                     "cublasDgemmStridedBatched");
        break;
      case DType::Complex64:
        check_status(f.CgemmBatched(h, ta, tb, m, n, k, alpha, b, l1, stride_b, a, l2, stride_a,
                                    beta, c, lc, stride_c, count),
                     "cublasCgemmStridedBatched");
        break;
      default:
        check_status(f.ZgemmBatched(h, ta, tb, m, n, k, alpha, b, l1, stride_b, a, l2, stride_a,
                                    beta, c, lc, stride_c, count),
                     "cublasZgemmStridedBatched");
        break;
    }
  }
}

}  // namespace nf::cuda
