// The CPU reduction that closes a fused group: it computes its input with the group's elementwise
// program a few thousand elements at a time into a small per-thread buffer and reduces from there,
// so the intermediate array of sqrt(sum(x**2, axis=-1)) or ((x - y)**2).sum() never exists.
#pragma once
#include "numfuse/core/array.h"
#include "numfuse/ir/group_program.h"
#include "numfuse/ir/reduce.h"

namespace nf::cpu {

// Computes spec over the value prologue.reduced (prologue.reduced.step >= 0) into `out` (fresh,
// C-contiguous, prologue.shape with the reduced dims of extent 1). The results are those of
// storing that value and calling reduce() on it, bit for bit: the same kernels see the same runs
// of values in the same association (NumPy's pairwise sums included), split the same way between
// threads.
// `state` is the reduction node's numpy.errstate (its prologue's steps carry their own).
void run_reduction_program(const ReduceSpec& spec, const GroupProgram& prologue, const Array& out,
                           FpState state = kFpDefaultState);

}  // namespace nf::cpu
