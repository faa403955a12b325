#include "element_access.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ir/node.h"

namespace nf::py {

namespace {

// The value of a NumPy integer scalar of dtype d, false past int64 (a large uint64).
bool fast_int_value(DType d, const void* v, int64_t* out) {
  bool ok = false;
  auto read = [&](const auto* p) {  // a template, so that the branches of other types drop out
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      T x;
      std::memcpy(&x, p, sizeof x);
      ok = !(std::is_unsigned_v<T> && sizeof(T) == 8 &&
             static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
      *out = static_cast<int64_t>(x);
    }
  };
  NF_DISPATCH(d, "index", { read(static_cast<const scalar_t*>(v)); });
  return ok;
}

// An integer index read without a call: a Python int (bools are masks to NumPy) or a NumPy
// integer scalar, within int64.
bool fast_int(PyObject* p, int64_t* out) {
  if (PyLong_CheckExact(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) return false;
    *out = v;
    return true;
  }
  DType d;
  const void* v;
  return numpy_scalar_value(p, &d, &v) && is_integer(d) && fast_int_value(d, v, out);
}

// A slice bound: None or a Python int (anything else reaches slice_item's conversions).
bool fast_bound(PyObject* p, Py_ssize_t* out, bool* given) {
  *given = p != Py_None;
  if (!*given) return true;
  if (!PyLong_CheckExact(p)) return false;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
  if (overflow) return false;
  *out = static_cast<Py_ssize_t>(v);
  return true;
}

template <class T>
void put(void* dst, T v) {
  std::memcpy(dst, &v, sizeof v);
}

// An integer value (a Python int, or a NumPy integer scalar when `numpy_int`) into `t`: only
// values the dtype holds (NumPy raises OverflowError for Python ints past it).
bool store_int(int64_t v, bool numpy_int, DType t, void* dst) {
  bool ok = true;
  switch (t) {
    case DType::Bool: put<bool>(dst, v != 0); break;
    case DType::Float16: return false;  // NumPy rounds through double: leave it to the cast
    case DType::Float32:
      // NumPy's setitem reads a Python int as a double first; a NumPy int64 casts directly.
      put<float>(dst, numpy_int ? static_cast<float>(v) : static_cast<float>(static_cast<double>(v)));
      break;
    case DType::Float64: put<double>(dst, static_cast<double>(v)); break;
    case DType::Complex64:
      if (!numpy_int) return false;
      put(dst, complex64(static_cast<float>(v), 0.0f));
      break;
    case DType::Complex128: put(dst, complex128(static_cast<double>(v), 0.0)); break;
    default: {
      auto write = [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          using L = std::numeric_limits<T>;
          if constexpr (std::is_unsigned_v<T>) {
            ok = v >= 0 && static_cast<uint64_t>(v) <= static_cast<uint64_t>(L::max());
          } else {
            ok = v >= static_cast<int64_t>(L::min()) && v <= static_cast<int64_t>(L::max());
          }
          if (ok) put(dst, static_cast<T>(v));
        } else {
          ok = false;
        }
      };
      NF_DISPATCH(t, "setitem", { write(static_cast<scalar_t*>(dst)); });
    }
  }
  return ok;
}

// A float into `t` (integers take NumPy's int() path with its errors: the general one).
bool store_double(double v, DType t, void* dst) {
  switch (t) {
    case DType::Bool: put<bool>(dst, v != 0); return true;  // NaN is true, as bool(nan)
    case DType::Float64: put<double>(dst, v); return true;
    case DType::Complex128: put(dst, complex128(v, 0.0)); return true;
    case DType::Float32:
    case DType::Complex64: {
      const float f = static_cast<float>(v);
      if (std::isinf(f) && !std::isinf(v)) return false;  // NumPy warns of the overflow
      if (t == DType::Float32) {
        put<float>(dst, f);
      } else {
        put(dst, complex64(f, 0.0f));
      }
      return true;
    }
    default: return false;
  }
}

bool store_complex(double re, double im, DType t, void* dst) {
  if (t == DType::Complex128) {
    put(dst, complex128(re, im));
    return true;
  }
  if (t == DType::Bool) {
    put<bool>(dst, re != 0 || im != 0);
    return true;
  }
  return false;
}

// A NumPy integer scalar into an integer element, as NumPy's setitem does it: a signed target
// reads it as a Python int (OverflowError past its range), an unsigned one casts it (wrapping).
bool store_numpy_int(DType s, const void* v, DType t, void* dst) {
  uint64_t bits = 0;  // the value, sign-extended to 64 bits
  bool negative = false;
  auto read = [&](const auto* p) {
    using S = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
      S x;
      std::memcpy(&x, p, sizeof x);
      negative = x < 0;
      bits = static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<S>, int64_t, uint64_t>>(x));
    }
  };
  NF_DISPATCH(s, "setitem", { read(static_cast<const scalar_t*>(v)); });
  bool ok = true;
  auto write = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if constexpr (std::is_signed_v<T>) {
        if (!negative && bits > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          throw OverflowError("Python int too large to convert to C long");
        }
        const int64_t x = static_cast<int64_t>(bits);
        if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
          throw OverflowError("Python integer " + std::to_string(x) + " out of bounds for " +
                              dtype_name(t));
        }
      }
      put(dst, static_cast<T>(bits));
    } else {
      ok = false;
    }
  };
  NF_DISPATCH(t, "setitem", { write(static_cast<scalar_t*>(dst)); });
  return ok;
}

