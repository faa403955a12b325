#include "numfuse/ops/random.h"

#include "numfuse/core/error.h"

namespace nf {

std::string RandomNode::name() const {
  switch (spec.dist) {
    case RandomDist::Uniform: return "random_uniform";
    case RandomDist::Normal: return "random_normal";
    case RandomDist::Integers: return "random_integers";
  }
  return "random";
}

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
  auto node = std::make_shared<RandomNode>();
  node->device = device;
  node->spec = spec;
  return make_pending(node, dtype, shape);
}

}  // namespace nf
