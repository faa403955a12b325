// The elementwise node kinds: what each computes (every backend runs them as program steps).
#pragma once
#include <string>
#include <vector>

#include "numfuse/ir/elementwise_node.h"
#include "numfuse/ir/ufunc_list.h"

namespace nf {

// A ufunc over broadcast inputs, computed in the loop dtypes in_loop -> out_loop.
struct UFuncNode : ElementwiseNode {
  UFunc ufunc;
  SmallVector<DType, 3> in_loop, out_loop;
  std::string name() const override;
  ElementwiseOp op() const override { return {ElementwiseOp::Kind::UFunc, ufunc, in_loop, out_loop}; }
};

// where(cond, x, y); inputs are (bool cond, x, y) with x and y of the output dtype.
struct WhereNode : ElementwiseNode {
  std::string name() const override { return "where"; }
  ElementwiseOp op() const override {
    DType d = out_dtypes[0];
    return {ElementwiseOp::Kind::Select, UFunc::Add, {DType::Bool, d, d}, {d}};
  }
};

// A copy of the input, broadcast to the output shape and cast to the output dtype.
struct CopyNode : ElementwiseNode {
  std::string name() const override { return "copy"; }
  ElementwiseOp op() const override {
    DType d = out_dtypes[0];
    return {ElementwiseOp::Kind::Copy, UFunc::Add, {d}, {d}};
  }
};

// full, arange, eye and random draws: each element a function of its position alone.
struct GeneratorNode : ElementwiseNode {
  Generator gen;
  std::string name() const override { return generator_name(gen.kind); }
  ElementwiseOp op() const override {
    ElementwiseOp o{ElementwiseOp::Kind::Generate, UFunc::Add, {}, {out_dtypes[0]}};
    o.gen = gen;
    return o;
  }
};

}  // namespace nf