// A NumPy scalar of numfuse dtype `s` into `t`: the same dtype as it is, other dtypes where the
// cast is exact or is one of the cases above.
bool store_numpy(DType s, const void* v, DType t, void* dst) {
  if (s == t) {
    std::memcpy(dst, v, itemsize(t));
    return true;
  }
  switch (s) {
    case DType::Bool: return store_int(*static_cast<const bool*>(v) ? 1 : 0, true, t, dst);
    case DType::Float64: {
      double x;
      std::memcpy(&x, v, sizeof x);
      return store_double(x, t, dst);
    }
    case DType::Float32: {
      float x;
      std::memcpy(&x, v, sizeof x);
      if (t == DType::Float64 || t == DType::Complex128 || t == DType::Bool) {
        return store_double(x, t, dst);
      }
      return false;
    }
    case DType::Complex128: {
      complex128 x;
      std::memcpy(&x, v, sizeof x);
      return store_complex(x.real(), x.imag(), t, dst);
    }
    default: break;
  }
  if (!is_integer(s)) return false;
  if (is_integer(t)) return store_numpy_int(s, v, t, dst);
  int64_t i;
  return fast_int_value(s, v, &i) && store_int(i, true, t, dst);
}

}  // namespace

bool parse_fast_key(const Array& a, PyObject* key, FastKey* out) {
  PyObject* const* items = &key;
  Py_ssize_t n = 1;
  if (PyTuple_CheckExact(key)) {
    items = &PyTuple_GET_ITEM(key, 0);
    n = PyTuple_GET_SIZE(key);
  }
  if (n > a.ndim()) return false;
  const int64_t item = static_cast<int64_t>(a.itemsize());
  int64_t offset = a.byte_offset;
  // Integers first (the element reads of a loop build no shape); the view's dims at the first
  // slice.
  Py_ssize_t d = 0;
  for (; d < n; ++d) {
    PyObject* p = items[d];
    if (PySlice_Check(p)) break;
    const int64_t dim = a.shape[d];
    int64_t i;
    if (!fast_int(p, &i) || i < -dim || i >= dim) return false;
    offset += (i < 0 ? i + dim : i) * a.strides[d] * item;
  }
  out->element = d == a.ndim();
  if (out->element) {
    out->byte_offset = offset;
    return true;
  }
  Shape& shape = out->shape;
  Strides& strides = out->strides;
  for (; d < n; ++d) {
    PyObject* p = items[d];
    const int64_t dim = a.shape[d], stride = a.strides[d];
    if (PySlice_Check(p)) {
      auto* s = reinterpret_cast<PySliceObject*>(p);
      Py_ssize_t start = 0, stop = 0, step = 1;
      bool has_start, has_stop, has_step;
      if (!fast_bound(s->start, &start, &has_start) || !fast_bound(s->stop, &stop, &has_stop) ||
          !fast_bound(s->step, &step, &has_step) || step == 0) {
        return false;
      }
      int64_t first, length, st = stride;
      if (!has_step) {
        // Step 1 (`a[:, 3]`, `a[1:5]`, `M[:, i:i+64]`): adjust_slice's bounds without its division.
        first = !has_start  ? 0
                : start < 0 ? std::max<int64_t>(start + dim, 0)
                            : std::min<int64_t>(start, dim);
        const int64_t end = !has_stop  ? dim
                            : stop < 0 ? std::max<int64_t>(stop + dim, 0)
                                       : std::min<int64_t>(stop, dim);
        length = end > first ? end - first : 0;
      } else {
        adjust_slice(IndexItem::slice(has_start, start, has_stop, stop, step), dim, &first,
                     &length);
        if (__builtin_mul_overflow(stride, int64_t(step), &st)) st = stride;  // basic_index's rule
      }
      if (length > 0) offset += first * stride * item;
      shape.push_back(length);
      strides.push_back(st);
      continue;
    }
    int64_t i;
    if (!fast_int(p, &i) || i < -dim || i >= dim) return false;
    offset += (i < 0 ? i + dim : i) * stride * item;
  }
  for (int k = static_cast<int>(n); k < a.ndim(); ++k) {
    shape.push_back(a.shape[k]);
    strides.push_back(a.strides[k]);
  }
  out->byte_offset = offset;
  return true;
}

