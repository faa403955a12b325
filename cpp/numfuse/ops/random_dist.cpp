#include "numfuse/ops/random_dist.h"

#include <memory>
#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ir/random_dist.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/same_device.h"
#include "numfuse/ops/views.h"

namespace nf {

namespace {

// `p` as the node's input: float64, C-contiguous, of `shape` (a copy unless it already is one).
Array dense_param(const Array& p, const Shape& shape) {
  if (p.dtype == DType::Float64 && p.shape == shape && p.c_contiguous()) return p;
  if (p.ndim() > static_cast<int>(shape.size())) {
    throw ValueError("shape mismatch: objects cannot be broadcast to a single shape: parameter " +
                     shape_str(p.shape) + " against size " + shape_str(shape));
  }
  for (int d = 0; d < p.ndim(); ++d) {
    const int64_t have = p.shape[d], want = shape[shape.size() - p.ndim() + d];
    if (have != want && have != 1) {
      throw ValueError("shape mismatch: objects cannot be broadcast to a single shape: parameter " +
                       shape_str(p.shape) + " against size " + shape_str(shape));
    }
  }
  return copy(broadcast_to(astype(p, DType::Float64, false), shape));
}

}  // namespace

Array random_distribution(int dist, const std::vector<RandomParam>& params, const Shape& shape, DType dtype,
                          uint64_t seed, uint64_t stream, uint64_t offset, Device device) {
  if (dist < 0 || dist >= rngd::kNumDists) throw ValueError("random_distribution: unknown distribution");
  if (params.size() > 3) throw ValueError("random_distribution: at most three parameters");
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("negative dimensions are not allowed");
  }
  const bool discrete = rngd::is_discrete(dist);
  if (discrete ? dtype != DType::Int64 : (dtype != DType::Float64 && dtype != DType::Float32)) {
    throw TypeError(std::string("random_distribution: unsupported dtype ") + dtype_name(dtype));
  }
  auto node = std::make_shared<RandomDistNode>();
  node->device = device;
  node->dist = dist;
  node->seed = seed;
  node->stream = stream;
  node->offset = offset;
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k].array) {
      require_same_device("random", device, *params[k].array);  // the kernel reads it on `device`
      node->inputs.push_back(dense_param(*params[k].array, shape));
      node->array_mask |= 1 << k;
    } else {
      node->scalar[k] = params[k].scalar;
    }
  }
  return make_pending(node, dtype, shape);
}

}  // namespace nf
