// CPU inner loops of every ufunc and cast (registry).
#pragma once
#include <cstdint>

#include "numfuse/core/dtype.h"
#include "numfuse/ops/ufunc_list.h"

namespace nf::cpu {
// Runs a ufunc over n elements. in[i]: first element of input i, stored as its loop dtype;
// in_stride[i]: stride in ELEMENTS (0 = broadcast scalar, may be negative). out[j]: n contiguous
// elements of output j's loop dtype.
using UFuncLoop = void (*)(const void* const* in, const int64_t* in_stride, void* const* out, int64_t n);
// The loop for this op with these input loop dtypes, or nullptr if NumPy has none.
UFuncLoop find_ufunc_loop(UFunc op, const DType* in_dtypes, DType* out_dtypes);
// A strided cast of n elements: src (stride in elements, may be 0 or negative) -> contiguous dst.
using CastLoop = void (*)(const void* src, int64_t src_stride, void* dst, int64_t n);
CastLoop find_cast_loop(DType from, DType to);
}  // namespace nf::cpu
