// Reductions on CUDA devices (ReduceNode::eval_cuda is in reduce_cuda.cpp too).
#pragma once
#include "numfuse/graph/group_program.h"
#include "numfuse/ops/reduction.h"

namespace nf::cuda {

// The reduction that closes a fused group: `prologue` computes its input (prologue.reduced) as
// the kernel reads it; `out` is the keepdims-shaped result on the device.
void run_reduction_program_cuda(const ReduceSpec& spec, const GroupProgram& prologue, const Array& out);

}  // namespace nf::cuda
