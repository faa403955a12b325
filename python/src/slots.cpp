// Raw CPython type slots (ufunc.__call__, the ndarray operators) skip nanobind's dispatch: they
// are the hottest calls of a Python loop. What they share: the exact-type test and the way a C++
// exception thrown in a slot reaches nanobind's translators (NumPy's exception classes).
#include "bindings.h"
#include "numfuse/graph/eval.h"

namespace nf::py {

namespace {
thread_local std::exception_ptr t_slot_exception;
nb::object* g_rethrow = nullptr;
}  // namespace

void init_slots(nb::module_&) {
  // A bound function that rethrows the pending exception: nanobind translates it on the way out.
  g_rethrow = new nb::object(nb::cpp_function([]() {
    std::exception_ptr p = std::move(t_slot_exception);
    t_slot_exception = nullptr;
    std::rethrow_exception(p);
  }));
}

PyObject* raise_from_slot(std::exception_ptr p) {
  t_slot_exception = std::move(p);
  PyObject* r = PyObject_CallNoArgs(g_rethrow->ptr());  // always NULL, the error set
  Py_XDECREF(r);
  return nullptr;
}

namespace {
PyTypeObject* array_type() {
  static PyTypeObject* t = reinterpret_cast<PyTypeObject*>(nb::type<Array>().ptr());
  return t;
}
}  // namespace

bool is_exact_array(PyObject* h) { return Py_TYPE(h) == array_type(); }

PyObject* new_array_object(Array&& a) {
  // nb::cast would first look the temporary's address up among live instances and the type up
  // by its type_info; a new result needs neither.
  nb::object o = nb::inst_alloc(nb::handle(reinterpret_cast<PyObject*>(array_type())));
  if (!o.is_valid()) throw nb::python_error();
  new (nb::inst_ptr<Array>(o)) Array(std::move(a));
  nb::inst_mark_ready(o);
  return o.release().ptr();
}

// NumPy's scalar for a 0-d CPU result; `a[i, j]` of a CPU array reads its element the same way.
PyObject* new_result_object(Array&& a) {
  if (a.ndim() != 0 || !a.device().is_cpu()) return new_array_object(std::move(a));
  eval(a, FlushReason::HostRead);
  return numpy_scalar(a.dtype, a.data());
}

PyObject* new_view_object(nb::handle self, Shape&& shape, Strides&& strides, int64_t byte_offset) {
  return new_view_object(self, *nb::inst_ptr<Array>(self), std::move(shape), std::move(strides),
                         byte_offset);
}

PyObject* new_view_object(nb::handle self, const Array& a, Shape&& shape, Strides&& strides,
                          int64_t byte_offset) {
  nb::object o = nb::inst_alloc(nb::handle(reinterpret_cast<PyObject*>(array_type())));
  if (!o.is_valid()) throw nb::python_error();
  // Built where it lives (a[i, :] in a Python loop): what Array::view and as_view_of make,
  // without moving the Array through them into the object.
  // Default-initialised, not value-initialised (`Array()`), which zeroed its 200 bytes with a
  // rep stos first: a tenth of the cost of a[i].
  Array* v = new (nb::inst_ptr<Array>(o)) Array;
  v->dtype = a.dtype;
  v->shape = std::move(shape);
  v->strides = std::move(strides);
  v->byte_offset = byte_offset;
  v->storage = a.storage;
  v->writeable = a.writeable;
  v->is_view = true;
  // self's Array is its object's own (the owner link is a field of the object, not of the view).
  v->base = a.base ? a.base : base_reference(self, const_cast<Array&>(a));
  nb::inst_mark_ready(o);
  return o.release().ptr();
}

namespace {
// ndarray.T as a getset of the type, not a nanobind property: a.T in a loop (`A.T @ y`, `x.T[i]`)
// then costs what a[i] costs, without a function dispatch and transpose()'s axis vectors.
PyObject* transpose_getter(PyObject* self, void*) {
  try {
    const Array& a = *nb::inst_ptr<Array>(self);
    // Copied reversed, not sized first (`Shape shape(n)` zeroed them with a call to memset).
    return new_view_object(self, a, Shape(a.shape.rbegin(), a.shape.rend()),
                           Strides(a.strides.rbegin(), a.strides.rend()), a.byte_offset);
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

PyGetSetDef g_array_getset[] = {
    {"T", &transpose_getter, nullptr, "View of the transposed array (its axes reversed).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};
}  // namespace

PyGetSetDef* array_getset() { return g_array_getset; }

bool is_array(PyObject* h) { return is_exact_array(h) || nb::isinstance<Array>(nb::handle(h)); }

}  // namespace nf::py
