// Advanced indexing on CUDA devices: the kernels of codegen_gather.h launched on numfuse's stream
// (cuda::eval_gather, nodes_cuda.h, is in gather_cuda.cpp too).
#pragma once
#include <vector>

#include "numfuse/backend/cpu/gather_cpu.h"

namespace nf::cuda {

// out (C-contiguous, the result shape, src's dtype) = src[indices]; every array on one device,
// indices already checked against their dims.
void gather(const Array& src, const cpu::GatherGeometry& g, const Array& out);

// dst[indices] = values (C-contiguous, the result shape, dst's dtype); with repeated indices the
// value at the last of them in C order wins, as on the CPU. Values must not overlap dst.
void scatter(const Array& values, const cpu::GatherGeometry& g, const Array& dst);

// numpy.nonzero's arrays from `pos`, the C-contiguous int64 inclusive cumsum of an array of
// `shape`'s flags (pos's last element is the count, n): nd int64 arrays of n on pos's device.
std::vector<Array> nonzero_from_cumsum(const Array& pos, const Shape& shape, int64_t n);

}  // namespace nf::cuda
