// The one setup pass for every elementwise, reduction, gather and scan loop on every backend
// (PyTorch's TensorIterator is the model): drop unit dims, order dims by stride, coalesce
// contiguous dims, keep reduced dims apart from kept ones, split spaces for 32-bit indexing, and
// the byte extents and overlap of array views.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "numfuse/core/shape.h"

namespace nf {

class Array;

constexpr int64_t kMaxInt32Index = 2147483647;  // INT32_MAX

struct IterSpace {
  Shape shape;                   // outermost first, innermost last
  std::vector<Strides> strides;  // per operand, in elements, same rank as shape
  std::vector<bool> reduced;     // per dim: a reduced dim (empty when built without a reduce mask)
  int64_t size() const { return numel(shape); }
  int ndim() const { return static_cast<int>(shape.size()); }
  bool is_reduced(int d) const { return !reduced.empty() && reduced[d]; }
  // True when the element count and every operand's span (the farthest offset from the first
  // element) are at most `max_index`: 32-bit index maths reaches every element.
  bool fits_int32(int64_t max_index = kMaxInt32Index) const;
};

// operand_strides[k] are operand k's strides over `shape` (already broadcast: 0 where repeated).
// Dims are ordered by the strides of operand `key` (largest outermost), ties broken by the others.
// With a reduce mask (one flag per dim of shape), a reduced dim never merges with a kept one and
// the result's `reduced` says which of its dims reduce.
IterSpace make_iter_space(const Shape& shape, const std::vector<Strides>& operand_strides, int key = 0,
                          const std::vector<bool>& reduce_mask = {});

// The dims `dims` of shape, in that order (never reordered: the space's flat index is the C-order
// position over those dims), unit dims dropped, a dim merged into its predecessor where one step
// of the predecessor is a whole run of the dim for every operand. At least one dim (extent 1,
// strides 0). The coalescing of the CUDA reductions, gathers and scans, whose kernels unravel a
// flat C-order index.
IterSpace coalesce_in_order(const Shape& shape, const std::vector<Strides>& operand_strides,
                            const std::vector<int>& dims);
// coalesce_in_order over every dim.
IterSpace coalesce_in_order(const Shape& shape, const std::vector<Strides>& operand_strides);

// A reduction's two spaces, each coalesced in C order (coalesce_in_order): the kept dims (where
// reduce_mask is false) and the reduced dims.
struct ReduceSpaces {
  IterSpace kept, red;
};
ReduceSpaces split_reduction(const Shape& shape, const std::vector<Strides>& operand_strides,
                             const std::vector<bool>& reduce_mask);

// A piece of a space for 32-bit indexing: its own space and each operand's element offset of
// its first element.
struct IterPiece {
  IterSpace space;
  std::vector<int64_t> offsets;
};
// Splits sp into pieces that each fits_int32(max_index), halving the dim of the largest span (as
// TensorIterator's with_32bit_indexing) until they do; one piece when sp already fits. Together
// the pieces cover every element of sp once (a piece of one element always fits: its spans are 0).
// A cut falls on a multiple of 64 elements of the dim where the halves allow, so that 16-byte
// vector loads stay aligned in every piece of a contiguous space. Kernels pass a max_index below
// INT32_MAX to keep headroom for a grid-stride step past the end (launch planning, tests).
std::vector<IterPiece> split_for_int32(const IterSpace& sp, int64_t max_index = kMaxInt32Index);

// The bytes [lo, hi) of its buffer that a view (shape, strides in elements, byte offset) can
// touch; {0, 0} when it has no elements.
std::pair<int64_t, int64_t> byte_extent(const Shape& shape, const Strides& strides, int64_t byte_offset,
                                        int64_t itemsize);
std::pair<int64_t, int64_t> byte_extent(const Array& a);

// Whether a byte of `a` may be a byte of `b`: false when their buffers differ, their byte extents
// are apart, or (exactly) when both are views of at most two dims with a contiguous or single one
// (rows of a matrix beside one of its columns, say) whose runs do not meet; true otherwise.
bool bytes_may_meet(const Array& a, const Array& b);

// How two arrays' memory relates: None (different buffers, or no byte in common), Same (one
// mapping: same buffer, offset, dtype, shape and strides), or Partial (anything else that may
// share bytes: NumPy's semantics then need the right side computed first).
enum class MemOverlap { None, Same, Partial };
MemOverlap memory_overlap(const Array& a, const Array& b);

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
