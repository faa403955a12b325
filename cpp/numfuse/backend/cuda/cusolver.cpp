#include "numfuse/backend/cuda/cusolver.h"

#include <array>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

using CreateFn = int (*)(cusolverDnHandle_t*);
using SetStreamFn = int (*)(cusolverDnHandle_t, CUstream);

struct SolverState {
  bool ok = false;
  std::string reason;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  int (*create_syevj_info)(syevjInfo_t*) = nullptr;  // optional
  syevjInfo_t syevj_params = nullptr;
  int (*create_gesvdj_info)(gesvdjInfo_t*) = nullptr;   // optional
  int (*gesvdj_set_sort)(gesvdjInfo_t, int) = nullptr;  // optional
  int (*create_params)(cusolverDnParams_t*) = nullptr;  // optional, for Xgeev
  XgeevApi xgeev = {};
  XgesvdpApi xgesvdp = {};
  std::string xgeev_missing;  // why Xgeev cannot be used ("" when it can)
  SolverTable tables[4] = {};  // S, D, C, Z
  std::mutex mutex;
  std::array<cusolverDnHandle_t, 64> handles{};
};

// Binds every routine of one dtype; false (with the reason) when the library lacks one.
bool bind_table(const LoadedLibrary& lib, char p, bool cplx, SolverTable* t, std::string* why) {
  auto name = [&](const char* routine) { return std::string("cusolverDn") + p + routine; };
  auto bind = [&](auto& fn, const char* routine) {
    const std::string n = name(routine);
    return lib.bind(fn, n.c_str(), why);
  };
  lib.bind_optional(t->potrfBatched, name("potrfBatched").c_str());
  const char* syevj = cplx ? "heevjBatched" : "syevjBatched";
  lib.bind_optional(t->syevjBatched, name(syevj).c_str());
  lib.bind_optional(t->syevjBatched_bufferSize,
                    (name(syevj) + "_bufferSize").c_str());
  lib.bind_optional(t->gesvdjBatched, name("gesvdjBatched").c_str());
  lib.bind_optional(t->gesvdjBatched_bufferSize, name("gesvdjBatched_bufferSize").c_str());
  const char* orgqr = cplx ? "ungqr" : "orgqr";
  const char* syevd = cplx ? "heevd" : "syevd";
  return bind(t->getrf_bufferSize, "getrf_bufferSize") && bind(t->getrf, "getrf") &&
         bind(t->getrs, "getrs") && bind(t->potrf_bufferSize, "potrf_bufferSize") &&
         bind(t->potrf, "potrf") && bind(t->geqrf_bufferSize, "geqrf_bufferSize") &&
         bind(t->geqrf, "geqrf") &&
         bind(t->orgqr_bufferSize, (std::string(orgqr) + "_bufferSize").c_str()) &&
         bind(t->orgqr, orgqr) &&
         bind(t->syevd_bufferSize, (std::string(syevd) + "_bufferSize").c_str()) &&
         bind(t->syevd, syevd) && bind(t->gesvd_bufferSize, "gesvd_bufferSize") &&
         bind(t->gesvd, "gesvd");
}

// cuSOLVER's calls into s (false, with s.reason, when one is missing).
bool bind_cusolver(const LoadedLibrary& lib, SolverState& s) {
  if (!lib.bind(s.create, "cusolverDnCreate", &s.reason)) return false;
  if (!lib.bind(s.set_stream, "cusolverDnSetStream", &s.reason)) return false;
  lib.bind_optional(s.create_syevj_info, "cusolverDnCreateSyevjInfo");
  lib.bind_optional(s.create_params, "cusolverDnCreateParams");
  lib.bind_optional(s.create_gesvdj_info, "cusolverDnCreateGesvdjInfo");
  lib.bind_optional(s.gesvdj_set_sort, "cusolverDnXgesvdjSetSortEig");
  lib.bind_optional(s.xgeev.bufferSize, "cusolverDnXgeev_bufferSize");
  lib.bind_optional(s.xgeev.geev, "cusolverDnXgeev");
  lib.bind_optional(s.xgesvdp.bufferSize, "cusolverDnXgesvdp_bufferSize");
  lib.bind_optional(s.xgesvdp.gesvdp, "cusolverDnXgesvdp");
  if (!s.create_params || !s.xgeev.bufferSize || !s.xgeev.geev) {
    s.xgeev_missing = "cuSOLVER at " + lib.path() +
                       " lacks cusolverDnXgeev (it needs the cuSOLVER of CUDA 12.6 or later)";
  }
  const char prefixes[4] = {'S', 'D', 'C', 'Z'};
  for (int i = 0; i < 4; ++i) {
    if (!bind_table(lib, prefixes[i], i >= 2, &s.tables[i], &s.reason)) return false;
  }
  return true;
}

SolverState& state() {  // lives until exit: handles are never destroyed
  return bound_library<SolverState>(CudaLibrary::Cusolver, bind_cusolver);
}

}  // namespace

