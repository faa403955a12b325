// ndarray.__getitem__ / __setitem__ as the type's mapping slots: integers and slices through
// element_access.cpp's short path, other basic indices here, advanced ones in numfuse._indexing.
#include <algorithm>
#include <cstring>

#include "bindings.h"
#include "element_access.h"
#include "numfuse/backend/backend.h"
#include "numfuse/graph/eval.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/elementwise.h"
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

// The short path of `a[i, :] = row` and of `a[k] op= v` (which stores a[k] back into itself):
// a value of dst's dtype already in host memory, copied now, where nothing pending reads dst's
// memory and the value does not share it (NumPy's right-side-first rule needs no temporary).
// False where assign() must run (casts, overlaps, pending arrays, devices). `scalar`: the Python
// scalar src was made of, checked against dst's dtype (null for an array value).
bool copy_now(const Array& dst, const Array& src, const Operand* scalar) {
  if (!dst.device().is_cpu() || !src.device().is_cpu() || src.pending() || src.dtype != dst.dtype) {
    return false;
  }
  if (src.storage == dst.storage) {
    // x[k] op= v: the in-place op wrote x[k]; storing it into itself changes nothing.
    return dst.writeable && !dst.pending() && src.byte_offset == dst.byte_offset &&
           src.shape == dst.shape && src.strides == dst.strides;
  }
  if (!broadcasts_to(src.shape, dst.shape) || !writable_now(dst)) return false;
  // A Python int past the dtype: NumPy's OverflowError.
  if (scalar) check_scalar_storable(*scalar, dst.dtype);
  if (dst.size() > 0) backend::copy_into(src, dst);
  return true;
}

// `out[i, :] = a[i - 1, :]` between contiguous host regions of one dtype and shape in different
// memories: one memmove, with no Array made of the destination (its two shared references cost
// as much as the copy of a row of 300). False where copy_now or assign() must judge.
bool copy_region_now(const Array& a, const FastKey& k, PyObject* value) {
  if (!is_exact_array(value)) return false;
  const Array& src = *nb::inst_ptr<Array>(value);
  if (src.dtype != a.dtype || src.storage == a.storage || src.pending() || !src.device().is_cpu() ||
      src.shape != k.shape || !src.c_contiguous() || !is_c_contiguous(k.shape, k.strides)) {
    return false;
  }
  if (!writable_now(a)) {
    // The first row written into `out = zeros_like(a)`: the pending fill (and any pending reader
    // of a's memory) evaluated here, as assign() would after its checks, which this value has
    // passed (same dtype and shape, not pending, other memory).
    if (!a.writeable || !a.pending() || !a.device().is_cpu()) return false;
    prepare_write(a);
    if (!writable_now(a)) return false;
  }
  std::memmove(a.storage->data() + k.byte_offset, src.data(), static_cast<size_t>(numel(k.shape)) * a.itemsize());
  return true;
}

// The value of a 0-d host array of dtype `d` (`out[i] = x[i:i+8].sum()`), evaluated, at `out`;
// false for any other value (other dtypes cast through assign()).
bool same_dtype_0d_value(nb::handle value, DType d, void* out) {
  if (!is_array(value.ptr())) return false;
  const Array& v = *nb::inst_ptr<Array>(value);
  if (v.ndim() != 0 || v.dtype != d || !v.device().is_cpu()) return false;
  eval(v, FlushReason::Write);
  std::memcpy(out, v.data(), v.itemsize());
  return true;
}

// a[key] = value into dst = a[key] (basic items): `element` when the key named one element.
void assign_basic(const Array& a, const Array& dst, bool element, nb::handle value) {
  const bool is_arr = is_array(value.ptr());
  // A numfuse array of dst's dtype and rank at most dst's (`out[i, :] = a[i - 1, :]`): copied
  // now without making an operand of it.
  if (is_arr && !element) {
    const Array& src = *nb::inst_ptr<Array>(value);
    if (src.ndim() <= dst.ndim() && copy_now(dst, src, nullptr)) return;
  }
  // NumPy's temporary elision test: a value only the interpreter's stack refers to is the
  // result of an expression nobody can read again, so its kernel may write into dst directly.
  bool temporary = is_arr && Py_REFCNT(value.ptr()) == 1;
  Operand v = value_from_py(value, a.dtype, a.device());
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
  if (copy_now(dst, v.array, &v)) return;
  assign(dst, v, temporary);
}

// A key that is one numfuse boolean array (`x[x > 0]`): straight to the C++ entry points, as
// numfuse._indexing would pass it on.
bool is_mask_key(PyObject* key) {
  return is_array(key) && nb::inst_ptr<Array>(key)->dtype == DType::Bool;
}

// One element of a device array, read by an all-integer key: a 0-d array (as CuPy's), but a
// copy, as NumPy's scalar is, so that later writes to the array do not change it: a lazy copy
// node, which a later write to the array evaluates first (the graph's write rule) and which
// fuses into what reads it. An enqueued device-to-device copy cost 5 us of host time per read
// (CuPy's 0-d view 2 us; bench/element_access_gpu.py).
Array device_element(const Array& element) { return copy(element); }

