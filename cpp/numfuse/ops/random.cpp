#include "numfuse/ops/random.h"

#include <cstring>

#include "numfuse/core/error.h"
#include "numfuse/ops/creation.h"

namespace nf {

Array random(const Shape& shape, DType dtype, const RandomSpec& spec, Device device) {
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("negative dimensions are not allowed");
  }
  const bool is_float = dtype == DType::Float32 || dtype == DType::Float64;
  const bool is_int = is_integer(dtype) || dtype == DType::Bool;
  if ((spec.dist == RandomDist::Integers && !is_int) ||
      (spec.dist != RandomDist::Integers && !is_float)) {
    throw TypeError(std::string("random: unsupported dtype ") + dtype_name(dtype));
  }
  Generator g;
  g.kind = spec.dist == RandomDist::Uniform  ? Generator::Kind::Uniform
           : spec.dist == RandomDist::Normal ? Generator::Kind::Normal
                                             : Generator::Kind::Integers;
  g.word[0] = spec.seed;
  g.word[1] = spec.stream;
  g.word[2] = spec.offset;
  std::memcpy(&g.word[3], &spec.a, 8);
  std::memcpy(&g.word[4], &spec.b, 8);
  g.word[5] = spec.low;
  g.word[6] = spec.range;
  return generate(g, dtype, shape, device);
}

}  // namespace nf