const SolverTable& solver_table(DType dt) {
  SolverState& s = state();
  if (!s.ok) throw CUDAError(s.reason);
  switch (dt) {
    case DType::Float32: return s.tables[0];
    case DType::Float64: return s.tables[1];
    case DType::Complex64: return s.tables[2];
    case DType::Complex128: return s.tables[3];
    default: throw TypeError(std::string("array type ") + dtype_name(dt) + " is unsupported in linalg");
  }
}

namespace {

// The 64-bit API's parameter object, made once and shared by Xgeev and Xgesvdp (nullptr where
// the library cannot make it); never destroyed.
cusolverDnParams_t x_params(SolverState& s) {
  static cusolverDnParams_t params = nullptr;
  static std::once_flag once;
  std::call_once(once, [&s] {
    if (s.ok && s.create_params && s.create_params(&params) != 0) params = nullptr;
  });
  return params;
}

}  // namespace

const XgeevApi* xgeev_api(std::string* why) {
  SolverState& s = state();
  static std::once_flag once;
  std::call_once(once, [&s] {
    if (s.ok && s.xgeev_missing.empty() && !(s.xgeev.params = x_params(s))) {
      s.xgeev_missing = "cusolverDnCreateParams failed";
    }
  });
  if (!s.ok) {
    if (why) *why = s.reason;
    return nullptr;
  }
  if (!s.xgeev_missing.empty()) {
    if (why) *why = s.xgeev_missing;
    return nullptr;
  }
  return &s.xgeev;
}

const XgesvdpApi* xgesvdp_api() {
  SolverState& s = state();
  static std::once_flag once;
  std::call_once(once, [&s] {
    if (s.ok && s.xgesvdp.bufferSize && s.xgesvdp.gesvdp) s.xgesvdp.params = x_params(s);
  });
  return s.xgesvdp.params ? &s.xgesvdp : nullptr;
}

syevjInfo_t syevj_params() {
  SolverState& s = state();
  static std::once_flag once;
  std::call_once(once, [&s] {
    // Never destroyed: one small object, used until exit.
    if (s.ok && s.create_syevj_info && s.create_syevj_info(&s.syevj_params) != 0) {
      s.syevj_params = nullptr;
    }
  });
  return s.syevj_params;
}

gesvdjInfo_t gesvdj_params() {
  SolverState& s = state();
  static gesvdjInfo_t params = nullptr;
  static std::once_flag once;
  std::call_once(once, [&s] {
    // Never destroyed: one small object, used until exit. Sorted explicitly (the default is
    // sorted too, but NumPy's order is the contract).
    if (!s.ok || !s.create_gesvdj_info || !s.gesvdj_set_sort) return;
    if (s.create_gesvdj_info(&params) != 0 || s.gesvdj_set_sort(params, 1) != 0) params = nullptr;
  });
  return params;
}

void check_solver(int status, const char* call) {
  if (status == 0) return;
  static const char* const kNames[] = {
      "CUSOLVER_STATUS_SUCCESS",       "CUSOLVER_STATUS_NOT_INITIALIZED",
      "CUSOLVER_STATUS_ALLOC_FAILED",  "CUSOLVER_STATUS_INVALID_VALUE",
      "CUSOLVER_STATUS_ARCH_MISMATCH", "CUSOLVER_STATUS_MAPPING_ERROR",
      "CUSOLVER_STATUS_EXECUTION_FAILED", "CUSOLVER_STATUS_INTERNAL_ERROR",
      "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSOLVER_STATUS_NOT_SUPPORTED"};
  const std::string text = status > 0 && status < 10 ? kNames[status]
                                                     : "CUSOLVER_STATUS_" + std::to_string(status);
  const std::string msg = std::string(call) + " failed: " + text;
  if (status == 2) throw CUDAOutOfMemoryError(msg);
  throw CUDAError(msg);
}

void warm_cusolver(int device) {
  SolverState& s = state();
  if (!s.ok || device < 0 || device >= int(s.handles.size())) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.handles[device]) return;
  activate(device);
  cusolverDnHandle_t h = nullptr;
  if (s.create(&h) == 0) s.handles[device] = h;  // else the first real call reports it
}

BoundSolver bound_solver(int device) {
  SolverState& s = state();
  if (!s.ok) throw CUDAError(s.reason);
  if (device < 0 || device >= int(s.handles.size())) {
    throw CUDAError("cuSOLVER: device " + std::to_string(device) + " is out of range");
  }
  std::unique_lock<std::mutex> lock(s.mutex);
  Stream stream = enqueue_stream(device);  // activates the device's context
  cusolverDnHandle_t& h = s.handles[device];
  if (!h) check_solver(s.create(&h), "cusolverDnCreate");
  check_solver(s.set_stream(h, stream.handle()), "cusolverDnSetStream");
  return BoundSolver{std::move(lock), h};
}

}  // namespace nf::cuda
