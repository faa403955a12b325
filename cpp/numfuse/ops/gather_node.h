// The pending node of an advanced-indexing read (ops/advanced_indexing.h's gather), shared by its
// CPU entry (ops/advanced_indexing.cpp) and its CUDA one (backend/cuda/gather_cuda.cpp).
#pragma once
#include <vector>

#include "numfuse/backend/cpu/gather_cpu.h"
#include "numfuse/graph/node.h"

namespace nf {

// src[indices] as a pending node: inputs are (view, index arrays...), all int64 indices already
// checked against their dims (the kernels check again: they never read out of bounds).
struct GatherNode : Node {
  std::vector<int> adv_dims, adv_axes;
  Shape bshape;
  bool adjacent = true;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "gather"; }
  void eval_cpu(const std::vector<Array>& outs) override;
  void eval_cuda(const std::vector<Array>& outs) override;  // backend/cuda/gather_cuda.cpp
};

// The canonical form of `view` indexed by `indices` at its dims `adv_dims` (NumPy's axes
// `adv_axes`), B = `bshape`; `adjacent`: the arrays were one run of the key.
cpu::GatherGeometry gather_geometry(const Array& view, const std::vector<int>& adv_dims,
                                    const std::vector<int>& adv_axes, std::vector<Array> indices,
                                    const Shape& bshape, bool adjacent);

}  // namespace nf
