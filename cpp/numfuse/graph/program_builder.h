// Builds the GroupProgram (ir/group_program.h) of a group the planner cut: which node is which
// step, which values are leaves, and which must be written to memory.
#pragma once
#include <cstddef>

#include "numfuse/graph/planner.h"
#include "numfuse/ir/group_program.h"

namespace nf {

// Builds the program of an elementwise group and allocates (and attaches to their storages) the
// buffers of the values that must outlive it: those the user or a later group still holds.
// `elementwise_nodes` excludes a closing reduction node; `reduce_input` is its input storage, held
// once by that node: it is not allocated unless another holder needs it in memory.
GroupProgram build_program(const Group& group, size_t elementwise_nodes = size_t(-1),
                           const Storage* reduce_input = nullptr);
// While set (numfuse.explain), build_program allocates nothing and attaches nothing: outputs are
// descriptions over a null buffer.
bool& program_dry_run();

}  // namespace nf
