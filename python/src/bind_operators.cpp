// ndarray's Python operators as raw number / rich-comparison slots of its type: `b = b + 1.0` in
// a Python loop reaches ufunc2 without nanobind's method lookup and argument dispatch. The Python
// scalar side of an operator is weak (NEP 50); operands that are not numfuse arrays or Python
// scalars go through operand_from_py (numpy.asarray) as every ufunc operand does.
#include "bindings.h"
#include "numfuse/ops/linalg.h"

namespace nf::py {

namespace {

const Array& as_array(PyObject* h) { return *nb::inst_ptr<Array>(h); }

PyObject* result(Array r) { return new_array_object(std::move(r)); }

// x op y, where x or y (or both) is an ndarray: the reflected form when only y is.
template <UFunc op>
PyObject* binary(PyObject* x, PyObject* y) {
  // The shortest paths of a Python loop's `a + b` and `a * 0.5`: no operand copies.
  if (is_exact_array(x)) {
    Array r;
    if (is_exact_array(y) ? ufunc2_arrays_now(op, as_array(x), as_array(y), &r)
                          : PyFloat_CheckExact(y) && ufunc2_array_float_now(op, as_array(x), PyFloat_AS_DOUBLE(y), false, &r)) {
      return result(std::move(r));
    }
  } else if (PyFloat_CheckExact(x) && is_exact_array(y)) {
    Array r;
    if (ufunc2_array_float_now(op, as_array(y), PyFloat_AS_DOUBLE(x), true, &r)) return result(std::move(r));
  }
  if (is_array(x)) {
    const Array& a = as_array(x);
    return result(ufunc2(op, Operand::of(a), operand_from_py(y, a.device())));
  }
  if (is_array(y)) {
    const Array& b = as_array(y);
    return result(ufunc2(op, operand_from_py(x, b.device()), Operand::of(b)));
  }
  Py_RETURN_NOTIMPLEMENTED;
}

template <UFunc op>
PyObject* binary_slot(PyObject* x, PyObject* y) {
  try {
    try {
      return binary<op>(x, y);
    } catch (const UnsupportedOperand&) {
      raise_no_loop(op, {x, y});  // `a + 'x'`: NumPy's UFuncTypeError
    }
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

// NumPy compares an array with values it holds as strings or Python objects (`a == None`,
// `a == 'x'`, `a < None`) through its own loops: an array of False for ==, NumPy's TypeError
// for <. Such comparisons take NumPy's answer, computed on the host, as it is.
PyObject* compare_on_host(PyObject* self, PyObject* other, int cmp) {
  const Array& a = as_array(self);
  nb::object view = host_numpy_view(a, HostUse::Read);
  PyObject* r = PyObject_RichCompare(view.ptr(), other, cmp);
  if (!r) throw nb::python_error();
  nb::object res = nb::steal(r);
  if (res.is(nb::handle(Py_NotImplemented))) return res.release().ptr();
  return result(array_from_py(res, std::nullopt, a.device()));
}

template <UFunc op>
PyObject* compare_slot(PyObject* self, PyObject* other, int cmp) {
  try {
    try {
      return binary<op>(self, other);
    } catch (const UnsupportedOperand&) {
      return compare_on_host(self, other, cmp);
    }
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

// self op= y: the result is written into self (NumPy's out=self), which is returned.
template <UFunc op>
PyObject* inplace_slot(PyObject* self, PyObject* y) {
  try {
    if (!is_array(self)) Py_RETURN_NOTIMPLEMENTED;
    const Array& a = as_array(self);
    Operand v;
    try {
      v = operand_from_py(y, a.device());
    } catch (const UnsupportedOperand&) {
      raise_no_loop(op, {self, y});
    }
    ufunc2_inplace(op, a, v);
    Py_INCREF(self);
    return self;
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

template <UFunc op>
PyObject* unary_slot(PyObject* x) {
  try {
    return result(ufunc1(op, Operand::of(as_array(x))));
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

// NumPy's fast_scalar_power: a ** 2 is square(a), a ** 0.5 sqrt(a), a ** -1 reciprocal(a) for
// inexact arrays (and ** 2 for integers), with the same result dtypes and far cheaper than pow.
UFunc fast_power(const Array& a, PyObject* p) {
  if (!PyFloat_CheckExact(p) && !PyLong_CheckExact(p)) return UFunc::Power;
  double e = PyFloat_CheckExact(p) ? PyFloat_AS_DOUBLE(p) : PyLong_AsDouble(p);
  if (PyErr_Occurred()) PyErr_Clear();
  UFunc fast = UFunc::Power;
  if (e == 2.0) fast = UFunc::Square;
  if (is_inexact(a.dtype) && e == 0.5) fast = UFunc::Sqrt;
  if (is_inexact(a.dtype) && e == -1.0) fast = UFunc::Reciprocal;
  // An integer array with a float exponent promotes to float64: leave that to power.
  if (fast != UFunc::Power && !is_inexact(a.dtype) && !PyLong_CheckExact(p)) return UFunc::Power;
  return fast;
}

PyObject* power_slot(PyObject* x, PyObject* y, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;  // pow(a, b, m): NumPy has no such loop either
  try {
    if (is_array(x)) {
      const Array& a = as_array(x);
      UFunc fast = fast_power(a, y);
      if (fast != UFunc::Power) return result(ufunc1(fast, Operand::of(a)));
    }
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
  return binary_slot<UFunc::Power>(x, y);
}

PyObject* inplace_power_slot(PyObject* self, PyObject* y, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace_slot<UFunc::Power>(self, y);
}

// divmod(x, y) and divmod(y, x): NumPy's divmod ufunc, a tuple (floor quotient, remainder).
PyObject* divmod_slot(PyObject* x, PyObject* y) {
  try {
    try {
      const bool left = is_array(x);
      if (!left && !is_array(y)) Py_RETURN_NOTIMPLEMENTED;
      const Device device = as_array(left ? x : y).device();
      std::vector<Operand> ins;
      ins.push_back(left ? Operand::of(as_array(x)) : operand_from_py(x, device));
      ins.push_back(left ? operand_from_py(y, device) : Operand::of(as_array(y)));
      std::vector<Array> r = ufunc(UFunc::Divmod, ins, UFuncOptions{});
      nb::object q = nb::steal(result(std::move(r[0])));
      nb::object m = nb::steal(result(std::move(r[1])));
      return nb::make_tuple(q, m).release().ptr();
    } catch (const UnsupportedOperand&) {
      raise_no_loop(UFunc::Divmod, {x, y});
    }
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

// x @ y (and the reflected y @ x): matmul with its defaults, as numfuse.matmul(x, y) computes it.
// A slot, not a Python __matmul__ calling _core.matmul: `out[i] = v @ M[:, i:i+64]` in a loop
// then pays no Python frame and no nanobind dispatch of four arguments.
PyObject* matmul_slot(PyObject* x, PyObject* y) {
  try {
    if (!is_array(x) && !is_array(y)) Py_RETURN_NOTIMPLEMENTED;
    Array r;
    if (is_exact_array(x) && is_exact_array(y) && matmul_now(as_array(x), as_array(y), &r))
      return new_result_object(std::move(r));
    const Device dev = operands_device({nb::handle(x), nb::handle(y)});
    // Two vectors: NumPy's scalar on the CPU, as numpy.matmul returns (new_result_object).
    return new_result_object(matmul(array_from_py(x, std::nullopt, dev),
                                    array_from_py(y, std::nullopt, dev), std::nullopt,
                                    Casting::SameKind));
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

PyObject* richcompare_slot(PyObject* self, PyObject* other, int cmp) {
  switch (cmp) {
    case Py_LT: return compare_slot<UFunc::Less>(self, other, cmp);
    case Py_LE: return compare_slot<UFunc::LessEqual>(self, other, cmp);
    case Py_EQ: return compare_slot<UFunc::Equal>(self, other, cmp);
    case Py_NE: return compare_slot<UFunc::NotEqual>(self, other, cmp);
    case Py_GT: return compare_slot<UFunc::Greater>(self, other, cmp);
    case Py_GE: return compare_slot<UFunc::GreaterEqual>(self, other, cmp);
  }
  Py_RETURN_NOTIMPLEMENTED;
}

template <class F>
constexpr PyType_Slot slot(int id, F* f) {
  return PyType_Slot{id, reinterpret_cast<void*>(f)};
}

PyType_Slot g_operator_slots[] = {
    slot(Py_nb_add, &binary_slot<UFunc::Add>),
    slot(Py_nb_inplace_add, &inplace_slot<UFunc::Add>),
    slot(Py_nb_subtract, &binary_slot<UFunc::Subtract>),
    slot(Py_nb_inplace_subtract, &inplace_slot<UFunc::Subtract>),
    slot(Py_nb_multiply, &binary_slot<UFunc::Multiply>),
    slot(Py_nb_inplace_multiply, &inplace_slot<UFunc::Multiply>),
    slot(Py_nb_true_divide, &binary_slot<UFunc::TrueDivide>),
    slot(Py_nb_inplace_true_divide, &inplace_slot<UFunc::TrueDivide>),
    slot(Py_nb_floor_divide, &binary_slot<UFunc::FloorDivide>),
    slot(Py_nb_inplace_floor_divide, &inplace_slot<UFunc::FloorDivide>),
    slot(Py_nb_remainder, &binary_slot<UFunc::Remainder>),
    slot(Py_nb_inplace_remainder, &inplace_slot<UFunc::Remainder>),
    slot(Py_nb_divmod, &divmod_slot),
    slot(Py_nb_power, &power_slot),
    slot(Py_nb_inplace_power, &inplace_power_slot),
    slot(Py_nb_and, &binary_slot<UFunc::BitwiseAnd>),
    slot(Py_nb_inplace_and, &inplace_slot<UFunc::BitwiseAnd>),
    slot(Py_nb_or, &binary_slot<UFunc::BitwiseOr>),
    slot(Py_nb_inplace_or, &inplace_slot<UFunc::BitwiseOr>),
    slot(Py_nb_xor, &binary_slot<UFunc::BitwiseXor>),
    slot(Py_nb_inplace_xor, &inplace_slot<UFunc::BitwiseXor>),
    slot(Py_nb_lshift, &binary_slot<UFunc::LeftShift>),
    slot(Py_nb_inplace_lshift, &inplace_slot<UFunc::LeftShift>),
    slot(Py_nb_rshift, &binary_slot<UFunc::RightShift>),
    slot(Py_nb_inplace_rshift, &inplace_slot<UFunc::RightShift>),
    slot(Py_nb_matrix_multiply, &matmul_slot),  // __imatmul__: numfuse._linalg._matmul_i
    slot(Py_nb_negative, &unary_slot<UFunc::Negative>),
    slot(Py_nb_positive, &unary_slot<UFunc::Positive>),
    slot(Py_nb_absolute, &unary_slot<UFunc::Absolute>),
    slot(Py_nb_invert, &unary_slot<UFunc::Invert>),
    slot(Py_tp_richcompare, &richcompare_slot),
    slot(Py_mp_subscript, &getitem_slot),  // bind_indexing.cpp
    slot(Py_mp_ass_subscript, &setitem_slot),
    {Py_tp_getset, nullptr},  // array_getset(), set below (slots.cpp)
    {0, nullptr},
};

}  // namespace

PyType_Slot* array_operator_slots() {
  for (PyType_Slot& s : g_operator_slots) {
    if (s.slot == Py_tp_getset) s.pfunc = array_getset();
  }
  return g_operator_slots;
}

}  // namespace nf::py
