// The interface every elementwise node offers the planner and the backends: one scalar function
// (or a select, or a copy) over loop dtypes. Backends fuse chains of these into one kernel.
#pragma once
#include <vector>

#include "numfuse/core/small_vector.h"
#include "numfuse/ir/node.h"
#include "numfuse/ir/ufunc_list.h"

namespace nf {

// A value computed from the element's position alone (kernels/generators.h): full, arange, eye
// and random draws are steps of a fused program, so their values never need memory of their own.
struct Generator {
  enum class Kind : uint8_t { Fill, Arange, Eye, Uniform, Normal, Integers };
  Kind kind = Kind::Fill;
  uint64_t word[8] = {};  // parameters, as kernels/generators.h lays them out (kernel arguments)
};

struct UserElementwiseDef;  // ir/user_elementwise.h: a user's ElementwiseKernel operation

struct ElementwiseOp {
  enum class Kind : uint8_t { UFunc, Select, Copy, Generate, User };
  Kind kind = Kind::Copy;
  UFunc ufunc = UFunc::Add;  // Kind::UFunc only
  // Inline vectors: programs copy an op per step, and a heap copy per step showed in the host
  // time of every small op.
  SmallVector<DType, 3> in;   // the dtypes the function reads (inputs are cast to them)
  SmallVector<DType, 3> out;  // the dtypes it writes
  Generator gen{};           // Kind::Generate only (no inputs; out[0] is the value's dtype)
  const UserElementwiseDef* user = nullptr;  // Kind::User only (interned, never freed)
};

const char* generator_name(Generator::Kind k);

struct ElementwiseNode : Node {
  NodeKind kind() const override { return NodeKind::Elementwise; }
  virtual ElementwiseOp op() const = 0;
  // Evaluated alone, a node is a fused group of one (single_node_program, ir/group_program.h).
};

}  // namespace nf
