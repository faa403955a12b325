// cuSOLVER's dense routines (cusolverDn), opened with dlopen at first use through the shared
// loader (library_loader.h): one call table by dtype (S/D/C/Z; orgqr is ungqr and syevd heevd
// for the complex dtypes), one handle per device bound to the stream numfuse enqueues on.
// Matrices are column-major, as LAPACK's; linalg_cuda.cpp arranges the layouts.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include "numfuse/core/dtype.h"

namespace nf::cuda {

struct cusolverDnContext;
using cusolverDnHandle_t = cusolverDnContext*;
struct syevjInfo;
using syevjInfo_t = syevjInfo*;
struct gesvdjInfo;
using gesvdjInfo_t = gesvdjInfo*;
struct cusolverDnParams;
using cusolverDnParams_t = cusolverDnParams*;

// cuSOLVER's and cuBLAS's enum values (cusolver_common.h, cublas_api.h), passed as int.
constexpr int kCublasFillLower = 0, kCublasFillUpper = 1;
constexpr int kCublasOpN = 0, kCublasOpT = 1;
constexpr int kEigModeNoVector = 0, kEigModeVector = 1;

// The routines of one dtype. Every pointer argument is a device address; sizes are int (the
// 32-bit API).
struct SolverTable {
  using Handle = cusolverDnHandle_t;
  int (*getrf_bufferSize)(Handle, int m, int n, void* A, int lda, int* lwork);
  int (*getrf)(Handle, int m, int n, void* A, int lda, void* work, int* ipiv, int* info);
  int (*getrs)(Handle, int trans, int n, int nrhs, const void* A, int lda, const int* ipiv,
               void* B, int ldb, int* info);
  int (*potrf_bufferSize)(Handle, int uplo, int n, void* A, int lda, int* lwork);
  int (*potrf)(Handle, int uplo, int n, void* A, int lda, void* work, int lwork, int* info);
  int (*geqrf_bufferSize)(Handle, int m, int n, void* A, int lda, int* lwork);
  int (*geqrf)(Handle, int m, int n, void* A, int lda, void* tau, void* work, int lwork,
               int* info);
  int (*orgqr_bufferSize)(Handle, int m, int n, int k, const void* A, int lda, const void* tau,
                          int* lwork);
  int (*orgqr)(Handle, int m, int n, int k, void* A, int lda, const void* tau, void* work,
               int lwork, int* info);
  int (*syevd_bufferSize)(Handle, int jobz, int uplo, int n, const void* A, int lda,
                          const void* W, int* lwork);
  int (*syevd)(Handle, int jobz, int uplo, int n, void* A, int lda, void* W, void* work,
               int lwork, int* info);
  // potrf of `batch` matrices whose device addresses are in the device array A (optional: null
  // where the library lacks it).
  int (*potrfBatched)(Handle, int uplo, int n, void* const* A, int lda, int* info, int batch);
  // Jacobi eigensolver of a stack of matrices up to 32 wide (heevjBatched for complex), with
  // the parameters of syevj_params(); optional (null where the library lacks them).
  int (*syevjBatched_bufferSize)(Handle, int jobz, int uplo, int n, const void* A, int lda,
                                 const void* W, int* lwork, syevjInfo_t params, int batch);
  int (*syevjBatched)(Handle, int jobz, int uplo, int n, void* A, int lda, void* W, void* work,
                      int lwork, int* info, syevjInfo_t params, int batch);
  // Jacobi SVD of a stack of matrices up to 32 x 32, full U and V (not V^H), with the parameters
  // of gesvdj_params(); optional (null where the library lacks them).
  int (*gesvdjBatched_bufferSize)(Handle, int jobz, int m, int n, const void* A, int lda,
                                  const void* S, const void* U, int ldu, const void* V, int ldv,
                                  int* lwork, gesvdjInfo_t params, int batch);
  int (*gesvdjBatched)(Handle, int jobz, int m, int n, void* A, int lda, void* S, void* U, int ldu,
                       void* V, int ldv, void* work, int lwork, int* info, gesvdjInfo_t params,
                       int batch);
  int (*gesvd_bufferSize)(Handle, int m, int n, int* lwork);
  int (*gesvd)(Handle, signed char jobu, signed char jobvt, int m, int n, void* A, int lda,
               void* S, void* U, int ldu, void* VT, int ldvt, void* work, int lwork, void* rwork,
               int* info);
};

// The table of dt (float32/64, complex64/128). Throws CUDAError naming the library and why when
// cuSOLVER cannot be loaded or lacks a routine, TypeError for another dtype.
const SolverTable& solver_table(DType dt);

// The device's handle bound to its current enqueue stream, with the lock that keeps that binding
// for the calls that follow (hold it while calling).
struct BoundSolver {
  std::unique_lock<std::mutex> lock;
  cusolverDnHandle_t handle;
};
BoundSolver bound_solver(int device);
// Loads cuSOLVER and makes the device's handle now, if neither happened yet (warmup.h). Failures
// are left for the first real call to report.
void warm_cusolver(int device);

// cusolverDnXgeev (the 64-bit API, cuSOLVER of CUDA 12.6 and later): eigenvalues and right
// eigenvectors of a general matrix, with dtypes given as cudaDataType values.
constexpr int kCudaR32F = 0, kCudaR64F = 1, kCudaC32F = 4, kCudaC64F = 5;
struct XgeevApi {
  cusolverDnParams_t params;  // made once, default options
  int (*bufferSize)(cusolverDnHandle_t, cusolverDnParams_t, int jobvl, int jobvr, int64_t n,
                    int typeA, const void* A, int64_t lda, int typeW, const void* W, int typeVL,
                    const void* VL, int64_t ldvl, int typeVR, const void* VR, int64_t ldvr,
                    int computeType, size_t* device_bytes, size_t* host_bytes);
  int (*geev)(cusolverDnHandle_t, cusolverDnParams_t, int jobvl, int jobvr, int64_t n, int typeA,
              void* A, int64_t lda, int typeW, void* W, int typeVL, void* VL, int64_t ldvl,
              int typeVR, void* VR, int64_t ldvr, int computeType, void* device_work,
              size_t device_bytes, void* host_work, size_t host_bytes, int* info);
};
// The Xgeev calls, or nullptr (with *why saying what is missing) where the library lacks them.
const XgeevApi* xgeev_api(std::string* why);

// cusolverDnXgesvdp (the 64-bit API, cuSOLVER of CUDA 11.1 and later): the SVD through a polar
// decomposition (QDWH) and an eigensolver, 6x faster than gesvd for 4096^2 float64 on the H100
// (311 vs 1947 ms, bench/cusolver_probe.py). U is m x m (econ 0) or m x min(m, n), V (not V^H)
// n x n or n x min(m, n); *h_err_sigma reports the perturbation the polar step needed.
struct XgesvdpApi {
  cusolverDnParams_t params;  // made once, default options (shared with Xgeev's)
  int (*bufferSize)(cusolverDnHandle_t, cusolverDnParams_t, int jobz, int econ, int64_t m,
                    int64_t n, int typeA, const void* A, int64_t lda, int typeS, const void* S,
                    int typeU, const void* U, int64_t ldu, int typeV, const void* V, int64_t ldv,
                    int computeType, size_t* device_bytes, size_t* host_bytes);
  int (*gesvdp)(cusolverDnHandle_t, cusolverDnParams_t, int jobz, int econ, int64_t m, int64_t n,
                int typeA, void* A, int64_t lda, int typeS, void* S, int typeU, void* U,
                int64_t ldu, int typeV, void* V, int64_t ldv, int computeType, void* device_work,
                size_t device_bytes, void* host_work, size_t host_bytes, int* info,
                double* h_err_sigma);
};
// The Xgesvdp calls, or nullptr where the library lacks them.
const XgesvdpApi* xgesvdp_api();

// syevjBatched's parameters (the library's defaults: eigenvalues sorted ascending, tolerance of
// the machine precision), made once per process; nullptr where the library cannot make them.
syevjInfo_t syevj_params();

// gesvdjBatched's parameters (singular values sorted descending, as LAPACK's; tolerance of the
// machine precision), made once per process; nullptr where the library cannot make them.
gesvdjInfo_t gesvdj_params();

// Throws CUDAError "<call> failed: CUSOLVER_STATUS_..." unless status is 0 (CUDAOutOfMemoryError
// for an allocation failure).
void check_solver(int status, const char* call);

}  // namespace nf::cuda
