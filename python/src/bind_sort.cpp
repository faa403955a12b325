// Sorting and searching: numfuse._core.sort / argsort / partition / searchsorted. The NumPy-facing
// functions (kind= and stable= checks, sort_complex, lexsort, the set functions) are in
// numfuse/_sort.py and numfuse/_sets.py.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <cstdlib>
#include <string>

#include "bindings.h"
#include "numfuse/backend/cpu/sort_cpu.h"
#include "numfuse/ops/sort.h"
#include "numfuse/ops/unique.h"

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

// NumPy's quicksort loops (its SIMD sorts where the CPU has them) for the CPU backend's sorts
// of numbers (backend/cpu/sort_cpu.h says why). NUMFUSE_NUMPY_SORT=0 leaves numfuse's radix sort.
void register_numpy_sorts() {
  if (const char* e = std::getenv("NUMFUSE_NUMPY_SORT"); e && std::string(e) == "0") return;
  if (PyArray_ImportNumPyAPI() < 0) throw nb::python_error();
  const std::pair<DType, int> types[] = {
      {DType::Int8, NPY_INT8},       {DType::UInt8, NPY_UINT8},
      {DType::Int16, NPY_INT16},   {DType::UInt16, NPY_UINT16},   {DType::Int32, NPY_INT32},
      {DType::UInt32, NPY_UINT32}, {DType::Int64, NPY_INT64},     {DType::UInt64, NPY_UINT64},
      {DType::Float32, NPY_FLOAT32}, {DType::Float64, NPY_FLOAT64}};
  // Not float16: NumPy 2.4's half quicksort leaves -0.0 out of place among negative numbers
  // (np.sort of 5000 float16 normals with some -0.0 is not sorted); the radix sort is right.
  for (const auto& [d, npy] : types) {
    PyArray_Descr* descr = PyArray_DescrFromType(npy);
    PyArray_SortFunc* f = PyDataType_GetArrFuncs(descr)->sort[NPY_QUICKSORT];
    Py_DECREF(descr);
    cpu::set_inplace_sort(d, reinterpret_cast<cpu::InPlaceSort>(f));
  }
}

}  // namespace

void bind_sort(nb::module_& m) {
  register_numpy_sorts();
  m.def(
      "sort",
      [](nb::handle a, nb::handle axis) {
        return sort(array_arg(a, std::nullopt, operands_device({a})), sort_axis(axis));
      },
      nb::arg("a"), nb::arg("axis").none());
  m.def(
      "argsort",
      [](nb::handle a, nb::handle axis) {
        return argsort(array_arg(a, std::nullopt, operands_device({a})), sort_axis(axis));
      },
      nb::arg("a"), nb::arg("axis").none());
  m.def(
      "partition",
      [](nb::handle a, const std::vector<int64_t>& kth, nb::handle axis, bool indices) {
        return partition(array_arg(a, std::nullopt, operands_device({a})), kth, sort_axis(axis),
                         indices);
      },
      nb::arg("a"), nb::arg("kth"), nb::arg("axis").none(), nb::arg("indices"));
  m.def(
      "searchsorted",
      [](const Array& a, const Array& v, bool right, std::optional<Array> sorter) {
        return searchsorted(a, v, right, sorter);
      },
      nb::arg("a"), nb::arg("v"), nb::arg("right"), nb::arg("sorter").none());
  m.def("unique_values", &unique_values, nb::arg("a"), nb::arg("equal_nan"), nb::arg("counts"));
}

}  // namespace nf::py
