// What the construction functions need of the core that no composition of ops gives:
// - _strided_view: a view of any shape, strides and offset onto the memory of a C-contiguous
//   array, for NumPy's ndarray(shape, dtype, buffer=a, offset, strides). Python checks the
//   arguments with NumPy's messages (_construction.py); this file checks what the core needs (the
//   view stays inside the buffer, elements are aligned), so no call reaches memory outside the
//   storage. Existing views cannot express arbitrary (overlapping, zero, negative) strides.
// - ndarray.__init__: nanobind constructs instances through the type's vectorcall, so a Python
//   __new__ is never called; the constructor here builds the Array in place from what
//   numfuse._construction.ndarray_new returns.
// - _replace_contents: an array object takes another's contents (dtype, shape, memory): the
//   in-place ndarray.resize and __setstate__ change the object the user holds.
// - _memory_layout: which storage an array views and where, for shares_memory.
#include <algorithm>

#include "bindings.h"

namespace nf::py {

namespace {

Array strided_view(nb::handle self, nb::handle shape_obj, nb::handle dtype_obj, int64_t offset,
                   const std::vector<int64_t>& byte_strides, bool owner) {
  const Array& a = *nb::inst_ptr<Array>(self);
  if (!a.c_contiguous()) throw ValueError("ndarray is not C-contiguous");
  const Shape shape = py_shape(shape_obj);
  const DType d = dtype_from_py(dtype_obj);
  const int64_t item = static_cast<int64_t>(itemsize(d));
  if (byte_strides.size() != shape.size()) {
    throw ValueError("strides, if given, must be the same length as shape");
  }
  // The bytes the view reaches, relative to the start of `a`'s memory: [lo, hi).
  const int64_t begin = offset;
  int64_t lo = begin, hi = begin + item;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) empty = true;
    const int64_t span = (shape[i] - 1) * byte_strides[i];
    (span < 0 ? lo : hi) += span;
  }
  if (!empty && (lo < 0 || hi > static_cast<int64_t>(a.nbytes()))) {
    throw ValueError("strides is incompatible with shape of requested array and size of buffer");
  }
  // The core (and CUDA's loads) index in whole elements from an aligned start.
  Strides strides(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (byte_strides[i] % item != 0) {
      throw ValueError("numfuse arrays take strides that are multiples of the itemsize (" +
                       std::to_string(item) + "), got " + std::to_string(byte_strides[i]));
    }
    strides[i] = byte_strides[i] / item;
  }
  const int64_t byte_offset = a.byte_offset + begin;
  if (byte_offset % item != 0) {
    throw ValueError("numfuse arrays start on a multiple of their itemsize (" +
                     std::to_string(item) + "): offset " + std::to_string(offset) +
                     " is not aligned");
  }
  Array v = a.view(shape, strides, byte_offset);
  v.dtype = d;
  if (owner) {
    // A new array laid out by strides over memory allocated for it alone (ndarray(order='F')):
    // it owns that memory, as NumPy's does (OWNDATA, no base).
    if (a.is_view || a.base) throw ValueError("_strided_view: owner=True needs a new array");
    v.is_view = false;
    return v;
  }
  return as_view_of(self, v);
}

}  // namespace

void bind_construction(nb::module_& m) {
  nb::cpp_function_def(
      [](Array* self, nb::args args, nb::kwargs kwargs) {
        nb::object made =
            nb::module_::import_("numfuse._construction").attr("ndarray_new")(*args, **kwargs);
        if (!is_array(made.ptr())) throw TypeError("ndarray_new did not return an array");
        build_in_new_object(self, *nb::inst_ptr<Array>(made));
      },
      nb::scope(nb::type<Array>()), nb::name("__init__"), nb::is_method(),
      "ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None)");
  m.def("_replace_contents", [](nb::handle a, nb::handle b) {
    if (!is_array(a.ptr()) || !is_array(b.ptr())) throw TypeError("numfuse arrays are required");
    *nb::inst_ptr<Array>(a) = *nb::inst_ptr<Array>(b);
  });
  m.def("_memory_layout", [](const Array& a) {
    // The storage's identity, the array's byte offset in it and the storage's size in bytes.
    return nb::make_tuple(reinterpret_cast<uintptr_t>(a.storage.get()), a.byte_offset,
                          a.storage->nbytes);
  });
  m.def(
      "_strided_view",
      [](nb::handle a, nb::handle shape, nb::handle dtype, int64_t offset,
         std::vector<int64_t> byte_strides, bool owner) {
        if (!is_array(a.ptr())) throw TypeError("_strided_view: a numfuse array is required");
        return strided_view(a, shape, dtype, offset, byte_strides, owner);
      },
      nb::arg("a"), nb::arg("shape"), nb::arg("dtype"), nb::arg("offset"), nb::arg("strides"),
      nb::arg("owner") = false);
}

}  // namespace nf::py
