// numfuse.ndarray: the nanobind class itself, with its properties and hot methods in C++.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/backend/backend.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ir/elementwise_kinds.h"
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
std::vector<int64_t> int_list(nb::handle obj, IntUse use = IntUse::Plain) {
  if (std::optional<std::vector<int64_t>> items = int_sequence(obj, use)) return *items;
  return {py_index(obj, use)};  // NumPy's TypeError for floats, None...
}

// squeeze's axis= as NumPy's PyArray_ConvertMultiAxis reads it: a tuple of axes or one axis (a
// list or a 1-d array is no axis: TypeError).
std::vector<int64_t> axis_tuple(nb::handle obj) {
  std::vector<int64_t> out;
  if (!PyTuple_Check(obj.ptr())) return {py_index(obj, IntUse::Axis)};
  for (nb::handle h : obj) out.push_back(py_index(h, IntUse::Axis));
  return out;
}

std::vector<int64_t> args_to_ints(const nb::args& args, IntUse use = IntUse::Plain) {
  if (args.size() == 1) return int_list(args[0], use);
  std::vector<int64_t> out;
  for (nb::handle h : args) out.push_back(py_index(h, use));
  return out;
}

// order= as NumPy reads it: None is the default, anything else must be one of the letters.
char order_char(nb::handle obj, char none_means) {
  if (obj.is_none()) return none_means;
  if (!PyUnicode_Check(obj.ptr())) {
    throw TypeError("order must be str, not " + std::string(Py_TYPE(obj.ptr())->tp_name));
  }
  std::string order = nb::cast<std::string>(obj);
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

// The element a pending 0-d device array copies, when it is a[i, j] of a materialised array
// (device_element in bind_indexing.cpp makes a lazy copy node): its value is the source's, since
// a write to the source would have evaluated the copy first. Empty otherwise.
Array pending_element_source(const Array& a) {
  if (a.ndim() != 0 || !a.pending()) return Array();
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());  // an evaluation may drop its inputs
  const std::shared_ptr<Node> producer = a.storage->producer;
  const auto* copy = dynamic_cast<const CopyNode*>(producer.get());
  if (!copy || copy->done || copy->in_flight || copy->inputs.size() != 1) return Array();
  const Array& src = copy->inputs[0];
  if (src.ndim() != 0 || src.dtype != a.dtype || src.pending() || src.device() != a.device()) return Array();
  return src;
}

Array host_scalar(const Array& a) {
  if (!a.device().is_cpu()) {
    // float(a[i, j]) on a GPU: one read of the element, no copy kernel first.
    const Array src = pending_element_source(a);
    if (src.storage) {
      Array h = Array::empty({}, a.dtype, Device::cpu());
      run_blocking([&] { backend::copy_into(src, h); });
      return h;
    }
  }
  eval(a, FlushReason::HostRead);
  if (a.device().is_cpu()) return a;
  Array h = Array::empty({}, a.dtype, Device::cpu());
  run_blocking([&] { backend::copy_into(a, h); });  // the transfer waits for the device
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
  nb::object view = host_numpy_view(a, HostUse::Read);
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
    int t = PyObject_IsTrue(host_numpy_view(a, HostUse::Read).ptr());
    if (t < 0) throw nb::python_error();
    return t != 0;
  }
  return real_value(host_scalar(a)) != 0.0;
}

// a.strides = (...): deprecated by NumPy 2.4 but allowed, with NumPy's checks that the new
// strides stay inside the memory the array can reach. Strides count elements in numfuse, so
// byte strides that are not a multiple of the itemsize are refused.
void set_strides(Array& a, nb::handle value) {
  if (PyErr_WarnEx(PyExc_DeprecationWarning,
                   "Setting the strides on a NumPy array has been deprecated in NumPy 2.4.\n"
                   "As an alternative, you can create a new view using "
                   "np.lib.stride_tricks.as_strided.", 1) < 0) {
    throw nb::python_error();
  }
  std::vector<int64_t> bytes;
  if (!PySequence_Check(value.ptr())) throw TypeError("invalid strides");
  for (nb::handle h : value) {
    if (!PyIndex_Check(h.ptr())) throw TypeError("invalid strides");
    bytes.push_back(py_index(h));
  }
  if (static_cast<int>(bytes.size()) != a.ndim()) {
    throw ValueError("strides must be  same length as shape (" + std::to_string(a.ndim()) + ")");
  }
  const int64_t item = static_cast<int64_t>(a.itemsize());
  int64_t lo = a.byte_offset, hi = a.byte_offset + item;  // bytes reached, [lo, hi)
  for (int d = 0; d < a.ndim(); ++d) {
    if (a.shape[d] == 0) {
      lo = hi = a.byte_offset;
      break;
    }
    const int64_t span = (a.shape[d] - 1) * bytes[d];
    (span < 0 ? lo : hi) += span;
  }
  if (a.size() > 0 && (lo < 0 || hi > static_cast<int64_t>(a.storage->nbytes))) {
    throw ValueError("strides is not compatible with available memory");
  }
  Strides st(a.ndim());
  for (int d = 0; d < a.ndim(); ++d) {
    if (bytes[d] % item != 0) {
      throw ValueError("numfuse arrays take strides that are multiples of the itemsize (" +
                       std::to_string(item) + "), got " + std::to_string(bytes[d]));
    }
    st[d] = bytes[d] / item;
  }
  eval(a, FlushReason::Explicit);  // the new strides read the memory as it is now
  a.strides = st;
}

