// How a MatmulNode becomes BLAS calls, as plain host arithmetic shared by the CPU (BLAS) and
// CUDA (cuBLAS) backends, which only translate the plan into calls. Each operand is read with its
// own strides when one of its two last dims is contiguous (a transpose flag and a leading
// dimension say how) and copied to C order only when neither is; batch dims broadcast through
// strided batches; when b is shared by the whole batch and a's rows lie evenly spaced the batch
// folds into one tall product. Products whose a has one row or b one column may go to gemv (or
// dot) instead, with the vectors read in place by increments of any sign.
#pragma once
#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

#include "numfuse/core/array.h"

namespace nf {

// What the library the plan is for accepts.
struct GemmLimits {
  int64_t max_ld = INT64_MAX;         // largest leading dimension
  bool nonneg_batch_strides = false;  // strided batches with strides >= 0 only
};
// CPU BLAS: the gemm wrapper falls back to its own loop for whatever BLAS rejects.
inline GemmLimits blas_limits() { return {}; }
// cuBLAS: 32-bit leading dimensions, non-negative batch strides.
inline GemmLimits cublas_limits() { return {INT_MAX, true}; }

// A rows x cols matrix with element strides (rs, cs) as a row-major BLAS operand: not transposed
// with leading dimension rs, or transposed with leading dimension cs. False when neither works
// (no unit stride, or a leading dimension too small).
bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld);

// A run of (size, stride) dims, outermost first, as one (size, stride) dim if evenly spaced.
bool collapse_dims(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n,
                   int64_t* stride);

// One operand seen as a stack of matrices broadcast over the output's batch dims. A 1-D left
// operand is one row (k) -> (1, k); a 1-D right operand one column (k) -> (k, 1).
struct MatrixStack {
  Strides bstrides;  // per output batch dim, in elements (0 where broadcast)
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  bool trans = false;  // gemm reads it transposed (valid when usable)
  int64_t ld = 1;
  bool usable = false;  // false: neither of its last two dims suits gemm; copy it to C order
};
MatrixStack describe_operand(const Array& x, bool left, const Shape& out_batch,
                             const GemmLimits& limits);

// out_batch[d] of an output of `out_shape` from operands of these ranks.
Shape matmul_out_batch(const Shape& out_shape, int a_ndim, int b_ndim);

// Per-matrix offsets (in elements) of two operands with batch strides sa and sb, walking
// `batch_shape` in C order.
// Inline for a batch of a few (a lone product, the usual case, allocates nothing).
using BatchOffsets = SmallVector<int64_t, 4>;
void batch_offsets(const Shape& batch_shape, const Strides& sa, const Strides& sb,
                   BatchOffsets* off_a, BatchOffsets* off_b);

// One strided-batched gemm: offsets and strides in elements from the operands' first elements
// (the output is C-contiguous).
struct GemmCall {
  int64_t M = 0;  // rows of this call's product (batch * M when folded)
  int64_t a_off = 0, b_off = 0, c_off = 0;
  int64_t lda = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int64_t count = 1;  // products in this call; every call of a plan has the same count
};

struct MatmulPlan {
  int64_t N = 0, K = 0, ldc = 1, ldb = 1;
  bool trans_a = false, trans_b = false;
  bool folded = false;          // one call of batch * M rows (trans_a is then false)
  std::vector<GemmCall> calls;  // empty when the result is empty
};

// The gemm calls of a @ b. For usable operands (both describe_operand(...).usable) and K > 0 the
// calls are the products; `fold` false keeps one product per batch entry (callers that read the
// operands by their raw strides, ignoring lda and the transpose flags, use only the offsets).
MatmulPlan plan_matmul(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch,
                       const GemmLimits& limits, bool fold = true);

// ---- matrix-vector products ---------------------------------------------------------------------

// A vector of n elements, element k at base + k * stride (elements, any sign), in BLAS's terms:
// the pointer moved by *shift (to the lowest address) and the increment. False for a zero stride
// (BLAS rejects a zero increment).
bool blas_vector(int64_t n, int64_t stride, int64_t* shift, int64_t* inc);

// The arguments of one ?gemv (or ?dot when `dot`), offsets in elements from each operand's
// first element.
struct GemvPlan {
  bool dot = false;    // Mat has one row: y[0] = Mat[0, :] . v
  bool trans = false;  // gemv's trans: Mat is stored cols x rows
  int64_t stored_rows = 0, stored_cols = 0, ld = 1;
  int64_t mat_shift = 0, mat_inc = 1;  // mat_inc: the row's increment when dot
  int64_t vec_shift = 0, incx = 1;
  int64_t y_shift = 0, incy = 1;
};

// y (rows contiguous elements) = Mat (rows x cols, element strides rs, cs) times v (cols elements,
// stride vs). False when one call cannot do it in place: neither of Mat's dims has a unit stride
// (copy Mat to C order and plan again), or v's stride is 0 (a broadcast vector). A reversed dim
// of Mat is read forwards and the vector it multiplies (or y) walked backwards instead.
bool plan_gemv(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t vs, GemvPlan* p);

// Whether a @ b is a matrix-vector (or vector-vector) product: a has one row or b one column.
inline bool is_matvec(const MatrixStack& A, const MatrixStack& B) {
  return A.rows == 1 || B.cols == 1;
}

// a @ b as gemv calls: y = Mat v with Mat = a (b has one column) or b transposed (a has one row).
struct MatvecPlan {
  bool mat_is_a = true;
  int64_t ny = 0;                         // elements of each product's y
  GemvPlan gemv;                          // the same for every product
  bool folded = false;                    // one call covers the whole batch (offsets below unused)
  BatchOffsets mat_off, vec_off;          // per product, in elements; y's is i * ny
};
enum class MatvecVerdict {
  Planned,     // *plan holds the calls
  CopyMatrix,  // copy the matrix operand (a when b has one column, else b) to C order, plan again
  UseGemm,     // gemv cannot take it in place (a broadcast vector): use plan_matmul
};
MatvecVerdict plan_matvec(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch,
                          MatvecPlan* plan);

}  // namespace nf
