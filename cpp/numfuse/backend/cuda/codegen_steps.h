// The steps of a fused program as CUDA statements, shared by the elementwise and reduction code
// generators: every step value becomes a local `v<step>_<output>` of its compute type.
#pragma once
#include <functional>
#include <string>

#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/graph/group_program.h"

namespace nf::cuda {

// The C++ expression of a program value: a leaf through `leaf_name`, a step value by its local.
std::string value_expr(const ProgramValue& v, const std::function<std::string(int)>& leaf_name);

// Emits one statement per step output, each line starting with `indent`.
void emit_steps(SourceText& s, const GroupProgram& p, const std::function<std::string(int)>& leaf_name,
                const std::string& indent);

}  // namespace nf::cuda
