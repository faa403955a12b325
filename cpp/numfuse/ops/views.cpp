#include "numfuse/ops/views.h"

#include <algorithm>
#include <numeric>

#include "numfuse/core/error.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/elementwise.h"

namespace nf {

Array reshape(const Array& a, const Shape& requested, char order) {
  Shape shape = infer_reshape(requested, a.size());
  checked_nbytes(shape, a.itemsize());  // (2**61, 0) holds nothing yet is too big, as in NumPy
  if (order == 'F') {
    Shape rev(shape.rbegin(), shape.rend());
    return transpose(reshape(transpose(a), rev, 'C'));
  }
  if (order != 'C' && order != 'A') throw ValueError("order must be one of 'C', 'F', 'A'");
  Strides strides;
  if (reshape_strides(a.shape, a.strides, shape, &strides)) {
    return a.view(shape, strides, a.byte_offset);
  }
  Array c = copy(a);
  return c.view(shape, contiguous_strides(shape), 0);
}

Array ravel(const Array& a, char order) { return reshape(a, {a.size()}, order); }

Array transpose(const Array& a) {
  std::vector<int64_t> axes(a.ndim());
  std::iota(axes.rbegin(), axes.rend(), 0);
  return transpose(a, axes);
}

Array transpose(const Array& a, const std::vector<int64_t>& axes_in) {
  if (static_cast<int>(axes_in.size()) != a.ndim()) throw ValueError("axes don't match array");
  std::vector<bool> seen(a.ndim(), false);
  Shape shape(a.ndim());
  Strides strides(a.ndim());
  for (int i = 0; i < a.ndim(); ++i) {
    int ax = normalize_axis(axes_in[i], a.ndim());
    if (seen[ax]) throw ValueError("repeated axis in transpose");
    seen[ax] = true;
    shape[i] = a.shape[ax];
    strides[i] = a.strides[ax];
  }
  return a.view(shape, strides, a.byte_offset);
}

Array swapaxes(const Array& a, int64_t axis1, int64_t axis2) {
  int i = normalize_axis(axis1, a.ndim()), j = normalize_axis(axis2, a.ndim());
  std::vector<int64_t> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[i], axes[j]);
  return transpose(a, axes);
}

Array moveaxis(const Array& a, const std::vector<int64_t>& source, const std::vector<int64_t>& dest) {
  if (source.size() != dest.size()) {
    throw ValueError("`source` and `destination` arguments must have the same number of elements");
  }
  std::vector<bool> src_mask = normalize_axes(source, a.ndim());
  std::vector<bool> dst_mask = normalize_axes(dest, a.ndim());
  (void)dst_mask;
  std::vector<int64_t> order;
  for (int i = 0; i < a.ndim(); ++i) {
    if (!src_mask[i]) order.push_back(i);
  }
  std::vector<std::pair<int, int>> pairs;
  for (size_t k = 0; k < source.size(); ++k) {
    pairs.emplace_back(normalize_axis(dest[k], a.ndim()), normalize_axis(source[k], a.ndim()));
  }
  std::sort(pairs.begin(), pairs.end());
  for (auto [d, s] : pairs) order.insert(order.begin() + d, s);
  return transpose(a, order);
}

Array squeeze(const Array& a) {
  Shape shape;
  Strides strides;
  for (int i = 0; i < a.ndim(); ++i) {
    if (a.shape[i] != 1) {
      shape.push_back(a.shape[i]);
      strides.push_back(a.strides[i]);
    }
  }
  return a.view(shape, strides, a.byte_offset);
}

Array squeeze(const Array& a, const std::vector<int64_t>& axes) {
  std::vector<bool> mask = normalize_axes(axes, a.ndim());
  Shape shape;
  Strides strides;
  for (int i = 0; i < a.ndim(); ++i) {
    if (mask[i]) {
      if (a.shape[i] != 1) {
        throw ValueError("cannot select an axis to squeeze out which has size not equal to one");
      }
      continue;
    }
    shape.push_back(a.shape[i]);
    strides.push_back(a.strides[i]);
  }
  return a.view(shape, strides, a.byte_offset);
}

Array expand_dims(const Array& a, const std::vector<int64_t>& axes) {
  int nd = a.ndim() + static_cast<int>(axes.size());
  std::vector<bool> mask = normalize_axes(axes, nd);
  Shape shape;
  Strides strides;
  int src = 0;
  for (int i = 0; i < nd; ++i) {
    if (mask[i]) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(a.shape[src]);
      strides.push_back(a.strides[src]);
      ++src;
    }
  }
  return a.view(shape, strides, a.byte_offset);
}

Array broadcast_to(const Array& a, const Shape& shape) {
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("all elements of broadcast shape must be non-negative");
  }
  // A view allocates nothing, but NumPy still refuses a shape whose byte count passes int64.
  checked_nbytes(shape, a.itemsize());
  Strides st = broadcast_strides(a.shape, a.strides, shape);
  Array v = a.view(shape, st, a.byte_offset);
  v.writeable = false;
  return v;
}

Array real_part(const Array& a) {
  if (!is_complex(a.dtype)) return a;
  Array v = a.view(a.shape, a.strides, a.byte_offset);
  v.dtype = real_dtype(a.dtype);
  for (auto& s : v.strides) s *= 2;
  return v;
}

Array imag_part(const Array& a) {
  if (!is_complex(a.dtype)) {
    Array z = zeros(a.shape, a.dtype, a.device());
    z.writeable = false;
    return z;
  }
  Array v = real_part(a);
  v.byte_offset += static_cast<int64_t>(itemsize(v.dtype));
  return v;
}

Array diagonal(const Array& a, int64_t offset, int64_t axis1, int64_t axis2) {
  if (a.ndim() < 2) throw ValueError("diag requires an array of at least two dimensions");
  int i = normalize_axis(axis1, a.ndim()), j = normalize_axis(axis2, a.ndim());
  if (i == j) throw ValueError("axis1 and axis2 cannot be the same");
  Shape shape;
  Strides strides;
  for (int d = 0; d < a.ndim(); ++d) {
    if (d != i && d != j) {
      shape.push_back(a.shape[d]);
      strides.push_back(a.strides[d]);
    }
  }
  int64_t rows = a.shape[i], cols = a.shape[j];
  int64_t off = a.byte_offset;
  int64_t n;
  if (offset >= 0) {
    n = std::max<int64_t>(0, std::min(rows, cols - offset));
    if (n > 0) off += offset * a.strides[j] * int64_t(a.itemsize());
  } else {
    n = std::max<int64_t>(0, std::min(rows + offset, cols));
    if (n > 0) off += -offset * a.strides[i] * int64_t(a.itemsize());
  }
  shape.push_back(n);
  strides.push_back(a.strides[i] + a.strides[j]);
  Array v = a.view(shape, strides, off);
  v.writeable = false;
  return v;
}

}  // namespace nf
