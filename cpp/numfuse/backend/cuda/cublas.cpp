#include "numfuse/backend/cuda/cublas.h"

#include <algorithm>
#include <array>
#include <climits>
#include <complex>
#include <mutex>

#include "numfuse/backend/cuda/cublas_abi.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

using namespace cublas_abi;

// One row per dtype cuBLAS multiplies: the routines for one product and for a strided batch,
// and how they are called. Typed routines (?gemm) take the operands' own type; float16 goes
// through the Ex routines with float32 compute (CuPy's default: float16 in and out, float32
// accumulation).
struct GemmRow {
  DType dtype;
  const char* gemm;     // C = op(A) op(B)
  const char* batched;  // its strided-batched form
  int ex_type;          // the Ex routines' cudaDataType; -1 for the typed routines
  bool wide_scalars;  // alpha and beta in double precision (else float: float16 computes in float)
};
constexpr GemmRow kGemmTable[] = {
    {DType::Float16, "cublasGemmEx", "cublasGemmStridedBatchedEx", CUDA_R_16F, false},
    {DType::Float32, "cublasSgemm_v2", "cublasSgemmStridedBatched", -1, false},
    {DType::Float64, "cublasDgemm_v2", "cublasDgemmStridedBatched", -1, true},
    {DType::Complex64, "cublasCgemm_v2", "cublasCgemmStridedBatched", -1, false},
    {DType::Complex128, "cublasZgemm_v2", "cublasZgemmStridedBatched", -1, true},
};
constexpr size_t kGemmRows = sizeof(kGemmTable) / sizeof(kGemmTable[0]);

// The row of dt; nullptr when cuBLAS does not multiply dt.
const GemmRow* gemm_row(DType dt) {
  for (const GemmRow& r : kGemmTable)
    if (r.dtype == dt) return &r;
  return nullptr;
}

struct CublasApi {
#define NF_CUBLAS_MEMBER(member, symbol, type) type member = nullptr;
  NF_CUBLAS_CALLS(NF_CUBLAS_MEMBER)
#undef NF_CUBLAS_MEMBER
  // Per row of kGemmTable: the product routines (a GemmFn / GemmBatchedFn, or the Ex forms).
  void* gemm[kGemmRows] = {};
  void* batched[kGemmRows] = {};
  // Per dtype S, D, C, Z: the batched LU routines (optional: only linalg needs them).
  void* getrf_batched[4] = {};
  void* getrs_batched[4] = {};
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

// cuBLAS's calls into s (false, with s.reason, when one is missing).
bool bind_cublas(const LoadedLibrary& lib, CublasState& s) {
  s.api.path = lib.path();
#define NF_CUBLAS_LOAD(member, symbol, type) \
  if (!lib.bind(s.api.member, symbol, &s.reason)) return false;
  NF_CUBLAS_CALLS(NF_CUBLAS_LOAD)
#undef NF_CUBLAS_LOAD
  for (size_t i = 0; i < kGemmRows; ++i) {
    if (!lib.bind(s.api.gemm[i], kGemmTable[i].gemm, &s.reason)) return false;
    if (!lib.bind(s.api.batched[i], kGemmTable[i].batched, &s.reason)) return false;
  }
  const char* const kLu[4][2] = {{"cublasSgetrfBatched", "cublasSgetrsBatched"},
                                 {"cublasDgetrfBatched", "cublasDgetrsBatched"},
                                 {"cublasCgetrfBatched", "cublasCgetrsBatched"},
                                 {"cublasZgetrfBatched", "cublasZgetrsBatched"}};
  for (int i = 0; i < 4; ++i) {
    lib.bind_optional(s.api.getrf_batched[i], kLu[i][0]);
    lib.bind_optional(s.api.getrs_batched[i], kLu[i][1]);
  }
  lib.bind_optional(s.api.GetStatusName, "cublasGetStatusName");
  lib.bind_optional(s.api.GetStatusString, "cublasGetStatusString");
  return true;
}

CublasState& state() {  // lives until exit: handles are never destroyed
  return bound_library<CublasState>(CudaLibrary::Cublas, bind_cublas);
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

}  // namespace

void warm_cublas(int device) {
  CublasState& s = state();
  if (!s.ok) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (device < 0 || device >= int(s.handles.size()) || s.handles[device]) return;
  activate(device);
  cublasHandle_t h = nullptr;
  if (s.api.Create(&h) != CUBLAS_STATUS_SUCCESS) return;  // the first real call reports it
  s.handles[device] = h;
  if (!s.version) s.api.GetVersion(h, &s.version);
}

namespace {

int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX) {
    throw NotImplementedError(std::string("cuBLAS matmul: ") + what + " " + std::to_string(v) +
                              " does not fit cuBLAS's 32-bit int");
  }
  return static_cast<int>(v);
}

