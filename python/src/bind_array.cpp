// numfuse.ndarray: the nanobind class itself, with its properties and hot methods in C++.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/backend/backend.h"
#include "numfuse/graph/eval.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/views.h"

namespace nf::py {

namespace {

nb::tuple to_tuple(const std::vector<int64_t>& v) {
  nb::list l;
  for (int64_t x : v) l.append(x);
  return nb::tuple(l);
}

// Shapes and axes arrive as an int, a sequence, or several ints (*args).
std::vector<int64_t> int_list(nb::handle obj) {
  std::vector<int64_t> out;
  if (PyLong_Check(obj.ptr()) || nb::hasattr(obj, "__index__")) {
    if (!PySequence_Check(obj.ptr())) {
      out.push_back(py_to_int64(nb::steal(PyNumber_Index(obj.ptr()))));
      return out;
    }
  }
  for (nb::handle h : obj) out.push_back(py_to_int64(nb::steal(PyNumber_Index(h.ptr()))));
  return out;
}

std::vector<int64_t> args_to_ints(const nb::args& args) {
  if (args.size() == 1) return int_list(args[0]);
  std::vector<int64_t> out;
  for (nb::handle h : args) out.push_back(py_to_int64(nb::steal(PyNumber_Index(h.ptr()))));
  return out;
}

char order_char(const std::string& order) {
  if (order.size() != 1 || std::string("CFAK").find(order[0]) == std::string::npos) {
    throw ValueError("order must be one of 'C', 'F', 'A', or 'K' (got '" + order + "')");
  }
  return order[0];
}

// float(a), int(a) and bool(a) of a 0-d array of a real dtype read the value directly: a loop's
// convergence test does one each iteration, and a NumPy view made for it cost more than the op.
// Every other array (size-1 arrays of more dims, complex values) goes through NumPy's own
// conversion of a host view, with its warnings and errors.
bool direct_scalar(const Array& a) { return a.ndim() == 0 && !is_complex(a.dtype); }

Array host_scalar(const Array& a) {
  eval(a, FlushReason::HostRead);
  if (a.device().is_cpu()) return a;
  Array h = Array::empty({}, a.dtype, Device::cpu());
  nb::gil_scoped_release release;  // the transfer waits for the device
  backend::copy_into(a, h);
  return h;
}

double real_value(const Array& h) {
  double v = 0;
  NF_DISPATCH(h.dtype, "float", {
    if constexpr (!is_cplx_v<scalar_t>) v = convert<double>(*h.data_as<scalar_t>());
  });
  return v;
}

nb::object via_numpy(const Array& a, PyObject* (*convert_fn)(PyObject*)) {
  nb::object view = host_numpy_view(a);
  PyObject* r = convert_fn(view.ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

nb::object to_float(const Array& a) {
  if (!direct_scalar(a)) return via_numpy(a, PyNumber_Float);
  return nb::steal(PyFloat_FromDouble(real_value(host_scalar(a))));
}

nb::object to_int(const Array& a) {
  if (!direct_scalar(a) || is_inexact(a.dtype)) return via_numpy(a, PyNumber_Long);
  Array h = host_scalar(a);
  PyObject* r = nullptr;
  auto read = [&r](const auto* p) {  // a template, so that the branches of other types drop out
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    if constexpr (is_uint_v<T>) {
      r = PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(*p));
    } else if constexpr (is_sint_v<T> || is_bool_v<T>) {
      r = PyLong_FromLongLong(static_cast<long long>(*p));
    }
  };
  NF_DISPATCH(h.dtype, "int", { read(h.data_as<scalar_t>()); });
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

bool to_bool(const Array& a) {
  if (!direct_scalar(a)) {
    int t = PyObject_IsTrue(host_numpy_view(a).ptr());
    if (t < 0) throw nb::python_error();
    return t != 0;
  }
  return real_value(host_scalar(a)) != 0.0;
}

}  // namespace

// nanobind 3.1 keeps dead instances of a pooled type for reuse: every op of a Python loop
// creates one ndarray object and drops another, and reuse skips its allocation and its entry in
// nanobind's instance map.
#if NB_VERSION_MAJOR > 3 || (NB_VERSION_MAJOR == 3 && NB_VERSION_MINOR >= 1)
#define NF_ARRAY_POOL , nb::pooled(256)
#else
#define NF_ARRAY_POOL
#endif

void bind_array(nb::module_& m) {
  // Operators are raw slots of the type (bind_operators.cpp).
  nb::class_<Array> cls(m, "ndarray", nb::is_weak_referenceable(), nb::type_slots(array_operator_slots())
                        NF_ARRAY_POOL, "An N-dimensional array on the CPU or a GPU, evaluated lazily.");
  cls.def_prop_rw(
         "shape", [](const Array& a) { return to_tuple(a.shape); },
         [](Array& a, nb::handle shape) {
           Shape s = infer_reshape(int_list(shape), a.size());
           Strides st;
           if (!reshape_strides(a.shape, a.strides, s, &st)) {
             throw nb::attribute_error("Incompatible shape for in-place modification. Use "
                                       "`.reshape()` to make a copy with the desired shape.");
           }
           a.shape = s;
           a.strides = st;
         })
      .def_prop_ro("dtype", [](const Array& a) { return dtype_to_py(a.dtype); })
      .def_prop_ro("ndim", &Array::ndim)
      .def_prop_ro("size", &Array::size)
      .def_prop_ro("itemsize", [](const Array& a) { return a.itemsize(); })
      .def_prop_ro("nbytes", [](const Array& a) { return a.nbytes(); })
      .def_prop_ro("strides",
                   [](const Array& a) {
                     std::vector<int64_t> b;
                     for (int64_t s : a.strides) b.push_back(s * int64_t(a.itemsize()));
                     return to_tuple(b);
                   })
      .def_prop_ro("device", [](const Array& a) { return a.device().str(); })
      .def_prop_ro("T", [](const Array& a) { return transpose(a); })
      .def_prop_ro("mT",
                   [](const Array& a) {
                     if (a.ndim() < 2) {
                       throw ValueError("matrix transpose with ndim < 2 is undefined");
                     }
                     return swapaxes(a, -1, -2);
                   })
      .def_prop_rw(
          "real", [](const Array& a) { return real_part(a); },
          [](const Array& a, nb::handle v) {
            assign(real_part(a), array_from_py(v, std::nullopt, a.device()));
          })
      .def_prop_rw(
          "imag", [](const Array& a) { return imag_part(a); },
          [](const Array& a, nb::handle v) {
            if (!is_complex(a.dtype)) throw TypeError("array does not have imaginary part to set");
            assign(imag_part(a), array_from_py(v, std::nullopt, a.device()));
          })
      .def_prop_ro("_c_contiguous", &Array::c_contiguous)
      .def_prop_ro("_f_contiguous", &Array::f_contiguous)
      .def_prop_ro("_owndata", [](const Array& a) { return !a.is_view; })
      .def_prop_rw(
          "_writeable", [](const Array& a) { return a.writeable; },
          [](Array& a, bool w) {
            if (w && !a.writeable && a.is_view) {
              throw ValueError("cannot set WRITEABLE flag to True of this array");
            }
            a.writeable = w;
          })
      .def_prop_ro("_pending", &Array::pending)
      .def("astype",
           [](const Array& a, nb::handle dtype, const std::string& order, const std::string& casting,
              bool subok, bool copy_flag) {
             DType d = dtype_from_py(dtype);
             Casting c = casting_from_str(casting);
             if (!can_cast(a.dtype, d, c)) {
               throw TypeError(std::string("Cannot cast array data from dtype('") +
                               dtype_name(a.dtype) + "') to dtype('" + dtype_name(d) +
                               "') according to the rule '" + casting + "'");
             }
             char o = order_char(order);
             Array r = astype(a, d, copy_flag);
             if (o == 'F' && copy_flag) r = transpose(copy(transpose(r)));
             return r;
           },
           nb::arg("dtype"), nb::arg("order") = "K", nb::arg("casting") = "unsafe",
           nb::arg("subok") = true, nb::arg("copy") = true)
      .def("copy",
           [](const Array& a, const std::string& order) {
             char o = order_char(order);
             if (o == 'F' || (o == 'A' && a.f_contiguous() && !a.c_contiguous())) {
               return transpose(copy(transpose(a)));
             }
             return copy(a);
           },
           nb::arg("order") = "C")
      .def("__copy__", [](const Array& a) { return copy(a); })
      .def("__deepcopy__", [](const Array& a, nb::handle) { return copy(a); })
      .def("view",
           [](const Array& a, nb::handle dtype) {
             if (dtype.is_none()) return a.view(a.shape, a.strides, a.byte_offset);
             return a.view_as_dtype(dtype_from_py(dtype));
           },
           nb::arg("dtype").none() = nb::none())
      .def("reshape",
           [](const Array& a, nb::args shape, const std::string& order) {
             if (shape.size() == 0) throw TypeError("reshape() takes exactly 1 argument (0 given)");
             return reshape(a, args_to_ints(shape), order_char(order));
           },
           nb::arg("shape"), nb::kw_only(), nb::arg("order") = "C")
      .def("ravel", [](const Array& a, const std::string& order) { return ravel(a, order_char(order)); },
           nb::arg("order") = "C")
      .def("flatten",
           [](const Array& a, const std::string& order) {
             char o = order_char(order);
             return o == 'F' ? ravel(copy(transpose(a)), 'C') : ravel(copy(a), 'C');
           },
           nb::arg("order") = "C")
      .def("transpose",
           [](const Array& a, nb::args axes) {
             if (axes.size() == 0 || (axes.size() == 1 && axes[0].is_none())) return transpose(a);
             return transpose(a, args_to_ints(axes));
           },
           nb::arg("axes"))
      .def("swapaxes", &swapaxes, nb::arg("axis1"), nb::arg("axis2"))
      .def("squeeze",
           [](const Array& a, nb::handle axis) {
             if (axis.is_none()) return squeeze(a);
             return squeeze(a, int_list(axis));
           },
           nb::arg("axis").none() = nb::none())
      .def("diagonal", &diagonal, nb::arg("offset") = 0, nb::arg("axis1") = 0, nb::arg("axis2") = 1)
      .def("fill",
           [](const Array& a, nb::handle value) {
             assign(a, operand_from_py(value, a.device()));  // NumPy's checks of the scalar
           })
      .def("_eval", [](const Array& a) { eval(a, FlushReason::Explicit); })
      .def("__float__", &to_float)
      .def("__int__", &to_int)
      .def("__bool__", &to_bool)
      .def("_host_view", &host_numpy_view)
      .def("_host_copy", &host_numpy_copy)
      .def("__len__",
           [](const Array& a) {
             if (a.ndim() == 0) throw TypeError("len() of unsized object");
             return a.shape[0];
           });
  bind_indexing(cls);
  cls.attr("__hash__") = nb::none();
  cls.attr("__array_priority__") = 100;
}

}  // namespace nf::py
