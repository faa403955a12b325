// CPU kernels of advanced indexing: gather (a[idx] reads) and scatter (a[idx] = v writes).
#pragma once
#include <vector>

#include "numfuse/core/array.h"

namespace nf::cpu {

// a[idx_0, ..., idx_k-1] in the one canonical form both kernels use: the result is
// outer x B x inner, where B is the broadcast shape of the index arrays and outer/inner are the
// source dims that no array indexes (outer is empty unless the indexed dims are adjacent).
struct GatherGeometry {
  Shape outer_shape;
  Strides outer_strides;  // source strides, in elements
  Shape inner_shape;
  Strides inner_strides;
  Shape bshape;
  std::vector<Array> indices;         // int64, materialised, broadcastable to bshape
  std::vector<int64_t> adv_sizes;     // size of the source dim each index array indexes
  std::vector<int64_t> adv_strides;   // its stride
  std::vector<int> adv_axes;          // its axis as NumPy's IndexError names it
};

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