// alpha = 1 and beta = 0 in the scalar type a row's routines expect, as host memory (the
// handle's default pointer mode). Complex zeros: the imaginary half is read only for complex.
struct Scalars {
  std::complex<double> one{1.0, 0.0}, zero{0.0, 0.0};
  std::complex<float> one_f{1.0f, 0.0f}, zero_f{0.0f, 0.0f};
  const void* alpha(const GemmRow& r) const {
    return r.wide_scalars ? static_cast<const void*>(&one) : static_cast<const void*>(&one_f);
  }
  const void* beta(const GemmRow& r) const {
    return r.wide_scalars ? static_cast<const void*>(&zero) : static_cast<const void*>(&zero_f);
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

// The index of dt's batched LU routines (S, D, C, Z), or the TypeError.
int lu_index(DType dt) {
  switch (dt) {
    case DType::Float32: return 0;
    case DType::Float64: return 1;
    case DType::Complex64: return 2;
    case DType::Complex128: return 3;
    default: throw TypeError(std::string("cuBLAS batched LU: unsupported dtype ") + dtype_name(dt));
  }
}

void* lu_routine(void* const* table, DType dt, const char* what) {
  void* f = table[lu_index(dt)];
  if (!f) throw CUDAError(std::string("cuBLAS at ") + state().api.path + " lacks " + what);
  return f;
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

bool cublas_supports(DType dt) { return gemm_row(dt) != nullptr; }

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
  const GemmRow* row_of_dt = gemm_row(dt);
  if (!row_of_dt) throw TypeError(std::string("cuBLAS gemm: unsupported dtype ") + dtype_name(dt));
  const GemmRow& r = *row_of_dt;
  const size_t row = static_cast<size_t>(row_of_dt - kGemmTable);
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
  const void* alpha = sc.alpha(r);
  const void* beta = sc.beta(r);
  const int ex = r.ex_type;

  CublasState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  cublasHandle_t h = bound_handle(s, device);
  if (batch == 1) {
    const cublasStatus_t st = ex < 0 ? reinterpret_cast<GemmFn>(f.gemm[row])(
                                           h, ta, tb, m, n, k, alpha, B, l1, A, l2, beta, C, lc)
                                     : reinterpret_cast<GemmExFn>(f.gemm[row])(
                                           h, ta, tb, m, n, k, alpha, B, ex, l1, A, ex, l2, beta, C,
                                           ex, lc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    check_status(st, r.gemm);
    return;
  }
  // cuBLAS counts the batch in an int: larger batches go in pieces.
  constexpr int64_t kMaxBatch = int64_t(1) << 30;
  for (int64_t first = 0; first < batch; first += kMaxBatch) {
    const int count = static_cast<int>(std::min(kMaxBatch, batch - first));
    const char* a = static_cast<const char*>(A) + first * stride_a * int64_t(es);
    const char* b = static_cast<const char*>(B) + first * stride_b * int64_t(es);
    char* c = static_cast<char*>(C) + first * stride_c * int64_t(es);
    const cublasStatus_t st =
        ex < 0 ? reinterpret_cast<GemmBatchedFn>(f.batched[row])(h, ta, tb, m, n, k, alpha, b, l1,
                                                                 stride_b, a, l2, stride_a, beta, c,
                                                                 lc, stride_c, count)
               : reinterpret_cast<GemmBatchedExFn>(f.batched[row])(
                     h, ta, tb, m, n, k, alpha, b, ex, l1, stride_b, a, ex, l2, stride_a, beta, c,
                     ex, lc, stride_c, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    check_status(st, r.batched);
  }
}

void getrf_batched(DType dt, int n, void* const* a_ptrs, int lda, int* pivots, int* infos,
                   int batch, int device) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, int, void* const*, int, int*, int*, int);
  const CublasApi& f = api();
  auto fn = reinterpret_cast<Fn>(lu_routine(f.getrf_batched, dt, "cublas?getrfBatched"));
  CublasState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  check_status(fn(bound_handle(s, device), n, a_ptrs, lda, pivots, infos, batch),
               "cublas?getrfBatched");
}

void getrs_batched(DType dt, bool trans, int n, int nrhs, void* const* a_ptrs, int lda,
                   const int* pivots, void* const* b_ptrs, int ldb, int batch, int device) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, int, int, int, void* const*, int, const int*,
                                void* const*, int, int*, int);
  const CublasApi& f = api();
  auto fn = reinterpret_cast<Fn>(lu_routine(f.getrs_batched, dt, "cublas?getrsBatched"));
  CublasState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int info = 0;  // a host address: getrsBatched reports only bad arguments
  check_status(fn(bound_handle(s, device), trans ? CUBLAS_OP_T : CUBLAS_OP_N, n, nrhs, a_ptrs,
                  lda, pivots, b_ptrs, ldb, &info, batch),
               "cublas?getrsBatched");
  if (info != 0) {
    throw CUDAError("cublas?getrsBatched rejected argument " + std::to_string(-info));
  }
}

}  // namespace nf::cuda
