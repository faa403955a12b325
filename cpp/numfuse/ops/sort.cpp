#include "numfuse/ops/sort.h"

#include <algorithm>
#include <memory>
#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ops/same_device.h"
#include "numfuse/ops/views.h"

namespace nf {

namespace {

// The input and axis a sort works on: axis nullopt flattens.
std::pair<Array, int> sort_input(const Array& a, std::optional<int64_t> axis) {
  if (!axis) return {ravel(a), 0};
  return {a, normalize_axis(*axis, a.ndim())};
}

std::vector<Array> make_sort(const Array& a, int axis, bool values, bool indices,
                             std::vector<int64_t> kth) {
  auto node = std::make_shared<SortNode>();
  node->device = a.device();
  node->axis = axis;
  node->values = values;
  node->indices = indices;
  node->kth = std::move(kth);
  node->inputs = {a};
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  if (values) dtypes.push_back(a.dtype), shapes.push_back(a.shape);
  if (indices) dtypes.push_back(DType::Int64), shapes.push_back(a.shape);
  return make_pending(node, dtypes, shapes);
}

}  // namespace

Array sort(const Array& a_in, std::optional<int64_t> axis) {
  auto [a, ax] = sort_input(a_in, axis);
  return make_sort(a, ax, true, false, {})[0];
}

Array argsort(const Array& a_in, std::optional<int64_t> axis) {
  if (a_in.ndim() == 0) return make_sort(ravel(a_in), 0, false, true, {})[0];
  auto [a, ax] = sort_input(a_in, axis);
  return make_sort(a, ax, false, true, {})[0];
}

Array partition(const Array& a_in, const std::vector<int64_t>& kth_in, std::optional<int64_t> axis,
                bool indices) {
  Array a = a_in;
  int ax = 0;
  if (indices && a.ndim() == 0) {
    a = ravel(a);  // NumPy's argpartition reads a 0-d input as 1-d
  } else {
    std::tie(a, ax) = sort_input(a_in, axis);
  }
  const int64_t n = a.shape[ax];
  std::vector<int64_t> kth;
  for (int64_t k : kth_in) {
    const int64_t kk = k < 0 ? k + n : k;
    if (kk < 0 || kk >= n) {
      throw ValueError("kth(=" + std::to_string(k) + ") out of bounds (" + std::to_string(n) + ")");
    }
    kth.push_back(kk);
  }
  std::sort(kth.begin(), kth.end());
  kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
  if (kth.empty()) return indices ? argsort(a, ax) : sort(a, ax);  // NumPy: kth=[] sorts nothing
  return make_sort(a, ax, !indices, indices, std::move(kth))[0];
}

Array searchsorted(const Array& a, const Array& v, bool right, const std::optional<Array>& sorter) {
  if (a.ndim() != 1) {
    throw ValueError(a.ndim() == 0 ? "object of too small depth for desired array"
                                   : "object too deep for desired array");
  }
  if (a.dtype != v.dtype) {
    throw TypeError(std::string("searchsorted: a (") + dtype_name(a.dtype) + ") and v (" +
                    dtype_name(v.dtype) + ") must share a dtype");
  }
  // Every operand is read by the device's kernel (no host scalar is a parameter here): a CPU v
  // beside a GPU a was read through its host address (CUDA_ERROR_ILLEGAL_ADDRESS under Dask).
  for (const Array* x : {&v, sorter ? &*sorter : &v}) require_same_device("searchsorted", a, *x);
  auto node = std::make_shared<SearchSortedNode>();
  node->device = a.device();
  node->right = right;
  node->inputs = {a, v};
  if (sorter) {
    if (sorter->ndim() != 1 || sorter->size() != a.size()) {
      throw ValueError("sorter.size must equal a.size");
    }
    if (sorter->dtype != DType::Int64) throw TypeError("sorter must be an int64 array");
    node->sorter = true;
    node->inputs.push_back(*sorter);
  }
  return make_pending(node, DType::Int64, v.shape);
}

}  // namespace nf
