// The level-1 and level-2 BLAS routines of the library blas.cpp found, for blas_level2.cpp.
// Internal to backend/cpu: callers use gemv() and dot() from blas.h.
#pragma once
#include <string>

namespace nf::cpu {

// CBLAS's argument values (cblas.h), shared by the gemm and the level-1/2 callers.
enum CblasOrder { kRowMajor = 101 };
enum CblasTrans { kNoTrans = 111, kTrans = 112 };

// Raw symbols of the BLAS in use, in the same flavour (prefix, suffix, integer width) as its
// ?gemm. Any pointer may be null: a library without them leaves those products to gemm.
struct BlasRoutines {
  bool ilp64 = false;  // integers are int64_t (else int32_t)
  void* sgemv = nullptr;
  void* dgemv = nullptr;
  void* cgemv = nullptr;
  void* zgemv = nullptr;
  void* sdot = nullptr;
  void* ddot = nullptr;
  void* cdotu_sub = nullptr;
  void* zdotu_sub = nullptr;
  // int get_num_threads(void) where the library has it (OpenBLAS): how many threads one call of
  // the library would use. gemv splits a large product over numfuse's pool only when it is 1.
  void* get_threads = nullptr;
  // The open library and how its LAPACK symbols are spelled (lapack.cpp resolves them):
  // NumPy's OpenBLAS has scipy_dgetrf_64_, a system OpenBLAS dgetrf_.
  void* handle = nullptr;
  std::string lapack_prefix;
  std::string lapack_suffix;
};

// The routines of the library in use; nullptr when no BLAS library was found (searches on first
// call, as blas_available() does).
const BlasRoutines* blas_routines();

// Whether one call of the library runs on one thread (OPENBLAS_NUM_THREADS=1, or
// set_blas_threads(1)): large gemm and gemv calls are then split over numfuse's own pool. A library
// running several threads is left to split a call itself: calling it from several threads at
// once makes its threads and ours fight for the cores (a 1000^2 float32 gemv took 66 us, not 34).
inline bool blas_single_threaded(const BlasRoutines& r) {
  return r.get_threads && reinterpret_cast<int (*)()>(r.get_threads)() == 1;
}

}  // namespace nf::cpu
