// The few cuBLAS types, values and signatures numfuse calls, declared here so that the build
// needs no CUDA headers (the library is opened with dlopen). Values mirror cublas_api.h and
// library_types.h (stable since cuBLAS 11); cpp/tests/test_cublas_codegen.cpp checks values and
// signatures against the toolkit's headers when they are present at build time.
#pragma once
#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda::cublas_abi {

struct cublasContext;
using cublasHandle_t = cublasContext*;
using cublasStatus_t = int;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr cublasStatus_t CUBLAS_STATUS_ALLOC_FAILED = 3;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
constexpr int CUDA_R_16F = 2;
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_GEMM_DEFAULT = -1;

// The typed gemms take typed pointers (float*, cuComplex* ...); as C functions they are called
// through void pointers. Enums are passed as int.
using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, CUstream);
using GetVersionFn = cublasStatus_t (*)(cublasHandle_t, int*);
using GemmFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*,
                                  int, const void*, int, const void*, void*, int);
using GemmBatchedFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*,
                                         const void*, int, long long, const void*, int, long long,
                                         const void*, void*, int, long long, int);
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*,
                                    const void*, int, int, const void*, int, int, const void*,
                                    void*, int, int, int, int);
using GemmBatchedExFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*,
                                           const void*, int, int, long long, const void*, int, int,
                                           long long, const void*, void*, int, int, long long, int,
                                           int, int);
using StatusTextFn = const char* (*)(cublasStatus_t);

// X(member, symbol, type): the calls every dtype needs. The products are resolved from the dtype
// table in cublas.cpp (kGemmTable).
#define NF_CUBLAS_CALLS(X)                        \
  X(Create, "cublasCreate_v2", CreateFn)          \
  X(SetStream, "cublasSetStream_v2", SetStreamFn) \
  X(GetVersion, "cublasGetVersion_v2", GetVersionFn)

}  // namespace nf::cuda::cublas_abi
