// How a MatmulNode becomes gemm calls on the GPU, as plain host arithmetic (no CUDA): each operand
// is read with its own strides when one of its two last dims is contiguous (a transpose flag and a
// leading dimension say how) and copied to C order only when neither is, as the CPU path does;
// batch dims broadcast through strided-batched calls; when b is shared by the whole batch and a's
// rows lie evenly spaced the batch folds into one tall product. The plan is executed by
// matmul_cuda.cpp with cuBLAS, and by cpp/tests with the CPU's gemm (so it is tested without a GPU).
#pragma once
#include <cstdint>
#include <vector>

#include "numfuse/core/array.h"

namespace nf::cuda {

// One operand seen as a stack of matrices broadcast over the output's batch dims. A 1-D left
// operand is one row (k) -> (1, k); a 1-D right operand one column (k) -> (k, 1).
struct MatrixStack {
  Strides bstrides;  // per output batch dim, in elements (0 where broadcast)
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  bool trans = false;  // gemm reads it transposed (valid when usable)
  int64_t ld = 1;
  bool usable = false;  // false: neither of its last two dims suits gemm; copy it to C order
};
MatrixStack describe_operand(const Array& x, bool left, const Shape& out_batch);

// out_batch[d] of an output of `out_shape` from operands of these ranks.
Shape matmul_out_batch(const Shape& out_shape, int a_ndim, int b_ndim);

// cuda::gemm_strided_batched's arguments, offsets and strides in elements from the operands'
// first elements (the output is C-contiguous).
struct GemmCall {
  int64_t M = 0;  // rows of this call's product (batch * M when folded)
  int64_t a_off = 0, b_off = 0, c_off = 0;
  int64_t lda = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int64_t count = 1;
};

struct MatmulPlan {
  int64_t N = 0, K = 0, ldc = 1, ldb = 1;
  bool trans_a = false, trans_b = false;
  std::vector<GemmCall> calls;  // empty when the result is empty
};

// The gemm calls of a @ b for usable operands (describe_operand(...).usable for both) and K > 0.
MatmulPlan plan_matmul(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch);

}  // namespace nf::cuda
