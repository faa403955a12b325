// Which calls run the small-matrix kernels (small_linalg_cuda.h's small_linalg_now): the kernels
// that compile fast always, the slow ones for a large stack, once compiled, or in a loop of calls.
// No GPU is needed: this is the routing decision alone.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/small_linalg_cuda.h"

using namespace nf;
using nf::cuda::small_linalg_compiles_fast;
using nf::cuda::small_linalg_now;

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

TEST(SmallLinalgRouting, SlowKernelsRunInALoopOfSmallCalls) {
  int first_kernel_call = -1;
  for (int i = 1; i <= cuda::kSmallLinalgAskLimit + 2; ++i) {
    if (small_linalg_now(LinalgOp::Eigh, DType::Complex64, 8, 5) && first_kernel_call < 0) first_kernel_call = i;
  }
  EXPECT_EQ(first_kernel_call, cuda::kSmallLinalgAskLimit);
  // Another dtype, size or operation keeps its own count.
  EXPECT_FALSE(small_linalg_now(LinalgOp::Eigh, DType::Complex128, 4, 5));
  EXPECT_FALSE(small_linalg_now(LinalgOp::Cholesky, DType::Complex64, 8, 5));
}