bool store_element(PyObject* value, DType target, void* dst) {
  if (PyFloat_CheckExact(value)) return store_double(PyFloat_AS_DOUBLE(value), target, dst);
  if (PyLong_CheckExact(value)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow && target == DType::Bool) {  // NumPy stores any int by its truth
      put<bool>(dst, true);
      return true;
    }
    if (overflow && (target == DType::Float64 || target == DType::Complex128 ||
                     target == DType::Float32 || target == DType::Complex64)) {
      const double d = PyLong_AsDouble(value);  // NumPy's float(v), with its OverflowError
      if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
      return store_double(d, target, dst);
    }
    return !overflow && store_int(v, false, target, dst);
  }
  if (PyBool_Check(value)) return store_int(value == Py_True ? 1 : 0, false, target, dst);
  if (target == DType::Bool && (PyList_Check(value) || PyTuple_Check(value))) {
    const int truth = PyObject_IsTrue(value);  // NumPy stores a sequence by its truth
    if (truth < 0) throw nb::python_error();
    put<bool>(dst, truth != 0);
    return true;
  }
  DType s;
  const void* v;
  if (numpy_scalar_value(value, &s, &v)) return store_numpy(s, v, target, dst);
  if (PyComplex_CheckExact(value)) {
    Py_complex c = PyComplex_AsCComplex(value);
    return store_complex(c.real, c.imag, target, dst);
  }
  return false;
}

bool integer_only_key(PyObject* key, int ndim) {
  PyObject* const* items = &key;
  Py_ssize_t n = 1;
  if (PyTuple_Check(key)) {
    items = &PyTuple_GET_ITEM(key, 0);
    n = PyTuple_GET_SIZE(key);
  }
  if (n != ndim) return false;
  for (Py_ssize_t d = 0; d < n; ++d) {
    PyObject* p = items[d];
    if (is_array(p)) {
      const Array& k = *nb::inst_ptr<Array>(p);
      if (k.ndim() != 0 || !is_integer(k.dtype)) return false;
    } else if (PyBool_Check(p) || (!PyIndex_Check(p) && !is_numpy_integer_0d(p))) {
      return false;
    } else if (PySequence_Check(p) && !is_numpy_integer_0d(p)) {
      return false;  // a list, or a NumPy array of more dims
    }
  }
  return true;
}

}  // namespace nf::py
