// The reduction node kind: what a reduction computes (op, loop dtype, reduced axes, initial value),
// without saying how. ops/reduction.h builds it with NumPy's rules; the backends compute it.
#pragma once
#include <string>
#include <vector>

#include "numfuse/ir/node.h"

namespace nf {

// Var: the variance of the values read, in one pass (Welford's updates merged with Chan's formula),
// for the one-kernel var/std of the GPU; its `initial` holds ddof (in the loop dtype).
enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, Fmax, Fmin, Any, All, ArgMax, ArgMin, Var };
const char* reduce_op_name(ReduceOp op);  // NumPy's ufunc name: "add", "maximum", "argmax"...

// What a backend needs to compute one reduction. The input is read in any dtype and converted to
// `loop` on load (Sum..Fmin); Any/All/ArgMax/ArgMin read the input's own dtype.
struct ReduceSpec {
  ReduceOp op = ReduceOp::Sum;
  DType loop = DType::Float64;  // the dtype the reduction runs in (the result's dtype for Sum..Fmin)
  std::vector<bool> axes;       // per input dim: reduced or not
  bool has_initial = false;     // `initial` holds a value of dtype `loop` (Sum..Fmin only)
  unsigned char initial[16] = {};
};

// One reduction. Its output has the input's rank with the reduced dims of extent 1 (keepdims);
// the op drops them with a view when keepdims is false.
struct ReduceNode : Node {
  ReduceSpec spec;
  NodeKind kind() const override { return NodeKind::Reduction; }
  std::string name() const override { return reduce_op_name(spec.op); }
};

// The identity of op in dtype `loop` (itemsize bytes into out): 0, 1, -inf/lowest for Max, NaN for
// Fmax/Fmin (fmax(NaN, x) == x), false for Any, true for All. Backends start accumulators there.
void reduce_identity(ReduceOp op, DType loop, void* out);

}  // namespace nf
