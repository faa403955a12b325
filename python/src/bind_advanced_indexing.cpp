// Advanced indexing entry points for numfuse._indexing: the key arrives normalised there to a
// tuple of None, Ellipsis, slices, ints and numfuse arrays (integer or boolean).
#include <nanobind/stl/tuple.h>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/views.h"

namespace nf::py {

namespace {

std::vector<KeyItem> key_items(nb::handle items) {
  std::vector<KeyItem> key;
  for (nb::handle h : items) {
    PyObject* p = h.ptr();
    if (nb::isinstance<Array>(h)) {
      key.push_back(KeyItem::of(nb::cast<const Array&>(h)));
    } else if (p == Py_None) {
      key.push_back(KeyItem::of(IndexItem::new_axis()));
    } else if (p == Py_Ellipsis) {
      key.push_back(KeyItem::of(IndexItem::ellipsis()));
    } else if (PySlice_Check(p)) {
      key.push_back(KeyItem::of(slice_item(p)));
    } else {
      key.push_back(KeyItem::of(IndexItem::integer(py_index(h, IntUse::Index))));
    }
  }
  return key;
}

nb::tuple to_tuple(const std::vector<Array>& arrays) {
  nb::list l;
  for (const Array& a : arrays) l.append(nb::cast(a));
  return nb::tuple(l);
}

}  // namespace

void bind_advanced_indexing(nb::module_& m) {
  m.def("_advanced_getitem", [](const Array& a, nb::handle items) {
    return getitem(a, key_items(items));
  });
  m.def("_advanced_setitem", [](const Array& a, nb::handle items, nb::handle value) {
    setitem(a, key_items(items), value_from_py(value, a.dtype, a.device()));
  }, nb::arg("a"), nb::arg("items"), nb::arg("value").none());
  m.def("nonzero", [](const Array& a) { return to_tuple(nonzero(a)); });
  m.def("_count_nonzero", [](const Array& a) { return count_nonzero(a); });
  // numfuse._shape's broadcast_to: a read-only view with zero strides.
  m.def("_broadcast_to", [](nb::pointer_and_handle<Array> a, nb::handle shape) {
    return as_view_of(a.h, broadcast_to(*a.p, py_shape(shape)));
  });
}

}  // namespace nf::py
