// The one setup pass for every elementwise and reduction loop on every backend (PyTorch's
// TensorIterator is the model): drop unit dims, order dims by stride, coalesce contiguous dims.
#pragma once
#include <cstdint>
#include <vector>

#include "numfuse/core/shape.h"

namespace nf {

struct IterSpace {
  Shape shape;                   // outermost first, innermost last
  std::vector<Strides> strides;  // per operand, in elements, same rank as shape
  int64_t size() const { return numel(shape); }
  int ndim() const { return static_cast<int>(shape.size()); }
  // True when every extent and stride fits 32-bit index maths (kernels pick their index width).
  bool fits_int32() const;
};

// operand_strides[k] are operand k's strides over `shape` (already broadcast: 0 where repeated).
// Dims are ordered by the strides of operand `key` (largest outermost), ties broken by the others.
IterSpace make_iter_space(const Shape& shape, const std::vector<Strides>& operand_strides, int key = 0);

// Walks a flat range [begin, end) of an IterSpace in runs along the innermost dim, each at most
// `max_run` long, calling fn(offsets, n): offsets[k] is operand k's element offset of the run.
template <class F>
void for_each_run(const IterSpace& sp, int64_t begin, int64_t end, int64_t max_run, F&& fn) {
  const int nd = sp.ndim();
  const size_t nops = sp.strides.size();
  if (begin >= end) return;
  if (nd == 0) {
    SmallVector<int64_t, 8> off(nops, 0);
    fn(off.data(), int64_t(1));
    return;
  }
  SmallVector<int64_t, 8> idx(static_cast<size_t>(nd), 0), off(nops, 0);
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % sp.shape[d];
    rem /= sp.shape[d];
    for (size_t k = 0; k < nops; ++k) off[k] += idx[d] * sp.strides[k][d];
  }
  const int64_t inner = sp.shape[nd - 1];
  int64_t pos = begin;
  while (pos < end) {
    int64_t n = std::min(std::min(inner - idx[nd - 1], end - pos), max_run);
    fn(off.data(), n);
    pos += n;
    idx[nd - 1] += n;
    for (size_t k = 0; k < nops; ++k) off[k] += n * sp.strides[k][nd - 1];
    // Carry into outer dims.
    for (int d = nd - 1; d > 0 && idx[d] == sp.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (size_t k = 0; k < nops; ++k) {
        off[k] += sp.strides[k][d - 1] - sp.shape[d] * sp.strides[k][d];
      }
    }
  }
}

}  // namespace nf
