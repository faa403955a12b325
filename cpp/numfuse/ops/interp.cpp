#include "numfuse/ops/interp.h"

#include <memory>
#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ir/interp.h"
#include "numfuse/ops/same_device.h"

namespace nf {

Array interp(const Array& x, const Array& xp, const Array& fp, const Array& left,
             const Array& right) {
  if (xp.ndim() != 1 || fp.ndim() != 1) {
    const int deepest = xp.ndim() != 1 ? xp.ndim() : fp.ndim();
    throw ValueError(deepest == 0 ? "object of too small depth for desired array"
                                  : "object too deep for desired array");
  }
  if (xp.shape[0] == 0) throw ValueError("array of sample points is empty");
  if (fp.shape[0] != xp.shape[0]) throw ValueError("fp and xp are not of the same length.");
  if (x.dtype != DType::Float64 || xp.dtype != DType::Float64) {
    throw TypeError(std::string("interp: x and xp must be float64, not ") + dtype_name(x.dtype) +
                    " and " + dtype_name(xp.dtype));
  }
  if (fp.dtype != DType::Float64 && fp.dtype != DType::Complex128) {
    throw TypeError(std::string("interp: fp must be float64 or complex128, not ") +
                    dtype_name(fp.dtype));
  }
  if (left.ndim() != 0 || right.ndim() != 0 || left.dtype != fp.dtype || right.dtype != fp.dtype) {
    throw TypeError("interp: left and right must be 0-d arrays of fp's dtype");
  }
  for (const Array* a : {&xp, &fp, &left, &right}) require_same_device("interp", x, *a);
  auto node = std::make_shared<InterpNode>();
  node->device = x.device();
  node->inputs = {x, xp, fp, left, right};
  return make_pending(node, fp.dtype, x.shape);
}

}  // namespace nf
