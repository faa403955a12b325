// What numfuse.stencil's per-input cache (python/numfuse/_stencil_views.py) needs of the core:
// - _same_layouts(arrays, refs, out, first): whether every arrays[k] is a numfuse array that
//   views exactly what refs[k] views (storage, byte offset, dtype, shape, strides), and out is
//   None or a numfuse array of refs[first]'s shape (the stencil's output). A view made from an
//   array depends on nothing else, so a cached view of arrays[k] is then the view a new
//   subscript would make. One call for all inputs: the same test in Python (storage, shape,
//   strides, dtype read one by one) cost more than making the views again.
// - _unowned_view(v, a): the view v of a keeps a's memory (and what a keeps) alive, but not the
//   object a itself, so that a cache holding v does not keep a user's dropped array alive past
//   its weak reference's callback. Never handed to users: ndarray.base of v no longer names a.
#include "bindings.h"

namespace nf::py {

namespace {

bool same_layout(const Array& a, const Array& r) {
  return a.storage == r.storage && a.byte_offset == r.byte_offset && a.dtype == r.dtype &&
         a.shape == r.shape && a.strides == r.strides;
}

}  // namespace

void bind_stencil(nb::module_& m) {
  m.def(
      "_same_layouts",
      [](nb::handle arrays, nb::handle refs, nb::handle out, Py_ssize_t first) {
        PyObject* as = arrays.ptr();
        PyObject* rs = refs.ptr();
        if (!PyTuple_Check(as) || !PyTuple_Check(rs)) throw TypeError("_same_layouts: two tuples");
        const Py_ssize_t n = PyTuple_GET_SIZE(as);
        if (PyTuple_GET_SIZE(rs) != n || first < 0 || first >= n) return false;
        // An out= given must be an array of the first input's shape (else the caller's full path
        // raises its error).
        if (!out.is_none()) {
          if (!is_array(out.ptr()) || !is_array(PyTuple_GET_ITEM(rs, first))) return false;
          if (nb::inst_ptr<Array>(out)->shape !=
              nb::inst_ptr<Array>(PyTuple_GET_ITEM(rs, first))->shape) {
            return false;
          }
        }
        for (Py_ssize_t k = 0; k < n; ++k) {
          PyObject* a = PyTuple_GET_ITEM(as, k);
          PyObject* r = PyTuple_GET_ITEM(rs, k);
          if (!is_array(a) || !is_array(r)) return false;
          if (!same_layout(*nb::inst_ptr<Array>(a), *nb::inst_ptr<Array>(r))) return false;
        }
        return true;
      },
      nb::arg("arrays"), nb::arg("refs"), nb::arg("out").none(), nb::arg("first"));
  m.def("_unowned_view", [](nb::handle v, nb::handle a) {
    if (!is_array(v.ptr()) || !is_array(a.ptr())) throw TypeError("_unowned_view: two arrays");
    Array& view = *nb::inst_ptr<Array>(v);
    const Array& source = *nb::inst_ptr<Array>(a);
    if (view.storage != source.storage) throw ValueError("_unowned_view: v is not a view of a");
    view.base = source.base;  // a's owner when a is a view, else nothing: the storage keeps memory
  });
}

}  // namespace nf::py
