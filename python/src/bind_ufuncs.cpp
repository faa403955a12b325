// numfuse's ufunc objects (numfuse.add, numfuse.sin, ...), where, and dtype helpers.
#include <nanobind/stl/pair.h>

#include <exception>
#include <unordered_map>

#include "bindings.h"
#include "numfuse/core/error.h"

namespace nf::py {

namespace {

struct UFuncObject {
  UFunc op;
};

// where= as NumPy takes it: anything that casts safely to bool (TypeError otherwise).
Array where_mask(nb::handle value, Device device) {
  Array w = array_from_py(value, std::nullopt, device);
  if (!can_cast(w.dtype, DType::Bool, Casting::Safe)) {
    throw TypeError(std::string("Cannot cast array data from dtype('") + dtype_name(w.dtype) +
                    "') to dtype('bool') according to the rule 'safe'");
  }
  return w;
}

nb::object call_ufunc(const UFuncObject& self, nb::args args, nb::kwargs kwargs) {
  const int nin = ufunc_nin(self.op), nout = ufunc_nout(self.op);
  const size_t nargs = args.size();
  if (nargs < size_t(nin) || nargs > size_t(nin + nout)) {
    throw TypeError(std::string(ufunc_name(self.op)) + "() takes from " + std::to_string(nin) +
                    " to " + std::to_string(nin + nout) + " positional arguments but " +
                    std::to_string(nargs) + " were given");
  }
  UFuncOptions opts;
  nb::object out_obj = nb::none();
  bool out_keyword = false;  // out= given, None included (NumPy's way to silence the where= warning)
  if (nargs > size_t(nin)) {
    nb::list outs;
    for (size_t i = nin; i < nargs; ++i) outs.append(args[i]);
    out_obj = nb::tuple(outs);
  }
  // Operands that are not numfuse arrays (lists, NumPy arrays) go where the array operands live.
  std::vector<nb::handle> inputs;
  for (size_t i = 0; i < nargs && i < size_t(nin); ++i) inputs.push_back(args[i]);
  const Device device = operands_device(inputs.data(), inputs.size());
  for (auto [key, value] : kwargs) {
    std::string k = nb::cast<std::string>(key);
    if (k == "out") {
      if (!out_obj.is_none()) throw TypeError("cannot specify 'out' as both a positional and keyword argument");
      out_obj = nb::borrow(value);
      out_keyword = true;
    } else if (k == "where") {
      if (value.ptr() != Py_True && !value.is_none()) opts.where = where_mask(value, device);
    } else if (k == "dtype") {
      opts.dtype = optional_dtype(value);
    } else if (k == "casting") {
      if (!PyUnicode_Check(value.ptr())) {
        throw TypeError(std::string("casting must be str, not ") + Py_TYPE(value.ptr())->tp_name);
      }
      opts.casting = casting_from_str(nb::cast<std::string>(value));
    } else if (k == "order" || k == "subok") {
      // Results are always C-ordered base-class arrays.
    } else if (k == "signature") {
      if (!value.is_none()) opts.dtype = dtype_from_py(nb::isinstance<nb::tuple>(value) ? value[nin] : value);
    } else {
      throw TypeError("'" + k + "' is an invalid keyword to ufunc '" + ufunc_name(self.op) + "'");
    }
  }
  if (!out_obj.is_none()) {
    auto take = [&](nb::handle h) {
      if (h.is_none()) {
        opts.out.emplace_back(std::nullopt);
      } else if (nb::isinstance<Array>(h)) {
        opts.out.emplace_back(nb::cast<const Array&>(h));
      } else {
        throw TypeError("return arrays must be of ArrayType");
      }
    };
    if (nb::isinstance<nb::tuple>(out_obj)) {
      if (nb::len(out_obj) != size_t(nout)) {
        throw ValueError("The 'out' tuple must have exactly one entry per ufunc output");
      }
      for (nb::handle h : out_obj) take(h);
    } else {
      if (nout != 1) throw TypeError("'out' must be a tuple of arrays");
      take(out_obj);
    }
  }
  if (opts.where && out_obj.is_none() && !out_keyword &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "'where' used without 'out', expect unitialized memory in output. If this is "
                   "intentional, use out=None.", 1) != 0) {
    throw nb::python_error();
  }
  std::vector<Operand> ins;
  ins.reserve(static_cast<size_t>(nin));
  try {
    for (int i = 0; i < nin; ++i) ins.push_back(operand_from_py(args[i], device));
  } catch (const UnsupportedOperand&) {
    std::vector<nb::handle> given;
    for (int i = 0; i < nin; ++i) given.push_back(args[i]);
    raise_no_loop(self.op, given);
  }
  std::vector<Array> res = ufunc(self.op, ins, opts);
  // NumPy returns the given out= objects themselves.
  auto result = [&](int j) -> nb::object {
    if (j < static_cast<int>(opts.out.size()) && opts.out[j]) {
      return nb::isinstance<nb::tuple>(out_obj) ? nb::borrow(out_obj[j]) : out_obj;
    }
    return nb::cast(res[j]);
  };
  if (nout == 1) return result(0);
  return nb::make_tuple(result(0), result(1));
}

// A Python number or a NumPy scalar of one of numfuse's dtypes: what a loop over a CPU array's
// elements computes with (`np.sqrt(A[i, i])`).
bool host_scalar(PyObject* o) {
  DType d;
  const void* v;
  return PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o) ||
         PyComplex_CheckExact(o) || numpy_scalar_value(o, &d, &v);
}

