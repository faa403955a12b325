// CPU kernels of advanced indexing: gather (a[idx] reads) and scatter (a[idx] = v writes).
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/gather.h"

namespace nf::cpu {

// The geometry is the node vocabulary's (ir/gather.h); the name stays for the kernels' code.
using GatherGeometry = nf::GatherGeometry;

// out (C-contiguous, the result shape, src's dtype) = src[indices]. Throws IndexError for an
// index out of bounds.
void gather(const Array& src, const GatherGeometry& g, const Array& out);

// dst[indices] = values, values C-contiguous of the result shape and dst's dtype. Runs in
// order, so that with repeated indices the last value wins (as NumPy does on the CPU).
void scatter(const Array& values, const GatherGeometry& g, const Array& dst);

// The source element offset of every position of B (the index arrays' contribution), checked
// against the bounds of their dims.
std::vector<int64_t> index_offsets(const GatherGeometry& g);

}  // namespace nf::cpu
