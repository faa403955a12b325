// Counter-based random arrays: element i of a draw is a pure function of (seed, stream, offset, i)
// through Philox4x32-10 (kernels/philox.h explains the stream model), so a draw is a generator
// step like arange (kernels/generators.h): any backend computes each element on its own, inside
// whichever fused kernel consumes it.
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/core/array.h"

namespace nf {

enum class RandomDist : uint8_t {
  Uniform,   // [a, b): a + (b - a) * u, u uniform in [0, 1) (53 bits for float64, 24 for float32)
  Normal,    // a + b * z, z standard normal (Box-Muller, one Philox block per value)
  Integers,  // low + [0, range), wrapped to the dtype (range 0 stands for 2^64)
};

// What one draw computes. The caller reserves `offset` from its generator: for Uniform the 64-bit
// word of the stream that element 0 takes (offset += size), for Normal and Integers the block
// (whole blocks, kernels/philox.h).
struct RandomSpec {
  RandomDist dist = RandomDist::Uniform;
  uint64_t seed = 0, stream = 0, offset = 0;
  double a = 0.0, b = 1.0;
  uint64_t low = 0;    // two's complement bits of the lowest integer
  uint64_t range = 0;  // number of integers; 0 for all 2^64
};

// A pending array of `shape` and `dtype` filled by `spec`. Uniform and Normal take float32 or
// float64; Integers any integer dtype or bool. Throws ValueError for negative dimensions and
// TypeError for a dtype the distribution does not produce.
Array random(const Shape& shape, DType dtype, const RandomSpec& spec, Device device);

}  // namespace nf