// NumPy's ufunc of op's name (nullptr if NumPy has none), looked up once.
PyObject* numpy_ufunc(UFunc op) {
  static PyObject* table[kNumUFuncs] = {};
  static bool looked[kNumUFuncs] = {};
  const int k = static_cast<int>(op);
  if (!looked[k]) {
    PyObject* f = PyObject_GetAttrString(numpy().ptr(), ufunc_name(op));
    if (!f) PyErr_Clear();
    table[k] = f;  // kept: NumPy's ufuncs live as long as NumPy
    looked[k] = true;
  }
  return table[k];
}

// ufunc.__call__ as the type's tp_call: numfuse.sin(a) and numfuse.add(a, 1.0) are as hot as
// operators. Positional array / host-scalar operands go straight to ufunc1/ufunc2; anything
// else (out=, where=, dtype=, NumPy arrays, lists) through call_ufunc.
PyObject* ufunc_call(const UFuncObject& u, PyObject* args, PyObject* kwargs) {
  try {
    const int nin = ufunc_nin(u.op);
    const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    const bool no_kwargs = !kwargs || PyDict_GET_SIZE(kwargs) == 0;
    if (no_kwargs && nargs == nin && nin <= 2 && ufunc_nout(u.op) == 1) {
      PyObject* a0 = PyTuple_GET_ITEM(args, 0);
      PyObject* a1 = nin == 2 ? PyTuple_GET_ITEM(args, 1) : nullptr;
      if (host_scalar(a0) && (!a1 || host_scalar(a1))) {
        // Scalars only, bound for the CPU (no GPU is the default device): NumPy's result, a NumPy
        // scalar, is the answer numfuse would compute, from NumPy's own loop (same errstate).
        const nb::handle ins[2] = {a0, a1};
        if (operands_device(ins, a1 ? 2 : 1).is_cpu()) {
          if (PyObject* f = numpy_ufunc(u.op)) return PyObject_Call(f, args, nullptr);
        }
      }
      auto simple = [](PyObject* o) { return is_exact_array(o) || host_scalar(o); };
      if (simple(a0) && (!a1 || simple(a1))) {
        // Operands that are not arrays go where the array operands live (as call_ufunc does).
        const nb::handle ins[2] = {a0, a1};
        const Device device = operands_device(ins, a1 ? 2 : 1);
        Operand x = operand_from_py(a0, device);
        Array r = a1 ? ufunc2(u.op, x, operand_from_py(a1, device)) : ufunc1(u.op, x);
        return new_array_object(std::move(r));
      }
    }
    nb::object r = call_ufunc(u, nb::borrow<nb::args>(args),
                              kwargs ? nb::borrow<nb::kwargs>(kwargs) : nb::kwargs());
    return r.release().ptr();
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

PyObject* ufunc_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  return ufunc_call(*nb::inst_ptr<UFuncObject>(self), args, kwargs);
}

PyType_Slot g_ufunc_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&ufunc_tp_call)}, {0, nullptr}};

// ndarray.__array_ufunc__ (NumPy's override protocol) for its hottest call: a NumPy ufunc called
// with positional operands only, as `numpy.float64(2.0) * a` reaches it (a NumPy scalar does not
// defer to an operand that has __array_ufunc__: NumPy calls numpy.multiply, which calls this).
// Such a call goes straight to numfuse's ufunc of the same name; anything else (ufunc methods,
// keywords, names numfuse lacks or wraps in Python) to the Python implementation in _interop.py.
// Neither numfuse's ufunc objects nor that function are held here: a reference kept in C++ would
// outlive nanobind's shutdown (docs/architecture.md).

