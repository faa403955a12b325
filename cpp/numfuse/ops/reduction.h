// Reductions (sum, prod, max, min, any, all, argmax, argmin, fmax, fmin). Validation, axis
// normalisation and NumPy's result-dtype rules happen here, eagerly; the result is a pending Array
// produced by a ReduceNode (ir/reduce.h), which only describes the work; each backend computes it
// (backend/cpu/reduce_cpu.h, backend/cuda/reduce_cuda.h).
#pragma once
#include <optional>
#include <vector>

#include "numfuse/ir/reduce.h"

namespace nf {

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

// The loop dtype NumPy picks for op on input dtype `in` when no dtype= or out= is given.
DType reduce_default_dtype(ReduceOp op, DType in);

}  // namespace nf
