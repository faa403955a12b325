// Reductions (sum, prod, max, min, any, all, argmax, argmin, fmax, fmin). Validation, axis normalisation and NumPy's result-dtype rules happen here, eagerly;
// the result is a pending Array produced by a ReduceNode. The node only describes the work
// (backend-neutral); backend/cpu/reduce_cpu.h computes it.
#pragma once
#include <optional>
#include <vector>

#include "numfuse/graph/node.h"

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
  void eval_cpu(const std::vector<Array>& outs) override;
  void eval_cuda(const std::vector<Array>& outs) override;  // backend/cuda/reduce_cuda.cpp
};

struct ReduceOptions {
  std::optional<std::vector<int64_t>> axis;  // nullopt: every axis (axis=None)
  bool keepdims = false;
  std::optional<DType> dtype;                // dtype= (Sum, Prod, Max, Min, Fmax, Fmin)
  std::optional<Array> out;                  // out=: the result is cast into it (unsafe)
  std::optional<Array> initial;              // initial=: a 0-d array, cast to the loop dtype
  std::optional<Array> where;                // where=: a bool mask broadcast to the input
};

// op.reduce(a, axis, dtype, out, keepdims, initial, where) with NumPy's rules: the result dtype
// (sum/prod of bool and small ints -> int64, of small uints -> uint64; any/all -> bool; arg* ->
// int64), AxisError for a bad axis, ValueError "duplicate value in 'axis'", ValueError
// "zero-size array to reduction operation maximum which has no identity". Returns `out` when given.
// ArgMax/ArgMin take at most one axis (NumPy's argmax(a, axis=None) flattens).
Array reduce(ReduceOp op, const Array& a, const ReduceOptions& opts = {});

// The identity of op in dtype `loop` (itemsize bytes into out): 0, 1, -inf/lowest for Max, NaN for
// Fmax/Fmin (fmax(NaN, x) == x), false for Any, true for All. Backends start accumulators there.
void reduce_identity(ReduceOp op, DType loop, void* out);

// The loop dtype NumPy picks for op on input dtype `in` when no dtype= or out= is given.
DType reduce_default_dtype(ReduceOp op, DType in);

}  // namespace nf
