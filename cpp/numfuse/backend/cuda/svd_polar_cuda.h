// The SVD of one large real matrix through cusolverDnXgesvdp (a polar decomposition, QDWH, then
// an eigensolver): 311 ms against gesvd's 1947 ms for 4096^2 float64 on the H100, with singular
// values and factors as accurate as LAPACK's for well- and ill-conditioned matrices
// (bench/cusolver_probe.py). For a rank-deficient matrix it perturbs the matrix and says so
// (h_err_sigma > 0; singular values then off by 4e-10 for a 1024^2 matrix of rank 512): the
// caller computes that matrix again with gesvd. See docs/decisions.md "SVD on the GPU".
#pragma once
#include <cstdint>

#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/core/dtype.h"

namespace nf::cuda {

// True where polar_svd serves: float32/float64, at least kPolarSvdMinK on the short side
// (below it gesvd is as fast and exact for rank-deficient matrices), and the library has
// Xgesvdp.
constexpr int64_t kPolarSvdMinK = 256;
bool polar_svd_applies(DType dt, int64_t rows, int64_t cols);

// The SVD of the column-major rows x cols matrix at `a` (destroyed; rows >= cols): singular
// values into s, U (rows x ucols, ld rows) and V (cols x vcols, ld cols; V, not V^T),
// economy-sized when `econ`. Enqueued on the device's stream with the handle bound to
// it; waits for the call to end. Returns h_err_sigma: 0 when no perturbation was needed.
double polar_svd(cusolverDnHandle_t h, int device, DType dt, int64_t rows, int64_t cols, void* a,
                 void* s, void* u, void* v, bool econ, int* info);

}  // namespace nf::cuda
