// LAPACK from the library blas.cpp found (NumPy's bundled OpenBLAS carries it: scipy_dgetrf_64_,
// ILP64), one call table by dtype rather than per-dtype twins. Internal to backend/cpu:
// linalg_cpu.cpp calls it.
#pragma once
#include <cstdint>

#include "numfuse/core/dtype.h"

namespace nf::cpu {

using lapack_int = int64_t;  // the ILP64 library's integer; an LP64 one is refused (lapack_table)

// The routines of one dtype: s/d/c/z. orgqr is ungqr and syevd heevd for the complex dtypes; the
// complex gesdd, geev and heevd take a real rwork their real twins do not (linalg_cpu.cpp calls
// each with the signature of its dtype).
struct LapackTable {
  void* getrf = nullptr;
  void* getri = nullptr;
  void* getrs = nullptr;
  void* gesv = nullptr;
  void* potrf = nullptr;
  void* geqrf = nullptr;
  void* orgqr = nullptr;
  void* syevd = nullptr;
  void* gesdd = nullptr;
  void* geev = nullptr;
  void* gelsd = nullptr;
};

// The table of `dt` (float32, float64, complex64, complex128). Throws nf::Error naming what is
// missing when no BLAS library was found, it has no LAPACK, or its integers are 32-bit.
const LapackTable& lapack_table(DType dt);

}  // namespace nf::cpu
