// Which calls run the small-matrix kernels (small_linalg_cuda.h's small_linalg_route): the kernels
// that compile fast always, the slow ones for a large stack or once compiled; a loop of small
// calls asks once for a background compile and stays on cuSOLVER until it is done.
// No GPU is needed: this is the routing decision alone.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/small_linalg_cuda.h"

using namespace nf;
using nf::cuda::small_linalg_compiles_fast;
using nf::cuda::small_linalg_route;
using Route = nf::cuda::SmallLinalgRoute;

namespace {
bool small_linalg_now(LinalgOp op, DType dt, int N, int64_t batch) {
  return small_linalg_route(op, dt, N, batch) == Route::Kernel;
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

TEST(SmallLinalgRouting, OneMatrixOfAFastKernelRunsTheKernel) {
  EXPECT_TRUE(small_linalg_now(LinalgOp::Inv, DType::Float64, 4, 1));
  EXPECT_TRUE(small_linalg_now(LinalgOp::Eigvalsh, DType::Float32, 2, 1));
}

TEST(SmallLinalgRouting, SlowKernelsWaitForAStack) {
  EXPECT_FALSE(small_linalg_now(LinalgOp::Slogdet, DType::Float32, 16, 3));
  EXPECT_FALSE(small_linalg_now(LinalgOp::Slogdet, DType::Float32, 16, cuda::kSmallLinalgCompileBatch - 1));
  EXPECT_TRUE(small_linalg_now(LinalgOp::Slogdet, DType::Float32, 16, cuda::kSmallLinalgCompileBatch));
}

TEST(SmallLinalgRouting, ALoopOfSmallCallsAsksOnceForABackgroundCompile) {
  int asked_at = -1, background = 0;
  for (int i = 1; i <= 3 * cuda::kSmallLinalgAskLimit; ++i) {
    const Route r = small_linalg_route(LinalgOp::Eigh, DType::Complex64, 8, 5);
    EXPECT_NE(r, Route::Kernel);  // never compiled here: every small call stays on cuSOLVER
    if (r == Route::SolverCompileBackground) {
      ++background;
      asked_at = i;
    }
  }
  EXPECT_EQ(background, 1);
  EXPECT_EQ(asked_at, cuda::kSmallLinalgAskLimit);
  // A large stack still compiles at the call; another dtype, size or operation keeps its own count.
  EXPECT_EQ(small_linalg_route(LinalgOp::Eigh, DType::Complex64, 8, cuda::kSmallLinalgCompileBatch), Route::Kernel);
  EXPECT_EQ(small_linalg_route(LinalgOp::Eigh, DType::Complex128, 4, 5), Route::Solver);
  EXPECT_EQ(small_linalg_route(LinalgOp::Cholesky, DType::Complex64, 8, 5), Route::Solver);
}
