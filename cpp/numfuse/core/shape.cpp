#include "numfuse/core/shape.h"

#include <algorithm>

#include "numfuse/core/error.h"

namespace nf {

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

const char* const kArrayTooBig =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

int64_t checked_size_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw ValueError(kArrayTooBig);
  return r;
}

int64_t checked_size_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw ValueError(kArrayTooBig);
  return r;
}

int64_t checked_nbytes(const Shape& shape, size_t itemsize) {
  int64_t bytes = static_cast<int64_t>(itemsize);
  bool empty = false;
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("negative dimensions are not allowed");
    // As NumPy: a zero dim makes the array empty but does not excuse the others' product.
    if (s == 0) {
      empty = true;
      continue;
    }
    bytes = checked_size_mul(bytes, s);
  }
  return empty ? 0 : bytes;
}

int64_t checked_numel(const Shape& shape) { return checked_nbytes(shape, 1); }

Strides contiguous_strides(const Shape& shape) {
  Strides st(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

bool is_c_contiguous(const Shape& shape, const Strides& strides) {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

bool is_f_contiguous(const Shape& shape, const Strides& strides) {
  int64_t expected = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::string shape_str(const Shape& shape) {
  // NumPy's error messages print shapes without spaces: (3,4) (5,)
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  size_t nd = 0;
  for (const auto& s : shapes) nd = std::max(nd, s.size());
  Shape out(nd, 1);
  for (const auto& s : shapes) {
    size_t off = nd - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[off + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o == 1) {
        o = s[i];
        continue;
      }
      std::string msg = "operands could not be broadcast together with shapes ";
      for (const auto& t : shapes) msg += shape_str(t) + " ";
      throw ValueError(msg);
    }
  }
  return out;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  if (a == b) return a;
  // The two-operand case of every binary op: no vector of shapes unless it fails.
  const Shape& longer = a.size() >= b.size() ? a : b;
  const Shape& shorter = a.size() >= b.size() ? b : a;
  Shape out = longer;
  const size_t off = longer.size() - shorter.size();
  for (size_t i = 0; i < shorter.size(); ++i) {
    int64_t& o = out[off + i];
    const int64_t s = shorter[i];
    if (s == o || s == 1) continue;
    if (o == 1) {
      o = s;
      continue;
    }
    return broadcast_shapes(std::vector<Shape>{a, b});  // throws NumPy's message
  }
  return out;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

Strides broadcast_strides(const Shape& from, const Strides& strides, const Shape& to) {
  if (from.size() > to.size()) {
    throw ValueError("cannot broadcast an array of shape " + shape_str(from) + " to shape " +
                     shape_str(to));
  }
  Strides out(to.size(), 0);
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] == to[off + i]) {
      out[off + i] = to[off + i] == 1 ? 0 : strides[i];
    } else if (from[i] == 1) {
      out[off + i] = 0;
    } else {
      throw ValueError("operands could not be broadcast together with remapped shapes "
                       "[original->remapped]: " + shape_str(from) + " and requested shape " +
                       shape_str(to));
    }
  }
  return out;
}

int normalize_axis(int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw AxisError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                    std::to_string(ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<bool> normalize_axes(const std::vector<int64_t>& axes, int ndim) {
  std::vector<bool> mask(ndim, false);
  for (int64_t a : axes) {
    int ax = normalize_axis(a, ndim);
    if (mask[ax]) throw ValueError("duplicate value in 'axis'");
    mask[ax] = true;
  }
  return mask;
}

bool reshape_strides(const Shape& shape, const Strides& strides, const Shape& new_shape,
                     Strides* out) {
  // Drop size-1 dimensions of the source; they carry no stride information.
  Shape os;
  Strides ost;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {  // empty: any strides do
      *out = contiguous_strides(new_shape);
      return true;
    }
    if (shape[i] != 1) {
      os.push_back(shape[i]);
      ost.push_back(strides[i]);
    }
  }
  Strides ns(new_shape.size(), 0);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  const size_t on = os.size(), nn = new_shape.size();
  while (ni < nn && oi < on) {
    int64_t np_ = new_shape[ni], op = os[oi];
    while (np_ != op) {
      if (np_ < op) {
        np_ *= new_shape[nj++];
      } else {
        op *= os[oj++];
      }
    }
    // The source dims oi..oj-1 must be contiguous among themselves.
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (ost[k] != os[k + 1] * ost[k + 1]) return false;
    }
    ns[nj - 1] = ost[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * new_shape[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 dims of the new shape.
  int64_t last = ni > 0 ? ns[ni - 1] : 1;
  for (size_t k = ni; k < nn; ++k) ns[k] = last;
  *out = ns;
  return true;
}

namespace {
// NumPy's reshape error (convert_shape_to_string): a negative dim prints as "newaxis", leading
// ones not at all, and only a 1-d request gets the trailing comma.
[[noreturn]] void throw_reshape_mismatch(const Shape& requested, int64_t size) {
  size_t i = 0;
  while (i < requested.size() && requested[i] < 0) ++i;
  std::string s;
  if (i < requested.size()) s = std::to_string(requested[i++]);
  for (; i < requested.size(); ++i) {
    s += requested[i] < 0 ? ",newaxis" : "," + std::to_string(requested[i]);
  }
  s = requested.size() == 1 && !s.empty() ? "(" + s + ",)" : "(" + s + ")";
  throw ValueError("cannot reshape array of size " + std::to_string(size) + " into shape " + s);
}
}  // namespace

Shape infer_reshape(const Shape& requested, int64_t size) {
  Shape out = requested;
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 0) {  // NumPy 2 takes any negative size (-1, -2 ...) as the unknown one
      if (unknown >= 0) throw ValueError("can only specify one unknown dimension");
      unknown = static_cast<int>(i);
    } else if (__builtin_mul_overflow(known, out[i], &known)) {
      // As NumPy's _fix_unknown_dimension: a product past int64 cannot be the array's size.
      throw_reshape_mismatch(requested, size);
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) {
      throw_reshape_mismatch(requested, size);
    }
    out[unknown] = size / known;
  } else if (known != size) {
    throw_reshape_mismatch(requested, size);
  }
  return out;
}

}  // namespace nf
