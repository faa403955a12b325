// The CPU interpreter of fused elementwise groups: every step of the program runs as a typed
// vector loop over a cache-sized run of elements, intermediates stay in per-thread scratch, and
// only the program's outputs are written to memory. Runs are spread over the thread pool.
#pragma once
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/ir/group_program.h"

namespace nf::cpu {

void run_program(const GroupProgram& program);

// The loop of one program step (Select and Copy move bytes; Generate steps have none: nullptr).
UFuncLoop loop_for(const ElementwiseOp& op);

}  // namespace nf::cpu
