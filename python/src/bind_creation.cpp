// Array creation and conversion: asarray, empty/full/arange/eye, eval, devices.
#include <nanobind/stl/pair.h>

#include "bindings.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/stage_trace.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ir/node.h"
#include "numfuse/ops/creation.h"

namespace nf::py {

namespace {

Shape shape_arg(nb::handle obj) { return py_shape(obj); }

Device device_arg(nb::handle obj) {
  if (obj.is_none()) return default_device();
  if (!PyUnicode_Check(obj.ptr()) && nb::hasattr(obj, "id")) {  // numfuse.cuda.Device
    Device d = Device::cuda(nb::cast<int>(obj.attr("id")));
    check_device_usable(d);
    return d;
  }
  Device d = parse_device(nb::cast<std::string>(nb::str(obj)));
  check_device_usable(d);
  return d;
}

}  // namespace

void bind_creation(nb::module_& m) {
  m.def("asarray",
        [](nb::handle obj, nb::handle dtype, nb::handle device) {
          return array_from_py(obj, optional_dtype(dtype), device_arg(device));
        },
        nb::arg("obj").none(), nb::arg("dtype").none() = nb::none(), nb::arg("device").none() = nb::none());
  m.def("to_device", [](const Array& a, nb::handle device) { return to_device(a, device_arg(device)); },
        nb::arg("a"), nb::arg("device"));
  m.def("from_numpy", [](nb::handle arr, nb::handle device) {
    return array_from_numpy(arr, device_arg(device));
  }, nb::arg("arr"), nb::arg("device").none() = nb::none());
  m.def("empty", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    return Array::empty(shape_arg(shape), dtype_from_py(dtype), device_arg(device));
  }, nb::arg("shape").none(), nb::arg("dtype"), nb::arg("device").none() = nb::none());
  m.def("full", [](nb::handle shape, nb::handle value, nb::handle dtype, nb::handle device) {
    DType d = dtype_from_py(dtype);
    Device dev = device_arg(device);
    Operand v = value_from_py(value, d, dev);
    Array out = Array::empty({}, d, Device::cpu());
    // Cast once, as NumPy's full does: a Python int must fit, a float NaN or a complex casts.
    if (v.weak == WeakKind::PyInt) check_scalar_storable(v, d);
    if (d == DType::Bool && v.weak == WeakKind::PyInt && v.array.dtype == DType::UInt64) {
      throw OverflowError("Python int too large to convert to C long");  // NumPy's full() does so
    }
    assign(out, v.array, Casting::Unsafe);
    return full(shape_arg(shape), d, out.data(), dev);
  }, nb::arg("shape").none(), nb::arg("value").none(), nb::arg("dtype"), nb::arg("device").none() = nb::none());
  m.def("zeros", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    return zeros(shape_arg(shape), dtype_from_py(dtype), device_arg(device));
  }, nb::arg("shape").none(), nb::arg("dtype"), nb::arg("device").none() = nb::none());
  m.def("ones", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    return ones(shape_arg(shape), dtype_from_py(dtype), device_arg(device));
  }, nb::arg("shape").none(), nb::arg("dtype"), nb::arg("device").none() = nb::none());
  m.def("arange", [](double start, double step, int64_t n, nb::handle dtype, nb::handle device) {
    return arange(start, step, n, dtype_from_py(dtype), device_arg(device));
  }, nb::arg("start"), nb::arg("step"), nb::arg("n"), nb::arg("dtype"), nb::arg("device").none());
  m.def("eye", [](nb::handle n, nb::handle mcols, nb::handle k, nb::handle dtype, nb::handle device) {
    return eye(py_index(n, IntUse::Dim), py_index(mcols, IntUse::Dim), py_index(k, IntUse::Clamped), dtype_from_py(dtype),
               device_arg(device));
  }, nb::arg("n"), nb::arg("m"), nb::arg("k"), nb::arg("dtype"), nb::arg("device").none());
  m.def("eval", [](nb::args arrays) {
    stage_mark("eval binding");
    // The common call, one small array: no vector, no GIL release (it would cost more than it saves).
    if (arrays.size() == 1 && nb::isinstance<Array>(arrays[0])) {
      const Array& a = nb::cast<const Array&>(arrays[0]);
      if (!a.pending()) return;
      if (a.size() <= 4096) {
        eval(a, FlushReason::Explicit);
        stage_trace_end("eval returned");
        return;
      }
    }
    std::vector<Array> list;
    for (nb::handle h : arrays) {
      if (nb::isinstance<Array>(h)) list.push_back(nb::cast<const Array&>(h));
    }
    eval(list, FlushReason::Explicit);  // releases the GIL itself when long, and sees Ctrl-C
    stage_trace_end("eval returned");
  }, "Evaluates pending arrays now: their values are computed; nothing is returned.");
  // The Python modules' integer arguments through the one checked conversion (convert.cpp): a
  // shape as NumPy's PyArray_IntpConverter reads it, an axis as its PyArray_AxisConverter does.
  m.def("_shape", [](nb::handle shape) {
    Shape s = py_shape(shape);
    return std::vector<int64_t>(s.begin(), s.end());
  }, nb::arg("shape").none());
  m.def("_axis", [](nb::handle axis) { return py_index(axis, IntUse::Axis); }, nb::arg("axis").none());
  // A count or offset read as NumPy's C long: OverflowError past int64.
  m.def("_index", [](nb::handle i) { return py_index(i); }, nb::arg("i").none());
  m.def("pending_node_count", &pending_node_count);
  m.def("explain", [](const Array& a) { return explain(a); },
        "The plan of a pending array: its groups, why each was cut, their programs and, on a GPU, "
        "the generated kernel source. Evaluates nothing.");
  m.def("set_fusion", &set_fusion_enabled);
  m.def("fusion_enabled", [] { return graph_limits().fusion; });
  m.def("set_immediate_max", &set_immediate_max, nb::arg("elements"));
  m.def("immediate_max", [] { return graph_limits().immediate_max; });
  m.def("num_threads", &cpu::num_threads);
  m.def("set_num_threads", &cpu::set_num_threads);
  m.def("default_device", [] { return default_device().str(); });
  m.def("set_default_device", [](const std::string& s) { set_default_device(parse_device(s)); });
  m.def("push_thread_device", [](const std::string& s) { push_thread_device(parse_device(s)); });
  m.def("pop_thread_device", &pop_thread_device);
  m.def("set_default_device_trap", &set_default_device_trap, nb::arg("on"));
  m.def("_push_operands_device", &push_operands_device, nb::arg("args"), nb::arg("kwargs"));
}

}  // namespace nf::py
