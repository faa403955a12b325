// The CPU inner loops of every ufunc and of every cast, and the registry that finds them.
#pragma once
#include <cstdint>

#include "numfuse/core/dtype.h"
#include "numfuse/ir/ufunc_list.h"

namespace nf::cpu {

// Runs a ufunc over n elements. in[i]: first element of input i, stored as its loop dtype
// (storage type: half for float16); in_stride[i]: stride in ELEMENTS (0 = broadcast scalar,
// may be negative). out[j]: n contiguous elements of output j's loop dtype. An output may be
// the very same buffer as a contiguous input (in-place), but must not overlap it otherwise.
using UFuncLoop = void (*)(const void* const* in, const int64_t* in_stride, void* const* out,
                           int64_t n);

// The loop for this op with these input loop dtypes, or nullptr if NumPy has none. out_dtypes
// receives the output dtypes of that loop. Inputs are homogeneous except ldexp's exponent
// (int32 or int64).
UFuncLoop find_ufunc_loop(UFunc op, const DType* in_dtypes, DType* out_dtypes);

// A strided cast of n elements: src (stride in elements, may be 0 or negative) -> contiguous dst.
using CastLoop = void (*)(const void* src, int64_t src_stride, void* dst, int64_t n);

// NumPy's astype(to) between any two dtypes (never nullptr).
CastLoop find_cast_loop(DType from, DType to);

}  // namespace nf::cpu
