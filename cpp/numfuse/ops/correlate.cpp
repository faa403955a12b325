#include "numfuse/ops/correlate.h"

#include <memory>
#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ir/correlate.h"
#include "numfuse/ops/same_device.h"

namespace nf {

Array correlate_direct(const Array& a, const Array& v, int64_t left, int64_t length) {
  if (a.ndim() != 1 || v.ndim() != 1) {
    const int deepest = a.ndim() != 1 ? a.ndim() : v.ndim();
    throw ValueError(deepest == 0 ? "object of too small depth for desired array"
                                  : "object too deep for desired array");
  }
  if (a.dtype != v.dtype) {
    throw TypeError(std::string("correlate: a (") + dtype_name(a.dtype) + ") and v (" +
                    dtype_name(v.dtype) + ") must share a dtype");
  }
  require_same_device("correlate", a, v);
  if (left < 0 || length < 0) {
    throw ValueError("correlate: padding " + std::to_string(left) + " and length " +
                     std::to_string(length) + " must not be negative");
  }
  auto node = std::make_shared<CorrelateNode>();
  node->device = a.device();
  node->left = left;
  node->inputs = {a, v};
  return make_pending(node, a.dtype, Shape{length});
}

}  // namespace nf
