// UniqueNode on a CUDA device: CUB's radix sort and CUB's select of the first of every run
// (sort_radix_cuda.cpp), the count left on the device for the caller's one read. Without libnumfuse_cub.so it raises NotImplementedError, and python/numfuse/_sets.py
// composes unique from sort and a mask instead.
#include <vector>

#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/backend/cuda/sort_radix_cuda.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

void eval_unique(UniqueNode& node, const std::vector<Array>& outs) {
  Array in = node.inputs[0];
  if (!cub_library().unique || is_complex(in.dtype)) {
    throw NotImplementedError("unique on CUDA needs libnumfuse_cub.so (CUB's select)");
  }
  if (!in.c_contiguous()) {
    Array d = Array::empty(in.shape, in.dtype, in.device());
    copy_on_device(in, d);
    in = d;
  }
  radix_unique(in, outs[0], outs[1], node.counts ? &outs[2] : nullptr, node.equal_nan);
}

}  // namespace nf::cuda
