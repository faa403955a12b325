// Advanced indexing on a CUDA device (GatherNode::eval_cuda is in gather_cuda.cpp too): gather,
// scatter with NumPy's "last value wins" for repeated indices, and nonzero's coordinates.
#pragma once
#include <vector>

#include "numfuse/backend/cpu/gather_cpu.h"
#include "numfuse/core/array.h"

namespace nf::cuda {

// out (C-contiguous, the result shape) = src[indices]; every array on one device, indices int64
// and already checked against their dims.
void gather(const Array& src, const cpu::GatherGeometry& g, const Array& out);

// dst[indices] = values (C-contiguous, the result shape, dst's dtype, not overlapping dst): where
// indices repeat, the last value in C order is written, as NumPy's CPU loop leaves it.
void scatter(const Array& values, const cpu::GatherGeometry& g, const Array& dst);

// nonzero's result: outs[d] (int64, one element per nonzero) = the d-th coordinate over `shape`
// of each element where `pos` (the inclusive int64 cumsum of the truth values in C order) steps.
void nonzero_coords(const Array& pos, const Shape& shape, const std::vector<Array>& outs);

}  // namespace nf::cuda