// A method's self: the Array and its Python object (views record the object as their base).
using Self = nb::pointer_and_handle<Array>;

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
  // Weak references are the type's own (untracked_arrays.cpp), not nanobind's.
  nb::class_<Array> cls(m, "ndarray", nb::type_slots(array_operator_slots())
                        NF_ARRAY_POOL, "An N-dimensional array on the CPU or a GPU, evaluated lazily.");
  untrack_array_type(cls);
  cls.def_prop_rw(
         "shape", [](const Array& a) { return to_tuple(a.shape); },
         [](Array& a, nb::handle shape) {
           Shape s = infer_reshape(int_list(shape, IntUse::Dim), a.size());
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
      .def_prop_rw("strides",
                   [](const Array& a) {
                     std::vector<int64_t> b;
                     for (int64_t s : a.strides) b.push_back(s * int64_t(a.itemsize()));
                     return to_tuple(b);
                   },
                   &set_strides)
      .def_prop_ro("device", [](const Array& a) { return a.device().str(); })
      // T: a getset of the type (slots.cpp)
      .def_prop_ro("mT",
                   [](Self self) {
                     if (self.p->ndim() < 2) {
                       throw ValueError("matrix transpose with ndim < 2 is undefined");
                     }
                     return as_view_of(self.h, swapaxes(*self.p, -1, -2));
                   })
      .def_prop_ro("base", [](const Array& a) { return base_of(a); })
      .def_prop_rw(
          "real", [](Self self) { return as_view_of(self.h, real_part(*self.p)); },
          [](const Array& a, nb::handle v) {
            assign(real_part(a), array_from_py(v, std::nullopt, a.device()));
          })
      .def_prop_rw(
          "imag", [](Self self) { return as_view_of(self.h, imag_part(*self.p)); },
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
           [](const Array& a, nb::handle dtype, nb::handle order, nb::handle casting_obj,
              nb::handle subok, nb::handle copy_obj) {
             DType d = dtype.is_none() ? DType::Float64 : dtype_from_py(dtype);
             if (!PyUnicode_Check(casting_obj.ptr())) {
               throw TypeError("casting must be str, not " +
                               std::string(Py_TYPE(casting_obj.ptr())->tp_name));
             }
             std::string casting = nb::cast<std::string>(casting_obj);
             Casting c = casting_from_str(casting);
             int copy_flag = PyObject_IsTrue(copy_obj.ptr());
             if (copy_flag < 0) throw nb::python_error();
             if (!can_cast(a.dtype, d, c)) {
               throw TypeError(std::string("Cannot cast array data from dtype('") +
                               dtype_name(a.dtype) + "') to dtype('" + dtype_name(d) +
                               "') according to the rule '" + casting + "'");
             }
             char o = order_char(order, 'K');
             Array r = astype(a, d, copy_flag != 0);
             if (o == 'F' && copy_flag) r = transpose(copy(transpose(r)));
             return r;
           },
           nb::arg("dtype").none(), nb::arg("order").none() = "K", nb::arg("casting").none() = "unsafe",
           nb::arg("subok").none() = true, nb::arg("copy").none() = true)
      .def("copy",
           [](const Array& a, nb::handle order) {
             char o = order_char(order, 'C');
             if (o == 'F' || (o == 'A' && a.f_contiguous() && !a.c_contiguous())) {
               // The column-major copy is a new storage of its own: it owns it (OWNDATA).
               Array f = transpose(copy(transpose(a)));
               f.is_view = false;
               return f;
             }
             return copy(a);
           },
           nb::arg("order").none() = "C")
      .def("__copy__", [](const Array& a) { return copy(a); })
      .def("__deepcopy__", [](const Array& a, nb::handle) { return copy(a); })
      .def("view",
           [](Self self, nb::handle dtype) {
             const Array& a = *self.p;
             if (dtype.is_none()) return as_view_of(self.h, a.view(a.shape, a.strides, a.byte_offset));
             return as_view_of(self.h, a.view_as_dtype(dtype_from_py(dtype)));
           },
           nb::arg("dtype").none() = nb::none())
      .def("reshape",
           [](Self self, nb::args shape, nb::handle order) {
             if (shape.size() == 0) throw TypeError("reshape() takes exactly 1 argument (0 given)");
             if (shape.size() == 1 && shape[0].is_none()) {  // NumPy: reshape(None) keeps the shape
               return as_view_of(self.h, self.p->view(self.p->shape, self.p->strides, self.p->byte_offset));
             }
             return as_view_of(self.h, reshape(*self.p, args_to_ints(shape, IntUse::Dim), order_char(order, 'C')));
           },
           nb::arg("shape"), nb::kw_only(), nb::arg("order").none() = "C")
      .def("ravel",
           [](Self self, nb::handle order) { return as_view_of(self.h, ravel(*self.p, order_char(order, 'C'))); },
           nb::arg("order").none() = "C")
      .def("flatten",
           [](const Array& a, nb::handle order) {
             char o = order_char(order, 'C');
             return o == 'F' ? ravel(copy(transpose(a)), 'C') : ravel(copy(a), 'C');
           },
           nb::arg("order").none() = "C")
      .def("transpose",
           [](Self self, nb::args axes) {
             if (axes.size() == 0 || (axes.size() == 1 && axes[0].is_none())) {
               return as_view_of(self.h, transpose(*self.p));
             }
             return as_view_of(self.h, transpose(*self.p, args_to_ints(axes, IntUse::Dim)));
           },
           nb::arg("axes"))
      .def("swapaxes",
           [](Self self, nb::handle axis1, nb::handle axis2) {
             return as_view_of(self.h, swapaxes(*self.p, py_index(axis1, IntUse::CInt), py_index(axis2, IntUse::CInt)));
           },
           nb::arg("axis1"), nb::arg("axis2"))
      .def("squeeze",
           [](Self self, nb::handle axis) -> nb::object {
             const Array& a = *self.p;
             Array r;
             if (axis.is_none()) {
               r = squeeze(a);
             } else {
               std::vector<int64_t> axes = axis_tuple(axis);  // axis=(): nothing, as in NumPy
               // NumPy accepts a single axis 0 or -1 (not a tuple) on a 0-d array.
               const bool single = !PyTuple_Check(axis.ptr());
               if (a.ndim() == 0 && single && (axes[0] == 0 || axes[0] == -1)) axes.clear();
               r = squeeze(a, axes);
             }
             // NumPy returns the array itself when nothing is squeezed (so its base is the
             // array's own: None for an owner).
             if (r.ndim() == a.ndim()) return nb::borrow(self.h);
             return nb::cast(as_view_of(self.h, r));
           },
           nb::arg("axis").none() = nb::none())
      .def("diagonal",
           [](Self self, nb::handle offset, nb::handle axis1, nb::handle axis2) {
             return as_view_of(self.h, diagonal(*self.p, py_index(offset, IntUse::CInt), py_index(axis1, IntUse::CInt),
                                                py_index(axis2, IntUse::CInt)));
           },
           nb::arg("offset") = 0, nb::arg("axis1") = 0, nb::arg("axis2") = 1)
      .def("fill",
           [](const Array& a, nb::handle value) {
             assign(a, value_from_py(value, a.dtype, a.device()));  // NumPy's checks of the scalar
           },
           nb::arg("value").none())
      .def("_eval", [](const Array& a) { eval(a, FlushReason::Explicit); })
      .def("__float__", &to_float)
      .def("__int__", &to_int)
      .def("__bool__", &to_bool)
      .def("_host_view", [](const Array& a) { return host_numpy_view(a, HostUse::Export); })
      .def("_host_read", [](const Array& a) { return host_numpy_view(a, HostUse::Read); })
      .def("_host_copy", &host_numpy_copy)
      .def("__len__",
           [](const Array& a) {
             if (a.ndim() == 0) throw TypeError("len() of unsized object");
             return a.shape[0];
           });
  cls.attr("__hash__") = nb::none();
  cls.attr("__array_priority__") = 100;
  // asnumpy's common case in one call: the NumPy view of a CPU array whose layout already is what
  // `order` asks for ('C', 'F', 'A', 'K'); None for anything else (device arrays, other objects,
  // a layout to change), which asnumpy then handles in Python.
  m.def("_host_view_if_laid_out", [](nb::handle h, nb::handle order) -> nb::object {
    if (!is_array(h.ptr())) return nb::none();
    const Array& a = *nb::inst_ptr<Array>(h);
    if (!a.device().is_cpu()) return nb::none();
    char o = 'K';
    if (!order.is_none()) {
      if (!PyUnicode_Check(order.ptr()) || PyUnicode_GetLength(order.ptr()) != 1) return nb::none();
      o = static_cast<char>(PyUnicode_READ_CHAR(order.ptr(), 0) & ~0x20);  // upper case
    }
    const bool ok = o == 'K' || (o == 'C' && a.c_contiguous()) || (o == 'F' && a.f_contiguous()) ||
                    (o == 'A' && (a.c_contiguous() || a.f_contiguous()));
    if (!ok) return nb::none();
    return host_numpy_view(a, HostUse::Export);
  });
}

}  // namespace nf::py
