// The ufunc family's internals shared by its two files: ops/elementwise.cpp (ufunc_into, the
// node's path) and ops/elementwise_express.cpp (the express lane, which runs small host ops in
// the call without a node). Not part of the ops/ API.
#pragma once
#include "numfuse/core/array.h"
#include "numfuse/core/device.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/ops/elementwise.h"

namespace nf {

// A weak Python scalar's value as a cached 0-d host constant of dtype `to` (a kernel parameter).
Array constant_scalar(const void* value, DType from, DType to);

// The array an operand contributes to a loop whose input dtype is `loop`: weak scalars are
// converted now (they are kernel parameters), arrays keep their dtype (cast while loading).
Array loop_input(const Operand& op, DType loop);

// A resolved loop remembered per thread: resolution and its casting checks are a pure function
// of the op, the operand types and the out= dtypes when no dtype= or casting= is given, and a
// Python loop repeats one op.
struct ResolvedLoop {
  UFunc op;
  OperandType types[2];
  unsigned out_mask = 0;  // which outputs were given (out=), and their dtypes
  DType out_dtypes[2] = {DType::Bool, DType::Bool};
  LoopSignature sig;
  DType weak_dtype[2];
  bool valid = false;
  bool matches(UFunc o, const OperandType* t, int nin, unsigned mask, const DType* outs) const {
    if (!valid || o != op || mask != out_mask) return false;
    for (int i = 0; i < nin; ++i) {
      if (t[i].dtype != types[i].dtype || t[i].weak != types[i].weak) return false;
    }
    for (int j = 0; j < 2; ++j) {
      if ((mask >> j & 1u) && outs[j] != out_dtypes[j]) return false;
    }
    return true;
  }
};

// The last plain resolution of this thread (ufunc_into and the express lane's shortest paths).
ResolvedLoop& last_resolved_loop();

// The express lane of `c = a + b` and `a[i + 1:, i] /= s` in a Python loop: a lone ufunc whose
// operands are small materialised host arrays of the loop's dtypes (any strides, broadcast,
// reversed) or scalars runs in the call through the backend's loop, with no node at all
// (immediate evaluation without the node's bookkeeping; docs/decisions.md, "Immediate
// evaluation of small CPU ops" and "express lane"). Results go to fresh arrays, or straight
// into the out= targets that need no conversion (`written[j]` true): the backend then computes
// every result before it stores one, so a target that overlaps an input (in place, or through
// another mapping) sees the inputs as they were, as NumPy's semantics require. False when
// anything differs, or when the loop raised a floating-point flag (nothing stored): the node's
// path then runs (again) and reports it as numpy.errstate says.
bool run_express(UFunc op, const LoopSignature& sig, const Operand* const* ins,
                 const DType* weak_dtype, const Shape& shape, Device device,
                 const UFuncOptions& opts, Array* fresh, bool* written);

}  // namespace nf
