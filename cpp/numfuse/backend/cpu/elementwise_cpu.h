// The CPU interpreter for elementwise work: runs a typed inner loop over any strided operands in
// cache-sized runs, casting inputs to the loop's dtypes on the fly, on the thread pool.
#pragma once
#include <vector>

#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/array.h"

namespace nf::cpu {

// Elements per run: operands of one run stay in L1/L2 between casting and computing.
constexpr int64_t kRunElements = 4096;

// outs share one shape; inputs broadcast to it. in_loop/out_loop are the loop's dtypes.
void run_ufunc_loop(UFuncLoop loop, const std::vector<DType>& in_loop,
                    const std::vector<DType>& out_loop, const std::vector<Array>& inputs,
                    const std::vector<Array>& outs);

// dst[...] = src (broadcast to dst's shape), converting dtype as astype(casting='unsafe') does.
// src and dst must not overlap in memory unless identical (callers copy through a temporary).
void copy_cast(const Array& src, const Array& dst);

}  // namespace nf::cpu
