// Floating-point conditions of CPU programs (numpy.errstate): which flags each step reports and
// under which name, and the per-step flag words the interpreter's threads fill.
#pragma once
#include <cstdint>

#include "numfuse/core/fp_status.h"
#include "numfuse/core/small_vector.h"
#include "numfuse/ir/elementwise_node.h"
#include "numfuse/ir/reduce.h"

namespace nf::cpu {

// The flags NumPy reports for an op: its comparisons, maximum/minimum, isnan-like, sign and
// logical ops clear the status that NaN operands raise; selections and generators raise none.
uint8_t fp_reportable(const ElementwiseOp& op);

// The name NumPy's message gives: the ufunc's, "cast" for a copy that converts.
const char* fp_op_name(const ElementwiseOp& op);

// The flags of a step's run that its values justify: invalid needs a NaN result from non-NaN
// operands, overflow and divide an infinite result from finite ones (IEEE's conditions, which
// NumPy's loops report). glibc's vector math (libmvec) raises spurious flags on NaN and infinite
// lanes (exp(NaN) invalid, sin(inf) overflow, hypot(inf, NaN) invalid): they are dropped here.
// Called only when a step raised something; an output that overwrote its operand keeps them all.
uint8_t fp_justified_flags(const ElementwiseOp& op, const void* const* in, const int64_t* step,
                           void* const* out, int64_t n, uint8_t flags);

// Records `flags` (as raised by `node`'s step) for the evaluation's report, restricted to what
// the op reports and what the errstate captured with the node watches.
void record_step_flags(const Node* node, const ElementwiseOp& op, uint8_t flags);

// Records what a reduction (or a scan) raised: NumPy names add.reduce and multiply.reduce
// "reduce", cumsum and cumprod "accumulate", var's steps "divide" and "square"; its comparisons
// (max, min, argmax: MAXPS raises invalid on NaN) and logical reductions report nothing.
void record_reduce_flags(ReduceOp op, FpState state, uint8_t flags);
void record_scan_flags(FpState state, uint8_t flags);

// One flag word per step, OR-ed into from every thread of a parallel region.
class StepFlags {
 public:
  explicit StepFlags(size_t steps) : flags_(steps, uint8_t(0)) {}
  void add(size_t step, uint8_t f) { __atomic_fetch_or(&flags_[step], f, __ATOMIC_RELAXED); }
  uint8_t operator[](size_t step) const { return flags_[step]; }
  bool any() const {
    for (size_t i = 0; i < flags_.size(); ++i) {
      if (flags_[i]) return true;
    }
    return false;
  }

 private:
  SmallVector<uint8_t, 16> flags_;
};

}  // namespace nf::cpu
