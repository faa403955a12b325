// The elementwise node kinds: what each computes, per backend.
#pragma once
#include <string>
#include <vector>

#include "numfuse/graph/node.h"
#include "numfuse/ops/ufunc_list.h"

namespace nf {

// A ufunc over broadcast inputs, computed in the loop dtypes in_loop -> out_loop.
struct UFuncNode : Node {
  UFunc op;
  std::vector<DType> in_loop, out_loop;
  NodeKind kind() const override { return NodeKind::Elementwise; }
  std::string name() const override;
  void eval_cpu(const std::vector<Array>& outs) override;
};

// where(cond, x, y); inputs are (bool cond, x, y) with x and y of the output dtype.
struct WhereNode : Node {
  NodeKind kind() const override { return NodeKind::Elementwise; }
  std::string name() const override { return "where"; }
  void eval_cpu(const std::vector<Array>& outs) override;
};

// A copy of the input, broadcast to the output shape and cast to the output dtype.
struct CopyNode : Node {
  NodeKind kind() const override { return NodeKind::Elementwise; }
  std::string name() const override { return "copy"; }
  void eval_cpu(const std::vector<Array>& outs) override;
};

}  // namespace nf
