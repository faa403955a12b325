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

// What the statements call things: leaves by `leaf_name`; generator steps read the element's
// C-order position `position` and their parameter words at `gen_words` (8 per generator step,
// in step order: generator_words()).
struct StepNames {
  std::function<std::string(int)> leaf_name;
  std::string position;
  std::string gen_words = "p.gen";
};

// Emits one statement per step output, each line starting with `indent`.
void emit_steps(SourceText& s, const GroupProgram& p, const StepNames& names, const std::string& indent);

// The generator function of a Generate step writing `dtype` (kernels/generators.h), e.g.
// "nf::gen::uniform<double>".
std::string generator_function(Generator::Kind kind, DType dtype);

}  // namespace nf::cuda