// The op of numfuse's C++ ufunc of the same name as NumPy's `np_ufunc` (-1 when numfuse's object
// of that name is not one), looked up once per NumPy ufunc; called with the GIL held.
int numfuse_ufunc_for(PyObject* np_ufunc) {
  static std::unordered_map<PyObject*, int> found;  // NumPy's ufuncs, kept: they live as long as NumPy
  auto it = found.find(np_ufunc);
  if (it != found.end()) return it->second;
  int op = -1;
  nb::object name = nb::steal(PyObject_GetAttrString(np_ufunc, "__name__"));
  if (name.is_valid() && PyUnicode_Check(name.ptr())) {
    nb::object ours = nb::steal(PyObject_GetAttr(nb::module_::import_("numfuse").ptr(), name.ptr()));
    if (ours.is_valid() && nb::isinstance<UFuncObject>(ours))
      op = static_cast<int>(nb::cast<const UFuncObject&>(ours).op);
  }
  PyErr_Clear();
  Py_INCREF(np_ufunc);
  found.emplace(np_ufunc, op);
  return op;
}

PyObject* array_ufunc(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  try {
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs >= 4 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) && PyUnicode_Check(args[2]) &&
        PyUnicode_CompareWithASCIIString(args[2], "__call__") == 0) {
      const int op = numfuse_ufunc_for(args[1]);
      if (op >= 0) {
        nb::object inputs = nb::steal(PyTuple_New(nargs - 3));
        if (!inputs.is_valid()) return nullptr;
        for (Py_ssize_t i = 3; i < nargs; ++i) {
          Py_INCREF(args[i]);
          PyTuple_SET_ITEM(inputs.ptr(), i - 3, args[i]);
        }
        return ufunc_call(UFuncObject{static_cast<UFunc>(op)}, inputs.ptr(), nullptr);
      }
    }
    nb::object fallback = nb::module_::import_("numfuse._interop").attr("__array_ufunc__");
    return PyObject_Vectorcall(fallback.ptr(), args, nargsf, kwnames);
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

PyMethodDef g_array_ufunc_def = {
    "__array_ufunc__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&array_ufunc)),
    METH_FASTCALL | METH_KEYWORDS, "NumPy's ufunc override protocol: numfuse's ufunc runs."};

}  // namespace

void bind_ufuncs(nb::module_& m) {
  nb::class_<UFuncObject>(m, "ufunc", "A NumPy-compatible universal function.",
                          nb::type_slots(g_ufunc_slots))
      // A property named __name__ would clash with the type's own; instances answer it here.
      .def("__getattr__",
           [](const UFuncObject& u, const std::string& name) -> nb::object {
             if (name == "__name__") return nb::str(ufunc_name(u.op));
             throw nb::attribute_error(("'ufunc' object has no attribute '" + name + "'").c_str());
           })
      .def_prop_ro("nin", [](const UFuncObject& u) { return ufunc_nin(u.op); })
      .def_prop_ro("nout", [](const UFuncObject& u) { return ufunc_nout(u.op); })
      .def_prop_ro("nargs", [](const UFuncObject& u) { return ufunc_nin(u.op) + ufunc_nout(u.op); })
      .def_prop_ro("_id", [](const UFuncObject& u) { return static_cast<int>(u.op); })
      .def("__repr__", [](const UFuncObject& u) { return std::string("<ufunc '") + ufunc_name(u.op) + "'>"; });
  nb::dict ufuncs;
  for (int i = 0; i < kNumUFuncs; ++i) {
    UFunc op = static_cast<UFunc>(i);
    ufuncs[ufunc_name(op)] = nb::cast(UFuncObject{op});
  }
  m.attr("ufuncs") = ufuncs;

  // ndarray.__array_ufunc__ (array_ufunc above): an instance method, so that a.__array_ufunc__
  // binds a as a Python function would; NumPy calls it with the array first.
  nb::object array_ufunc_fn = nb::steal(PyCFunction_New(&g_array_ufunc_def, nullptr));
  m.attr("array_ufunc_method") = nb::steal(PyInstanceMethod_New(array_ufunc_fn.ptr()));

  m.def("where", [](nb::handle c, nb::handle x, nb::handle y) {
    const Device d = operands_device({c, x, y});
    return where(operand_from_py(c, d), operand_from_py(x, d), operand_from_py(y, d));
  });
  m.def("result_type_pair", [](nb::handle a, nb::handle b) {
    const Device d = operands_device({a, b});  // only dtypes are read
    Operand x = operand_from_py(a, d), y = operand_from_py(b, d);
    OperandType t[2] = {{x.array.dtype, x.weak}, {y.array.dtype, y.weak}};
    return dtype_to_py(result_type(t, 2));
  });
  m.def("can_cast_dtype", [](nb::handle from, nb::handle to, const std::string& casting) {
    return can_cast(dtype_from_py(from), dtype_from_py(to), casting_from_str(casting));
  });
  m.def("promote_types", [](nb::handle a, nb::handle b) {
    return dtype_to_py(promote_types(dtype_from_py(a), dtype_from_py(b)));
  });
}

}  // namespace nf::py
