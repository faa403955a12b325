#include "numfuse/ops/unique.h"

#include <memory>
#include <string>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/views.h"

namespace nf {

Array unique_values(const Array& a, bool equal_nan) {
  if (is_complex(a.dtype)) {
    throw TypeError(std::string("unique_values: ") + dtype_name(a.dtype) + " is not supported (complex)");
  }
  Array flat = ravel(a);
  const int64_t n = flat.size();
  if (n == 0) return copy(flat);
  auto node = std::make_shared<UniqueNode>();
  node->device = a.device();
  node->equal_nan = equal_nan;
  node->inputs = {flat};
  std::vector<Array> outs = make_pending(node, {a.dtype, DType::Int64}, {Shape{n}, Shape{}});
  // The length is the data's: the count comes to the host (one int64), the values stay.
  eval(outs, FlushReason::DataDependent);
  Array host = Array::empty({}, DType::Int64, Device::cpu());
  backend::copy_into(outs[1], host);
  const int64_t k = *host.data_as<int64_t>();
  if (k == n) return outs[0];
  // A fresh array of k values, not a view that keeps the n-element buffer alive.
  return copy(outs[0].view({k}, {1}, outs[0].byte_offset));
}

}  // namespace nf
