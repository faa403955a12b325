// How a strided matrix-vector product y = Mat v maps onto one BLAS ?gemv (or ?dot) call with the
// operands read in place, as plain arithmetic: the matrix by a leading dimension (and a transpose
// flag), the vectors by increments of any sign. A reversed dim of the matrix is read forwards and
// the vector it multiplies (or y) is walked backwards instead, so no operand is copied for it.
#pragma once
#include <cstdint>

#include "numfuse/backend/gemm_layout.h"

namespace nf::cpu {

// A vector of n elements, element k at base + k * stride (elements, any sign), in BLAS's terms:
// the pointer moved by *shift (to the lowest address) and the increment. False for a zero stride
// (BLAS rejects a zero increment).
inline bool blas_vector(int64_t n, int64_t stride, int64_t* shift, int64_t* inc) {
  if (n <= 1) {
    *shift = 0;
    *inc = 1;
    return true;
  }
  if (stride == 0) return false;
  *shift = stride < 0 ? (n - 1) * stride : 0;
  *inc = stride;
  return true;
}

// The arguments of cpu::gemv (or cpu::dot when `dot`), offsets in elements from each operand's
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
// (copy Mat to C order and plan again), or v's stride is 0 (a broadcast vector).
inline bool plan_gemv(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t vs, GemvPlan* p) {
  *p = GemvPlan{};
  if (rows == 1) {
    p->dot = true;
    return blas_vector(cols, cs, &p->mat_shift, &p->mat_inc) &&
           blas_vector(cols, vs, &p->vec_shift, &p->incx);
  }
  int64_t v_base = 0, y_base = 0, ys = 1;
  if (rows > 1 && rs < 0) {  // Mat[::-1] v == (Mat v)[::-1]
    p->mat_shift += (rows - 1) * rs;
    rs = -rs;
    y_base = rows - 1;
    ys = -1;
  }
  if (cols > 1 && cs < 0) {  // Mat[:, ::-1] v == Mat v[::-1]
    p->mat_shift += (cols - 1) * cs;
    cs = -cs;
    v_base = (cols - 1) * vs;
    vs = -vs;
  }
  int64_t v_shift = 0, y_shift = 0;
  if (!blas_vector(cols, vs, &v_shift, &p->incx) || !blas_vector(rows, ys, &y_shift, &p->incy)) {
    return false;
  }
  p->vec_shift = v_base + v_shift;
  p->y_shift = y_base + y_shift;
  if (!gemm_layout(rows, cols, rs, cs, &p->trans, &p->ld)) return false;
  p->stored_rows = p->trans ? cols : rows;
  p->stored_cols = p->trans ? rows : cols;
  return true;
}

}  // namespace nf::cpu
