// cuBLAS, opened with dlopen at first use (libcublas.so.13, .12 or unversioned; through CUDA_HOME,
// pip's nvidia-cublas, the system loader or /usr/local/cuda): one handle per device, bound to
// the stream numfuse enqueues on before every call. The products take ROW-MAJOR operands with the
// same contract as cpu::gemm (backend/cpu/blas.h); cuBLAS is column-major, so C = op(A) op(B) is
// computed as C^T = op(B)^T op(A)^T, which needs no copies: a row-major matrix is its transpose
// in column-major order.
//
// dtypes: float32, float64, complex64, complex128 through ?gemm / ?gemmStridedBatched; float16
// through cublasGemmEx with float32 compute (CuPy's default: float16 in and out, float32
// accumulation). Other dtypes are not cuBLAS's: see codegen_matmul.h.
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/core/dtype.h"

namespace nf::cuda {

// Whether cuBLAS loads (never throws).
bool cublas_available() noexcept;
// "cuBLAS 130000 at /path/libcublas.so.13", or why it could not be loaded.
std::string cublas_description();
// Whether cuBLAS computes products of dtype dt (float16, float32, float64, complex64, complex128).
bool cublas_supports(DType dt);

// C = op(A) * op(B) on cuda:`device`, enqueued on its current stream. All row-major with the
// contract of cpu::gemm: op(A) is M x K (A stored M x K, or K x M when trans_a, lda elements
// between stored rows), likewise B, and C is M x N with ldc. Pointers are device addresses.
// K == 0 writes zeros; M == 0 or N == 0 does nothing. Throws CUDAError naming the cuBLAS call and
// status (CUDAOutOfMemoryError for CUBLAS_STATUS_ALLOC_FAILED), NotImplementedError when a size
// or leading dimension exceeds cuBLAS's 32-bit int, TypeError for a dtype cuBLAS does not take.
void gemm(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
          int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc, int device);

// `batch` products; matrix i of A starts stride_a elements after matrix i-1 (likewise B, C). A
// stride of 0 for A or B broadcasts one matrix over the batch. Batches past 2^31 are split.
void gemm_strided_batched(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                          const void* A, int64_t lda, int64_t stride_a, const void* B, int64_t ldb,
                          int64_t stride_b, void* C, int64_t ldc, int64_t stride_c, int64_t batch,
                          int device);

// Batched LU (cublas?getrfBatched) of `batch` n x n column-major matrices (leading dimension lda)
// whose device addresses are in the device array `a_ptrs`; pivots (batch x n int32) and info
// codes (batch int32) written on the device. For stacks of small matrices (linalg_cuda.cpp).
void getrf_batched(DType dt, int n, void* const* a_ptrs, int lda, int* pivots, int* infos,
                   int batch, int device);
// op(A) X = B with getrf_batched's factors (cublas?getrsBatched), B column-major n x nrhs each
// (device addresses in b_ptrs), in place. Throws CUDAError when cuBLAS rejects an argument.
void getrs_batched(DType dt, bool trans, int n, int nrhs, void* const* a_ptrs, int lda,
                   const int* pivots, void* const* b_ptrs, int ldb, int batch, int device);

// "CUBLAS_STATUS_INVALID_VALUE" for a cublasStatus_t value (the library's own words when loaded).
std::string cublas_status_text(int status);
// Loads cuBLAS and makes the device's handle now, if neither happened yet (warmup.h). Failures
// are left for the first real call to report.
void warm_cublas(int device);

}  // namespace nf::cuda
