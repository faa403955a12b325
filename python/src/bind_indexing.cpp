// ndarray.__getitem__ / __setitem__: basic indices in C++; advanced ones in numfuse._indexing.
#include <algorithm>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/indexing.h"

namespace nf::py {

namespace {

bool is_integer_like(PyObject* p) {
  if (PyBool_Check(p)) return false;
  if (PyLong_Check(p)) return true;
  // NumPy integer scalars (and anything with __index__ that is not an array or sequence).
  return PyIndex_Check(p) && !PySequence_Check(p) && !nb::isinstance<Array>(p);
}

// Basic items, or false if the key needs advanced indexing.
// Integers past int64 are IndexError (NumPy's invalid-index message), except that NumPy's writes
// raise OverflowError for those below 2**64.
bool parse_basic(nb::handle key, std::vector<IndexItem>* items, IntUse int_use = IntUse::Index) {
  auto one = [&](nb::handle k) -> bool {
    PyObject* p = k.ptr();
    if (p == Py_None) {
      items->push_back(IndexItem::new_axis());
    } else if (p == Py_Ellipsis) {
      items->push_back(IndexItem::ellipsis());
    } else if (PySlice_Check(p)) {
      items->push_back(slice_item(p));
    } else if (is_integer_like(p)) {
      items->push_back(IndexItem::integer(py_index(k, int_use)));
    } else {
      return false;
    }
    return true;
  };
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : key) {
      if (!one(k)) return false;
    }
    return true;
  }
  return one(key);
}

nb::object advanced(const char* fn) {
  return nb::module_::import_("numfuse._indexing").attr(fn);
}

}  // namespace

void bind_indexing(nb::class_<Array>& cls) {
  cls.def("__getitem__", [](nb::handle self, nb::handle key) -> nb::object {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<IndexItem> items;
    if (parse_basic(key, &items)) return nb::cast(as_view_of(self, basic_index(a, items)));
    return advanced("getitem")(self, key);
  }, nb::arg("key").none());
  cls.def("__setitem__", [](nb::handle self, nb::handle key, nb::handle value) {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<IndexItem> items;
    if (!parse_basic(key, &items, IntUse::SetIndex)) {
      advanced("setitem")(self, key, value);
      return;
    }
    Array dst = basic_index(a, items);
    // NumPy's temporary elision test: a value only the interpreter's stack refers to is the
    // result of an expression nobody can read again, so its kernel may write into dst directly.
    bool temporary = nb::isinstance<Array>(value) && Py_REFCNT(value.ptr()) == 1;
    Operand v = value_from_py(value, a.dtype, a.device());
    bool element = static_cast<int>(items.size()) == a.ndim() &&
                   std::all_of(items.begin(), items.end(), [](const IndexItem& it) {
                     return it.kind == IndexItem::Kind::Integer;
                   });
    if (element && v.array.ndim() > 0 && a.dtype != DType::Bool) {
      // One element: NumPy converts the value to a scalar (bool by truthiness), which fails
      // for arrays, as ValueError, or TypeError for complex and for lists into integers.
      bool seq = PyList_Check(value.ptr()) || PyTuple_Check(value.ptr());
      if (is_complex(a.dtype) || (seq && is_integer(a.dtype))) {
        throw TypeError("only 0-dimensional arrays can be converted to Python scalars");
      }
      throw ValueError("setting an array element with a sequence.");
    }
    if (v.array.ndim() > dst.ndim()) {  // NumPy drops a value's leading unit dims
      v.array = strip_leading_ones(v.array, dst.ndim());
      temporary = false;
    }
    assign(dst, v, temporary);
  }, nb::arg("key").none(), nb::arg("value").none());
  cls.def("__delitem__", [](const Array&, nb::handle) {
    throw ValueError("cannot delete array elements");
  }, nb::arg("key").none());
}

}  // namespace nf::py
