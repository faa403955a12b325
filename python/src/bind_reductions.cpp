// Reductions and scans: numfuse._core.reduce(op, a, ...) and numfuse._core.scan(op, a, ...).
// The NumPy-facing functions (sum, mean, argmax, cumsum, ...) are in numfuse/_reductions.py.
#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/reduction.h"
#include "numfuse/ops/scan.h"

namespace nf::py {

namespace {

int64_t index_arg(nb::handle h) { return py_index(h, IntUse::Axis); }

// axis=None, an int, or a tuple of ints.
std::optional<std::vector<int64_t>> axis_arg(nb::handle obj) {
  if (obj.is_none()) return std::nullopt;
  std::vector<int64_t> axes;
  if (nb::isinstance<nb::tuple>(obj)) {  // a list is no axis to NumPy's reductions
    for (nb::handle h : obj) axes.push_back(index_arg(h));
  } else {
    axes.push_back(index_arg(obj));
  }
  return axes;
}

std::optional<Array> out_arg(nb::handle obj) {
  if (obj.is_none()) return std::nullopt;
  nb::handle o = obj;
  if (nb::isinstance<nb::tuple>(obj)) {
    if (nb::len(obj) != 1) throw ValueError("The 'out' tuple must have exactly one entry");
    o = obj[0];
    if (o.is_none()) return std::nullopt;
  }
  if (!nb::isinstance<Array>(o)) throw TypeError("output must be an array");
  return nb::cast<const Array&>(o);
}

ReduceOp reduce_op_arg(const std::string& name) {
  static const std::pair<const char*, ReduceOp> ops[] = {
      {"sum", ReduceOp::Sum},   {"prod", ReduceOp::Prod},     {"max", ReduceOp::Max},
      {"min", ReduceOp::Min},   {"fmax", ReduceOp::Fmax},     {"fmin", ReduceOp::Fmin},
      {"any", ReduceOp::Any},   {"all", ReduceOp::All},       {"argmax", ReduceOp::ArgMax},
      {"argmin", ReduceOp::ArgMin}, {"var", ReduceOp::Var}};
  for (auto& [n, op] : ops) {
    if (name == n) return op;
  }
  throw ValueError("unknown reduction '" + name + "'");
}

}  // namespace

void bind_reductions(nb::module_& m) {
  m.def(
      "reduce",
      [](const std::string& op, nb::handle a, nb::handle axis, bool keepdims, nb::handle dtype,
         nb::handle out, nb::handle initial, nb::handle where) {
        // Helper arrays go where the input lives, not to the default device.
        const Device device = operands_device({a});
        Array arr = array_from_py(a, std::nullopt, device);
        ReduceOptions opts;
        opts.axis = axis_arg(axis);
        // NumPy's ufunc reductions accept a single axis 0 or -1 on a 0-d array (not a tuple).
        const bool single = !nb::isinstance<nb::tuple>(axis);
        if (arr.ndim() == 0 && single && opts.axis && ((*opts.axis)[0] == 0 || (*opts.axis)[0] == -1)) {
          opts.axis = std::nullopt;  // every axis of a 0-d array: none
        }
        opts.keepdims = keepdims;
        opts.dtype = optional_dtype(dtype);
        opts.out = out_arg(out);
        if (!initial.is_none()) opts.initial = value_from_py(initial, arr.dtype, device).array;
        if (!where.is_none() && where.ptr() != Py_True) opts.where = array_from_py(where, DType::Bool, device);
        return reduce(reduce_op_arg(op), arr, opts);
      },
      nb::arg("op"), nb::arg("a"), nb::arg("axis").none() = nb::none(), nb::arg("keepdims") = false,
      nb::arg("dtype").none() = nb::none(), nb::arg("out").none() = nb::none(),
      nb::arg("initial").none() = nb::none(), nb::arg("where").none() = nb::none());
  m.def(
      "scan",
      [](const std::string& op, nb::handle a, nb::handle axis, nb::handle dtype, nb::handle out) {
        ScanOp sop;
        if (op == "cumsum") sop = ScanOp::CumSum;
        else if (op == "cumprod") sop = ScanOp::CumProd;
        else if (op == "maximum") sop = ScanOp::Maximum;
        else if (op == "minimum") sop = ScanOp::Minimum;
        else if (op == "fmax") sop = ScanOp::Fmax;
        else if (op == "fmin") sop = ScanOp::Fmin;
        else throw ValueError("unknown scan '" + op + "'");
        std::optional<int64_t> ax;
        if (!axis.is_none()) ax = index_arg(axis);
        return scan(sop, array_from_py(a, std::nullopt, operands_device({a})), ax,
                    optional_dtype(dtype), out_arg(out));
      },
      nb::arg("op"), nb::arg("a"), nb::arg("axis").none() = nb::none(),
      nb::arg("dtype").none() = nb::none(), nb::arg("out").none() = nb::none());
  m.def("reduce_default_dtype", [](const std::string& op, nb::handle dtype) {
    return dtype_to_py(reduce_default_dtype(reduce_op_arg(op), dtype_from_py(dtype)));
  });
}

}  // namespace nf::py
