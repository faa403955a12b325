// Reductions on CUDA devices (cuda::eval_reduce, nodes_cuda.h, is in reduce_cuda.cpp too).
#pragma once
#include "numfuse/ir/group_program.h"
#include "numfuse/ir/reduce.h"

namespace nf::cuda {

// The reduction that closes a fused group: `prologue` computes its input (prologue.reduced) as
// the kernel reads it; `out` is the keepdims-shaped result on the device. With `epilogue` (whose
// leaf over `result` is the reduction's result) the kernel also computes the epilogue's outputs
// from each result as it stores it. `state`: the reduction's errstate, for its accumulation.
void run_reduction_program_cuda(const ReduceSpec& spec, const GroupProgram& prologue, const Array& out,
                                const GroupProgram* epilogue = nullptr, const Storage* result = nullptr,
                                FpState state = kFpDefaultState);

// Whether the reduction kernel can compute `epilogue` itself: its outputs are C-contiguous and its
// array leaves are read element for element (the planner admits only such epilogues; writes
// redirected into strided destinations are not).
bool can_fuse_epilogue(const GroupProgram& epilogue);

}  // namespace nf::cuda
