// A user's element-wise operation (numfuse.ElementwiseKernel, CuPy's API): CUDA C++ statements
// that become one step of a fused program, so `y = k(x) * 2 + 1` is one generated kernel. Only
// a code generator for a device that compiles CUDA C++ runs it (the CPU has none).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "numfuse/ir/elementwise_node.h"

namespace nf {

struct UserElementwiseDef {
  // What each argument of the step is to the operation.
  enum class Role : uint8_t {
    In,       // an input parameter's value (`name`)
    RawView,  // a raw parameter's 0-d view: read by nobody, it orders the graph (the node reads
              // the raw array, so a later write into it evaluates the node first)
    RawPtr,   // a raw parameter's device address (uint64 scalar)
    RawSize,  // a raw parameter's element count (int64 scalar)
    Size,     // the index space's size, `_ind.size()` (int64 scalar)
    OutInit,  // the current value of an output given by the caller (`name` reads it, as CuPy's
              // output references do)
  };
  struct Arg {
    Role role = Role::In;
    std::string name;
    DType raw_dtype = DType::Float64;  // RawPtr: the element type
  };
  int id = 0;  // process-unique: part of the fused kernel's structural key
  std::string name;  // the kernel's name (messages, explain)
  std::vector<Arg> args;
  std::vector<std::string> out_names;
  std::vector<std::pair<std::string, DType>> typedefs;  // type placeholders (T, U...) -> dtype
  std::string operation, preamble, loop_prep;
};

// The one definition equal to `def` (id aside): definitions are few and live until exit, so a
// step refers to its definition by pointer.
const UserElementwiseDef* intern_user_elementwise(UserElementwiseDef def);

struct UserElementwiseNode : ElementwiseNode {
  const UserElementwiseDef* def = nullptr;
  SmallVector<DType, 3> in_loop, out_loop;
  std::string name() const override { return def ? def->name : "elementwise_kernel"; }
  ElementwiseOp op() const override {
    ElementwiseOp o{ElementwiseOp::Kind::User, UFunc::Add, in_loop, out_loop};
    o.user = def;
    return o;
  }
};

}  // namespace nf
