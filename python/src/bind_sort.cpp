// Sorting and searching: numfuse._core.sort / argsort / partition / searchsorted. The NumPy-facing
// functions (kind= and stable= checks, sort_complex, lexsort, the set functions) are in
// numfuse/_sort.py and numfuse/_sets.py.
#include "bindings.h"
#include "numfuse/ops/sort.h"

namespace nf::py {

namespace {

std::optional<int64_t> sort_axis(nb::handle axis) {
  if (axis.is_none()) return std::nullopt;
  return py_index(axis, IntUse::Axis);
}

// An array argument on the device of `like` (numfuse arrays stay where they are).
Array array_arg(nb::handle obj, std::optional<DType> dtype, Device device) {
  return array_from_py(obj, dtype, device);
}

}  // namespace

void bind_sort(nb::module_& m) {
  m.def(
      "sort", [](nb::handle a, nb::handle axis) {
        return sort(array_arg(a, std::nullopt, default_device()), sort_axis(axis));
      },
      nb::arg("a"), nb::arg("axis").none());
  m.def(
      "argsort", [](nb::handle a, nb::handle axis) {
        return argsort(array_arg(a, std::nullopt, default_device()), sort_axis(axis));
      },
      nb::arg("a"), nb::arg("axis").none());
  m.def(
      "partition",
      [](nb::handle a, const std::vector<int64_t>& kth, nb::handle axis, bool indices) {
        return partition(array_arg(a, std::nullopt, default_device()), kth, sort_axis(axis), indices);
      },
      nb::arg("a"), nb::arg("kth"), nb::arg("axis").none(), nb::arg("indices"));
  m.def(
      "searchsorted",
      [](const Array& a, const Array& v, bool right, std::optional<Array> sorter) {
        return searchsorted(a, v, right, sorter);
      },
      nb::arg("a"), nb::arg("v"), nb::arg("right"), nb::arg("sorter").none());
}

}  // namespace nf::py
