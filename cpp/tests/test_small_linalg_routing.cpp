// Which calls run the small-matrix kernels (small_linalg_cuda.h's small_linalg_route): a loaded
// kernel always, a fast-compiling one and a large stack's kernel at the call (compiled there), and
// a small call of a slow-compiling kernel never waits for NVRTC: cuSOLVER takes it while the
// kernel compiles in the background, asked for once from a loop's kSmallLinalgAskLimit-th call.
// No GPU is needed: this is the routing decision alone.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/small_linalg_cuda.h"

using namespace nf;
using nf::cuda::small_linalg_compiles_fast;
using nf::cuda::small_linalg_route;
using Route = nf::cuda::SmallLinalgRoute;

namespace {
cuda::SmallLinalgVariant variant(LinalgOp op, DType dt, int N, int64_t exact_n = 0) {
  return cuda::SmallLinalgVariant{op, dt, dt, N, exact_n, 0, 0};
}
}  // namespace

TEST(SmallLinalgRouting, FastCompilesAreTheRealSmallOnes) {
  EXPECT_TRUE(small_linalg_compiles_fast(LinalgOp::Inv, DType::Float64, 8));
  EXPECT_TRUE(small_linalg_compiles_fast(LinalgOp::Det, DType::Float32, 8));
  EXPECT_TRUE(small_linalg_compiles_fast(LinalgOp::Eigh, DType::Float32, 4));
  EXPECT_FALSE(small_linalg_compiles_fast(LinalgOp::Eigh, DType::Float64, 8));    // 1.8 s measured
  EXPECT_FALSE(small_linalg_compiles_fast(LinalgOp::Solve, DType::Float32, 16));  // 1.6 s
  EXPECT_FALSE(small_linalg_compiles_fast(LinalgOp::Cholesky, DType::Complex64, 2));
}

TEST(SmallLinalgRouting, ALoadedKernelAndALargeStackRunTheKernel) {
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Inv, DType::Float64, 4), 1, true), Route::Kernel);
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Slogdet, DType::Float32, 16), cuda::kSmallLinalgCompileBatch, false),
            Route::Kernel);
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Slogdet, DType::Float32, 16), cuda::kSmallLinalgCompileBatch - 1, false),
            Route::Solver);
}

TEST(SmallLinalgRouting, AFastKernelRunsFromItsFirstSmallCall) {
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Inv, DType::Float32, 4), 1, false), Route::Kernel);
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Eigvalsh, DType::Float64, 4, 4), 1, false), Route::Kernel);
}

TEST(SmallLinalgRouting, ASlowKernelIsCompiledInTheBackgroundForALoopOfSmallCalls) {
  int asked_at = -1, background = 0;
  const auto v = variant(LinalgOp::Eigh, DType::Complex64, 8);
  for (int i = 1; i <= 3 * cuda::kSmallLinalgAskLimit; ++i) {
    const Route r = small_linalg_route(v, 5, false);
    EXPECT_NE(r, Route::Kernel);  // never loaded here: every small call stays on cuSOLVER
    if (r == Route::SolverCompileBackground) {
      ++background;
      asked_at = i;
    }
  }
  EXPECT_EQ(background, 1);
  EXPECT_EQ(asked_at, cuda::kSmallLinalgAskLimit);
  // A large stack compiles at the call; another dtype, size or operation keeps its own count.
  EXPECT_EQ(small_linalg_route(v, cuda::kSmallLinalgCompileBatch, false), Route::Kernel);
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Eigh, DType::Complex128, 4), 5, false), Route::Solver);
  EXPECT_EQ(small_linalg_route(variant(LinalgOp::Cholesky, DType::Complex64, 8), 5, false), Route::Solver);
}
