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

// Basic items of `a`, or false if the key needs advanced indexing. Integers past int64 raise as
// NumPy's reads and writes do (IntUse::Index). Slice bounds are read last, as NumPy reads them:
// after the count of indices and the bounds of the integers before them are checked.
bool parse_basic(const Array& a, nb::handle key, std::vector<IndexItem>* items) {
  std::vector<std::pair<size_t, PyObject*>> slices;  // position, slice object
  auto one = [&](nb::handle k) -> bool {
    PyObject* p = k.ptr();
    if (p == Py_None) {
      items->push_back(IndexItem::new_axis());
    } else if (p == Py_Ellipsis) {
      items->push_back(IndexItem::ellipsis());
    } else if (PySlice_Check(p)) {
      slices.emplace_back(items->size(), p);
      items->push_back(IndexItem::slice(false, 0, false, 0, 1));  // read below
    } else if (is_integer_like(p)) {
      items->push_back(IndexItem::integer(py_index(k, IntUse::Index)));
    } else {
      return false;
    }
    return true;
  };
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : key) {
      if (!one(k)) return false;
    }
  } else if (!one(key)) {
    return false;
  }
  for (const auto& [pos, slice] : slices) {
    try {
      (*items)[pos] = slice_item(slice);
    } catch (...) {
      // NumPy's earlier errors first: too many indices, an integer before this slice out of
      // bounds. Items from this one on become full slices (which consume a dim and never fail).
      std::vector<IndexItem> before(*items);
      for (size_t k = pos; k < before.size(); ++k) {
        IndexItem::Kind kind = before[k].kind;
        if (kind == IndexItem::Kind::Integer || kind == IndexItem::Kind::Slice) {
          before[k] = IndexItem::slice(false, 0, false, 0, 1);
        }
      }
      basic_index(a, before);
      throw;
    }
  }
  return true;
}

nb::object advanced(const char* fn) {
  return nb::module_::import_("numfuse._indexing").attr(fn);
}

}  // namespace

void bind_indexing(nb::class_<Array>& cls) {
  cls.def("__getitem__", [](nb::handle self, nb::handle key) -> nb::object {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<IndexItem> items;
    if (parse_basic(a, key, &items)) return nb::cast(as_view_of(self, basic_index(a, items)));
    return advanced("getitem")(self, key);
  }, nb::arg("key").none());
  cls.def("__setitem__", [](nb::handle self, nb::handle key, nb::handle value) {
    const Array& a = nb::cast<const Array&>(self);
    std::vector<IndexItem> items;
    if (!parse_basic(a, key, &items)) {
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
