// Matrix products for the CPU backend: BLAS found at run time, and a built-in loop for the rest.
//
// No link-time dependency on any BLAS. At first use the library is looked for, in this order:
//   1. the path given by blas_set_library_path() (the Python layer passes NumPy's copy), or the
//      NUMFUSE_BLAS_LIBRARY environment variable (the value `none` turns BLAS off);
//   2. a BLAS already loaded into the process (found with dl_iterate_phdr): NumPy >= 2 wheels load
//      numpy.libs/libscipy_openblas64_-<hash>.so, whose symbols are scipy_cblas_dgemm64_ etc.
//      with 64-bit integers;
//   3. the system's libopenblas.so.0, libopenblas64_.so.0, libopenblas.so, libcblas.so.3,
//      libblas.so.3 (Debian's libblas.so.3 carries the cblas_* symbols and may be OpenBLAS).
// In 2 and 3 only a tuned BLAS (OpenBLAS, BLIS, MKL, FlexiBLAS, ATLAS) is taken: the reference
// netlib BLAS is slower than the built-in loop, and is used only when named in 1.
// Symbol flavours understood: scipy_cblas_?gemm64_ (ILP64), scipy_cblas_?gemm (LP64),
// cblas_?gemm64_ (ILP64), cblas_?gemm (LP64, or ILP64 when openblas_get_config() says
// USE64BITINT).
//
// float32, float64, complex64 and complex128 go through BLAS; every other dtype, and any call BLAS
// cannot take (no library, leading dimensions it rejects, sizes past a 32-bit BLAS), goes through
// a cache-blocked C++ loop that computes each element exactly as NumPy's own matmul loop does:
// float16 accumulates in float32 in ascending k and rounds once, integers wrap, bool is an OR of
// ANDs. So gemm never fails for want of a library; the first time a BLAS dtype falls back for that
// reason, the fallback hook is called once (by default it prints one line to stderr).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "numfuse/core/dtype.h"

namespace nf::cpu {

// Whether a BLAS library was found (triggers the search on first call).
bool blas_available();
// A one-line description of the library in use ("OpenBLAS ... (ILP64) at /path") or of its absence.
std::string blas_description();
// Throws nf::Error, naming the places searched, when no BLAS library was found.
void blas_require();
// Use the library at `path` from now on (dlopen'ed; if it is already loaded, that copy).
// Throws nf::Error if it cannot be opened or has no ?gemm symbols; the previous choice stays then.
void blas_set_library_path(const std::string& path);
// Number of threads for BLAS (openblas_set_num_threads where the library has it) and for the
// built-in loop. n <= 0 restores the default (the built-in loop then uses all hardware threads).
void set_blas_threads(int n);
int blas_threads();
// Called once, with a message, the first time a float/complex product runs without BLAS because
// none was found. Replaces the default (one line on stderr); pass nullptr to silence it.
void set_blas_fallback_hook(std::function<void(const std::string&)> hook);

// C = op(A) * op(B) (alpha = 1, beta = 0), all row-major. op(A) is M x K and op(B) is K x N;
// A is stored M x K (trans_a false) or K x M (trans_a true) with lda elements between its stored
// rows; likewise B (K x N or N x K, ldb) and C (M x N, ldc). Elements are of dtype dt for A, B
// and C alike. K == 0 writes zeros; M == 0 or N == 0 writes nothing.
void gemm(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
          int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc);

// `batch` products; matrix b of A starts stride_a elements after matrix b-1's (likewise B, C).
// A stride of 0 broadcasts one matrix over the batch (not allowed for C).
void gemm_strided_batched(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                          const void* A, int64_t lda, int64_t stride_a, const void* B, int64_t ldb,
                          int64_t stride_b, void* C, int64_t ldc, int64_t stride_c, int64_t batch);

// The built-in loop alone, whatever the dtype (tests and benchmarks compare it with BLAS).
void gemm_builtin(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                  const void* A, int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc);

// y = op(A) x through BLAS ?gemv (alpha = 1, beta = 0). A is row-major, stored rows x cols with
// lda elements between its stored rows; op(A) is A (y has rows elements, x cols) or, with trans,
// A^T (y has cols, x rows). Increments follow BLAS: a negative one walks the vector backwards from
// the pointer given, which is the element at the LOWEST address. K (the length of x) == 0 writes
// zeros. Returns false, writing nothing, when BLAS cannot take the call (no library or no ?gemv
// symbol, a dtype other than float32/64 and complex64/128, a zero increment, lda too small, sizes
// past a 32-bit BLAS): the caller then uses gemm.
bool gemv(DType dt, bool trans, int64_t rows, int64_t cols, const void* A, int64_t lda,
          const void* x, int64_t incx, void* y, int64_t incy);

// *out = sum_i x[i] * y[i] (no conjugation) through BLAS ?dot / ?dotu_sub, increments as in gemv.
// n == 0 writes zero. Returns false, writing nothing, when BLAS cannot take the call.
bool dot(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out);

}  // namespace nf::cpu
