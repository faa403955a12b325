// Layout helpers of linalg_cuda.cpp: views and copies that move a stack of C-order matrices to
// and from the column-major order cuSOLVER works in, on the device.
#pragma once
#include <cstring>
#include <utility>

#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/core/array.h"

namespace nf::cuda::linalg_layout {

// x with its last two axes swapped (a view).
inline Array swap_last(const Array& x) {
  Shape s = x.shape;
  Strides st = x.strides;
  const size_t n = s.size();
  std::swap(s[n - 1], s[n - 2]);
  std::swap(st[n - 1], st[n - 2]);
  return x.view(s, st, x.byte_offset);
}

inline Shape swapped(Shape s) {
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

// A C-order copy of x on its device.
inline Array contiguous(const Array& x) {
  Array c = Array::empty(x.shape, x.dtype, x.device());
  copy_on_device(x, c);
  return c;
}

// Each matrix of x in column-major order: a C-order array of shape (..., cols, rows).
inline Array colmajor(const Array& x) {
  Array c = Array::empty(swapped(x.shape), x.dtype, x.device());
  copy_on_device(swap_last(x), c);
  return c;
}

// A 0-d host array of dtype dt holding v (real part v, imaginary 0).
inline Array host_value(DType dt, double v) {
  unsigned char bytes[16] = {};
  switch (dt) {
    case DType::Float32:
    case DType::Complex64: {
      const float f = static_cast<float>(v);
      std::memcpy(bytes, &f, sizeof f);
      break;
    }
    default:
      std::memcpy(bytes, &v, sizeof v);
      break;
  }
  return Array::scalar(bytes, dt);
}

// Every matrix of the C-order stack `out` (…, n, n) set to the identity.
inline void set_identity(const Array& out) {
  const unsigned char zero[16] = {};
  fill(out, zero);
  const int64_t n = out.shape.back();
  const int64_t batch = out.size() / std::max<int64_t>(1, n * n);
  if (n == 0 || batch == 0) return;
  const Array diag = out.view(Shape{batch, n}, Strides{n * n, n + 1}, out.byte_offset);
  copy_on_device(host_value(out.dtype, 1.0), diag);
}

// Matrix b's slice of the C-order output `out`, whose first `nbatch` dims are the stack's.
inline Array slice(const Array& out, int64_t b, int64_t batch, int nbatch) {
  const int64_t per = out.size() / batch;
  const Shape s(out.shape.begin() + nbatch, out.shape.end());
  const Strides st(out.strides.begin() + nbatch, out.strides.end());
  return out.view(s, st, out.byte_offset + b * per * static_cast<int64_t>(out.itemsize()));
}

}  // namespace nf::cuda::linalg_layout
