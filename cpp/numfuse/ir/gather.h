// The gather node kind (advanced-indexing reads, a[idx]) and the geometry that gathers and scatters
// share on every backend. ops/advanced_indexing.h builds the node with NumPy's indexing rules.
#pragma once
#include <string>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/node.h"

namespace nf {

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

// src[indices] as a pending node: inputs are (view, int64 index arrays...), all on the node's
// device, every index already checked against its dim (the kernels never read out of bounds).
struct GatherNode : Node {
  std::vector<int> adv_dims, adv_axes;
  Shape bshape;
  bool adjacent = true;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "gather"; }
};

// view[indices] in the outer x B x inner form both backends' kernels use.
GatherGeometry gather_geometry(const Array& view, const std::vector<int>& adv_dims,
                               const std::vector<int>& adv_axes, std::vector<Array> indices,
                               const Shape& bshape, bool adjacent);

}  // namespace nf
