// The steps of a fused program as CUDA statements, shared by the elementwise and reduction code
// generators: every step value becomes a local `v<step>_<output>` of its compute type.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/ir/group_program.h"

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
  // When set (e.g. "[k]"), uniform draws were computed in pairs beforehand (emit_uniform_pairs):
  // step s reads u<s><uniform_index> instead of drawing.
  std::string uniform_index = "";
  // numpy.errstate checks (backend/cuda/fp_check_cuda.h): each step's slot in the launch's flag
  // words (-1: unchecked), and the expression of the first word. Null: no checks.
  const std::vector<int>* fp_slots = nullptr;
  std::string fp_word = "p.fpw";
};

// Whether the program draws uniforms (those can be computed two neighbours per Philox block).
bool has_uniform_draws(const GroupProgram& p);
// Declares `<type> u<s>[count]` for every uniform step s and fills it with the draws at positions
// first, first + 1, ... (`first` an even expression), two per call of nf::gen::uniform2.
void emit_uniform_pairs(SourceText& s, const GroupProgram& p, const std::string& first, int count,
                        const std::string& indent, const std::string& gen_words = "p.gen");

// Emits one statement per step output, each line starting with `indent`.
void emit_steps(SourceText& s, const GroupProgram& p, const StepNames& names, const std::string& indent);

// The generator function of a Generate step writing `dtype` (kernels/generators.h), e.g.
// "nf::gen::uniform<double>".
std::string generator_function(Generator::Kind kind, DType dtype);

}  // namespace nf::cuda