nb::object getitem_general(nb::handle self, nb::handle key) {
  const Array& a = nb::cast<const Array&>(self);
  if (is_mask_key(key.ptr())) {
    return nb::steal(new_array_object(getitem(a, {KeyItem::of(*nb::inst_ptr<Array>(key))})));
  }
  std::vector<IndexItem> items;
  nb::object r = parse_basic(a, key, &items) ? nb::cast(as_view_of(self, basic_index(a, items)))
                                             : advanced("getitem")(self, key);
  // An all-integer key (0-d integer arrays among them) reads one element: on the CPU NumPy's
  // scalar, as NumPy returns; on a GPU a 0-d copy (device_element), unless the advanced path
  // already made a fresh array.
  if (integer_only_key(key.ptr(), a.ndim())) {
    const Array& e = nb::cast<const Array&>(r);
    if (e.ndim() == 0 && a.device().is_cpu()) return nb::steal(new_result_object(Array(e)));
    if (e.ndim() == 0 && e.storage == a.storage) return nb::steal(new_array_object(device_element(e)));
  }
  return r;
}

void setitem_general(nb::handle self, nb::handle key, nb::handle value) {
  const Array& a = nb::cast<const Array&>(self);
  if (is_mask_key(key.ptr())) {
    setitem(a, {KeyItem::of(*nb::inst_ptr<Array>(key))}, value_from_py(value, a.dtype, a.device()));
    return;
  }
  std::vector<IndexItem> items;
  if (!parse_basic(a, key, &items)) {
    advanced("setitem")(self, key, value);
    return;
  }
  bool element = static_cast<int>(items.size()) == a.ndim() &&
                 std::all_of(items.begin(), items.end(), [](const IndexItem& it) {
                   return it.kind == IndexItem::Kind::Integer;
                 });
  assign_basic(a, basic_index(a, items), element, value);
}

}  // namespace

// Keys of integers and slices take element_access.cpp's short path (no vectors of items, no
// nanobind dispatch); every other key, and every key that would raise, the general one.
PyObject* getitem_slot(PyObject* self, PyObject* key) {
  try {
    const Array& a = *nb::inst_ptr<Array>(self);
    FastKey k;
    if (parse_fast_key(a, key, &k)) {
      if (k.element && a.device().is_cpu()) {
        if (a.pending()) {
          // Evaluation lets other threads run: the key is read again against what `a` is now.
          eval(a, FlushReason::HostRead);
          if (!parse_fast_key(a, key, &k) || !k.element) return getitem_general(self, key).release().ptr();
        }
        return numpy_scalar(a.dtype, a.storage->data() + k.byte_offset);
      }
      if (k.element) {
        return new_array_object(
            device_element(a.view(std::move(k.shape), std::move(k.strides), k.byte_offset)));
      }
      return new_view_object(self, a, std::move(k.shape), std::move(k.strides), k.byte_offset);
    }
    return getitem_general(self, key).release().ptr();
  } catch (...) {
    return raise_from_slot(std::current_exception());
  }
}

int setitem_slot(PyObject* self, PyObject* key, PyObject* value) {
  try {
    if (!value) throw ValueError("cannot delete array elements");
    const Array& a = *nb::inst_ptr<Array>(self);
    FastKey k;
    if (parse_fast_key(a, key, &k)) {
      if (!k.element) {
        if (copy_region_now(a, k, value)) return 0;
        const Array dst = a.view(std::move(k.shape), std::move(k.strides), k.byte_offset);
        // A pending temporary of dst's rank or less (`out[i] = v @ M[:, i:i+64]`): what
        // assign_basic ends in, without its tries of the copies a pending value cannot take;
        // assign() computes it straight into dst where nothing it reads meets dst.
        if (is_exact_array(value) && Py_REFCNT(value) == 1) {
          const Array& src = *nb::inst_ptr<Array>(value);
          if (src.pending() && src.ndim() <= dst.ndim()) {
            assign(dst, src, Casting::Unsafe, /*src_is_temporary=*/true);
            return 0;
          }
        }
        assign_basic(a, dst, false, value);
        return 0;
      }
      // The value converted first (NumPy's errors come before anything is evaluated), then
      // written in place, or through assign() where pending nodes read a's memory.
      // The conversion is NumPy's setitem's on every device; only the CPU writes in place.
      alignas(16) char element[16];
      bool evaluated = false;  // a pending 0-d value was evaluated: other threads may have run
      const bool cpu = a.device().is_cpu();
      if (store_element(value, a.dtype, element) ||
          (cpu && (evaluated = same_dtype_0d_value(value, a.dtype, element)))) {
        if (evaluated && (!parse_fast_key(a, key, &k) || !k.element)) {
          setitem_general(self, key, value);
          return 0;
        }
        if (cpu && writable_now(a)) {
          std::memcpy(a.storage->data() + k.byte_offset, element, a.itemsize());
        } else {
          assign(a.view({}, {}, k.byte_offset), Array::scalar(element, a.dtype), Casting::Unsafe);
        }
        return 0;
      }
    }
    setitem_general(self, key, value);
    return 0;
  } catch (...) {
    raise_from_slot(std::current_exception());
    return -1;
  }
}

}  // namespace nf::py
