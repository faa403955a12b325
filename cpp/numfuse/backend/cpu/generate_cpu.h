// CPU loops of generator steps (kernels/generators.h): a run of n elements whose C-order
// positions are first, first + step, ... (the fused interpreter's position pseudo-operand).
#pragma once
#include <cstdint>

#include "numfuse/ir/elementwise_node.h"

namespace nf::cpu {

using GeneratorLoop = void (*)(const uint64_t* word, int64_t first, int64_t step, void* out, int64_t n);

// The loop of `kind` writing `dtype`; throws TypeError for a dtype the generator does not make.
GeneratorLoop find_generator_loop(Generator::Kind kind, DType dtype);

}  // namespace nf::cpu
