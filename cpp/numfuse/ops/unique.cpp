#include "numfuse/ops/unique.h"

#include <memory>
#include <string>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/views.h"

namespace nf {

std::vector<Array> unique_values(const Array& a, bool equal_nan, bool counts) {
  if (is_complex(a.dtype)) {
    throw TypeError(std::string("unique_values: ") + dtype_name(a.dtype) + " is not supported (complex)");
  }
  Array flat = ravel(a);
  const int64_t n = flat.size();
  if (n == 0) {
    std::vector<Array> out = {copy(flat)};
    if (counts) out.push_back(Array::empty({0}, DType::Int64, a.device()));
    return out;
  }
  auto node = std::make_shared<UniqueNode>();
  node->device = a.device();
  node->equal_nan = equal_nan;
  node->counts = counts;
  node->inputs = {flat};
  std::vector<DType> dtypes = {a.dtype, DType::Int64};
  std::vector<Shape> shapes = {Shape{n}, Shape{}};
  if (counts) dtypes.push_back(DType::Int64), shapes.push_back(Shape{n});
  std::vector<Array> outs = make_pending(node, dtypes, shapes);
  // The length is the data's: the count comes to the host (one int64), the values stay.
  eval(outs, FlushReason::DataDependent);
  Array host = Array::empty({}, DType::Int64, Device::cpu());
  backend::copy_into(outs[1], host);
  const int64_t k = *host.data_as<int64_t>();
  // Fresh arrays of k elements, not views that keep the n-element buffers alive.
  const auto first_k = [&](const Array& x) { return k == n ? x : copy(x.view({k}, {1}, x.byte_offset)); };
  std::vector<Array> result = {first_k(outs[0])};
  if (counts) result.push_back(first_k(outs[2]));
  return result;
}

}  // namespace nf
