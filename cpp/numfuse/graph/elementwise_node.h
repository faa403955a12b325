// The interface every elementwise node offers the planner and the backends: one scalar function
// (or a select, or a copy) over loop dtypes. Backends fuse chains of these into one kernel.
#pragma once
#include <vector>

#include "numfuse/graph/node.h"
#include "numfuse/ops/ufunc_list.h"

namespace nf {

struct ElementwiseOp {
  enum class Kind : uint8_t { UFunc, Select, Copy };
  Kind kind = Kind::Copy;
  UFunc ufunc = UFunc::Add;  // Kind::UFunc only
  std::vector<DType> in;     // the dtypes the function reads (inputs are cast to them)
  std::vector<DType> out;    // the dtypes it writes
};

struct ElementwiseNode : Node {
  NodeKind kind() const override { return NodeKind::Elementwise; }
  virtual ElementwiseOp op() const = 0;
  // A group of one: the same path as fused groups.
  void eval_cpu(const std::vector<Array>& outs) override;
  void eval_cuda(const std::vector<Array>& outs) override;
};

}  // namespace nf
