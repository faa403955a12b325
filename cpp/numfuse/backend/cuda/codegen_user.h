// Users' element-wise operations (ir/user_elementwise.h) in generated CUDA kernels: each User step
// becomes a __device__ function holding the user's statements, called where the step runs.
#pragma once
#include <string>
#include <vector>

#include "numfuse/backend/cuda/codegen_steps.h"

namespace nf::cuda {

// The helpers, preambles and one function per User step of `p` ("" when it has none): emitted
// before the kernel that runs the program's steps.
std::string user_step_definitions(const GroupProgram& p);

// The statements of User step `st`: its outputs' locals v<st>_<j>, then the call. `args` are
// the step's argument expressions, converted to the step's input types.
void emit_user_step(SourceText& s, const GroupProgram& p, size_t st, const std::vector<std::string>& args,
                    const StepNames& names, const std::string& indent);

}  // namespace nf::cuda
