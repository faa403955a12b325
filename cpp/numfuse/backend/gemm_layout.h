// How a strided matrix maps onto a BLAS operand, shared by the CPU (BLAS) and CUDA (cuBLAS)
// matmul paths.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace nf {

// A rows x cols matrix with element strides (rs, cs) as a row-major BLAS operand: not transposed
// with leading dimension rs, or transposed with leading dimension cs. False when neither works
// (no unit stride, or a leading dimension too small).
inline bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) {
    *trans = false;
    *ld = rows <= 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) {
    *trans = true;
    *ld = cols <= 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

// A run of (size, stride) dims, outermost first, as one (size, stride) dim if evenly spaced.
inline bool collapse_dims(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n, int64_t* stride) {
  int64_t total = 1, inner_stride = 0, expect = 0;
  bool have = false;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->first == 1) continue;
    if (!have) {
      inner_stride = it->second;
      have = true;
    } else if (it->second != expect) {
      return false;
    }
    total *= it->first;
    expect = it->second * it->first;
  }
  *n = total;
  *stride = have ? inner_stride : 0;
  return true;
}

}  // namespace nf
