#include "numfuse/ops/statistics.h"

#include <memory>
#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ops/same_device.h"

namespace nf {

namespace {

std::string shape_text(const Shape& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += std::to_string(s[i]) + (s.size() == 1 || i + 1 < s.size() ? "," : "");
  return t + ")";
}

void check_weights(const Array& x, const std::optional<Array>& weights) {
  if (!weights) return;
  if (weights->dtype != DType::Float64) {
    throw TypeError(std::string("bincount weights must be float64, got ") + dtype_name(weights->dtype));
  }
  if (weights->ndim() != 1 || weights->shape[0] != x.shape[0]) {
    throw ValueError("The weights and list don't have the same length: " + shape_text(weights->shape) + " and " +
                     shape_text(x.shape));
  }
  require_same_device("bincount", x, *weights);
}

Array make_bincount(const Array& x, const std::optional<Array>& weights, const Array* edges, Binning binning,
                    int64_t bins) {
  auto node = std::make_shared<BinCountNode>();
  node->device = x.device();
  node->binning = binning;
  node->bins = bins;
  node->weights = weights.has_value();
  node->inputs = {x};
  if (weights) node->inputs.push_back(*weights);
  if (edges) node->inputs.push_back(*edges);
  return make_pending(node, weights ? DType::Float64 : DType::Int64, Shape{bins});
}

}  // namespace

Array bincount(const Array& x, const std::optional<Array>& weights, int64_t length) {
  if (x.ndim() != 1) throw ValueError("object too deep for desired array: bincount takes a 1-D array, got shape " + shape_text(x.shape));
  if (x.dtype != DType::Int64) {
    throw TypeError(std::string("bincount: values must be int64, got ") + dtype_name(x.dtype));
  }
  if (length < 0) throw ValueError("'minlength' must not be negative");
  check_weights(x, weights);
  return make_bincount(x, weights, nullptr, Binning::Integer, length);
}

Array histogram_counts(const Array& a, const Array& edges, bool uniform, const std::optional<Array>& weights) {
  if (a.ndim() != 1) throw ValueError("histogram counts a 1-D array, got shape " + shape_text(a.shape));
  if (is_complex(a.dtype)) throw TypeError(std::string("histogram: complex data (") + dtype_name(a.dtype) + ") has no order");
  if (edges.ndim() != 1 || edges.shape[0] < 2) {
    throw ValueError("`bins` must be 1d with at least two edges, got shape " + shape_text(edges.shape));
  }
  if (edges.dtype != DType::Float64 && edges.dtype != DType::Float32) {
    throw TypeError(std::string("histogram edges must be float32 or float64, got ") + dtype_name(edges.dtype));
  }
  require_same_device("histogram", a, edges);
  check_weights(a, weights);
  return make_bincount(a, weights, &edges, uniform ? Binning::Uniform : Binning::Edges, edges.shape[0] - 1);
}

}  // namespace nf
