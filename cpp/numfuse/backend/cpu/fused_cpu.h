// The CPU interpreter of fused elementwise groups: every step of the program runs as a typed
// vector loop over a cache-sized run of elements, intermediates stay in per-thread scratch, and
// only the program's outputs are written to memory. Runs are spread over the thread pool.
#pragma once
#include "numfuse/graph/group_program.h"

namespace nf::cpu {

void run_program(const GroupProgram& program);

}  // namespace nf::cpu
