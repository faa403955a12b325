#include "numfuse/core/iteration.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "numfuse/core/array.h"
#include "numfuse/core/error.h"

namespace nf {

bool IterSpace::fits_int32(int64_t max_index) const {
  const int64_t lim = max_index;
  if (size() > lim) return false;
  for (const auto& st : strides) {
    int64_t span = 0;
    for (int d = 0; d < ndim(); ++d) span += std::abs(st[d]) * (shape[d] - 1);
    if (span > lim) return false;
  }
  return true;
}

namespace {
// Whether every operand walks `shape` in C order or not at all (a broadcast scalar): the space
// is then one dim, as the general pass below would find, without its sorting and merging.
bool flat_space(const Shape& shape, const std::vector<Strides>& operand_strides, IterSpace* sp) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  if (n <= 1) return false;  // empty and one-element spaces take the general path
  const Strides c = contiguous_strides(shape);
  sp->shape = {n};
  sp->strides.resize(operand_strides.size());
  for (size_t k = 0; k < operand_strides.size(); ++k) {
    const Strides& st = operand_strides[k];
    bool contiguous = true, zero = true;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      contiguous &= st[d] == c[d];
      zero &= st[d] == 0;
    }
    if (!contiguous && !zero) return false;
    sp->strides[k] = {contiguous ? int64_t(1) : int64_t(0)};
  }
  return true;
}
}  // namespace

IterSpace make_iter_space(const Shape& shape, const std::vector<Strides>& operand_strides, int key,
                          const std::vector<bool>& reduce_mask) {
  const size_t nops = operand_strides.size();
  const bool masked = !reduce_mask.empty();
  // A mask that reduces some non-unit dims and keeps others: the space cannot be one dim.
  bool mixed = false;
  if (masked) {
    bool any_red = false, any_kept = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      (reduce_mask[d] ? any_red : any_kept) = true;
    }
    mixed = any_red && any_kept;
  }
  if (!mixed) {
    IterSpace flat;
    if (flat_space(shape, operand_strides, &flat)) {
      if (masked) {
        bool red = false;
        for (size_t d = 0; d < shape.size(); ++d) red |= shape[d] != 1 && reduce_mask[d];
        flat.reduced = {red};
      }
      return flat;
    }
  }
  // 1. Drop unit dims (an empty space keeps one dim of 0 so that size() == 0).
  std::vector<int> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) {
      IterSpace empty;
      empty.shape = {0};
      empty.strides.assign(nops, Strides{0});
      if (masked) empty.reduced = {bool(reduce_mask[d])};
      return empty;
    }
    if (shape[d] != 1) dims.push_back(static_cast<int>(d));
  }
  // 2. Order by |stride| of the key operand, outermost = largest; stable, so C order wins ties,
  //    and a zero stride (broadcast) counts as "no preference".
  // Insertion sort: the "zero stride = no preference" comparison is not a strict weak order.
  auto inner_than = [&](int a, int b) {  // should dim a sit inside (after) dim b?
    for (size_t j = 0; j < nops; ++j) {
      size_t k = (j == 0) ? static_cast<size_t>(key) : (j == static_cast<size_t>(key) ? 0 : j);
      int64_t sa = std::abs(operand_strides[k][a]), sb = std::abs(operand_strides[k][b]);
      if (sa == 0 || sb == 0 || sa == sb) continue;
      return sa < sb;
    }
    return false;
  };
  for (size_t i = 1; i < dims.size(); ++i) {
    for (size_t j = i; j > 0 && inner_than(dims[j - 1], dims[j]); --j) std::swap(dims[j - 1], dims[j]);
  }
  // 3. Coalesce neighbours that are contiguous for every operand.
  IterSpace sp;
  sp.strides.assign(nops, Strides{});
  for (int d : dims) {
    if (!sp.shape.empty()) {
      bool merge = !masked || sp.reduced.back() == bool(reduce_mask[d]);
      for (size_t k = 0; k < nops && merge; ++k) {
        merge = sp.strides[k].back() == operand_strides[k][d] * shape[d];
      }
      if (merge) {
        sp.shape.back() *= shape[d];
        for (size_t k = 0; k < nops; ++k) sp.strides[k].back() = operand_strides[k][d];
        continue;
      }
    }
    sp.shape.push_back(shape[d]);
    if (masked) sp.reduced.push_back(reduce_mask[d]);
    for (size_t k = 0; k < nops; ++k) sp.strides[k].push_back(operand_strides[k][d]);
  }
  if (sp.shape.empty()) {  // all unit dims: one element
    sp.shape = {1};
    for (auto& st : sp.strides) st = {0};
    if (masked) sp.reduced = {false};
  }
  return sp;
}

IterSpace coalesce_in_order(const Shape& shape, const std::vector<Strides>& operand_strides,
                            const std::vector<int>& dims) {
  const size_t nops = operand_strides.size();
  IterSpace sp;
  sp.strides.assign(nops, Strides{});
  for (int d : dims) {
    if (shape[d] == 1) continue;
    bool merge = !sp.shape.empty();
    for (size_t k = 0; k < nops && merge; ++k) merge = sp.strides[k].back() == operand_strides[k][d] * shape[d];
    if (merge) {
      sp.shape.back() *= shape[d];
      for (size_t k = 0; k < nops; ++k) sp.strides[k].back() = operand_strides[k][d];
      continue;
    }
    sp.shape.push_back(shape[d]);
    for (size_t k = 0; k < nops; ++k) sp.strides[k].push_back(operand_strides[k][d]);
  }
  if (sp.shape.empty()) {
    sp.shape = {1};
    for (auto& st : sp.strides) st = {0};
  }
  return sp;
}

IterSpace coalesce_in_order(const Shape& shape, const std::vector<Strides>& operand_strides) {
  std::vector<int> dims(shape.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int>(d);
  return coalesce_in_order(shape, operand_strides, dims);
}

ReduceSpaces split_reduction(const Shape& shape, const std::vector<Strides>& operand_strides,
                             const std::vector<bool>& reduce_mask) {
  std::vector<int> kept, red;
  for (size_t d = 0; d < shape.size(); ++d) (reduce_mask[d] ? red : kept).push_back(static_cast<int>(d));
  return {coalesce_in_order(shape, operand_strides, kept), coalesce_in_order(shape, operand_strides, red)};
}

namespace {

int64_t span_of(const IterSpace& sp, size_t k, int d) { return std::abs(sp.strides[k][d]) * (sp.shape[d] - 1); }

void split_into(IterPiece piece, int64_t lim, std::vector<IterPiece>* out) {
  const IterSpace& sp = piece.space;
  if (sp.fits_int32(lim)) {
    out->push_back(std::move(piece));
    return;
  }
  // The dim of the largest span over the operands; where every span fits (the element count
  // does not), the dim of the largest extent.
  int best = -1;
  int64_t best_span = -1;
  bool spans_fit = true;
  for (size_t k = 0; k < sp.strides.size(); ++k) {
    int64_t total = 0;
    for (int d = 0; d < sp.ndim(); ++d) total += span_of(sp, k, d);
    spans_fit &= total <= lim;
  }
  for (int d = 0; d < sp.ndim(); ++d) {
    if (sp.shape[d] < 2) continue;
    int64_t key = sp.shape[d];
    if (!spans_fit) {
      key = 0;
      for (size_t k = 0; k < sp.strides.size(); ++k) key = std::max(key, span_of(sp, k, d));
    }
    if (key > best_span) best_span = key, best = d;
  }
  if (best < 0) throw Error("split_for_int32: a space of one element does not fit 32 bits");  // cannot happen
  int64_t n1 = sp.shape[best] / 2;
  if (n1 >= 64) n1 -= n1 % 64;  // keeps vector alignment; both halves stay non-empty
  IterPiece hi = piece;
  piece.space.shape[best] = n1;
  hi.space.shape[best] -= n1;
  for (size_t k = 0; k < hi.offsets.size(); ++k) hi.offsets[k] += n1 * hi.space.strides[k][best];
  split_into(std::move(piece), lim, out);
  split_into(std::move(hi), lim, out);
}

}  // namespace

std::vector<IterPiece> split_for_int32(const IterSpace& sp, int64_t max_index) {
  std::vector<IterPiece> out;
  if (sp.size() == 0) return out;
  split_into(IterPiece{sp, std::vector<int64_t>(sp.strides.size(), 0)}, max_index, &out);
  return out;
}

std::pair<int64_t, int64_t> byte_extent(const Shape& shape, const Strides& strides, int64_t byte_offset,
                                        int64_t itemsize) {
  int64_t lo = byte_offset, hi = byte_offset;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return {0, 0};
    const int64_t span = (shape[d] - 1) * strides[d] * itemsize;
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + itemsize};
}

std::pair<int64_t, int64_t> byte_extent(const Array& a) {
  return byte_extent(a.shape, a.strides, a.byte_offset, int64_t(a.itemsize()));
}

namespace {

// A view as `rows` runs of `run` bytes, run k at base + k * step (step >= 0): what a view of at
// most two dims (unit dims aside) is when one of them is contiguous or it has one.
struct ByteRuns {
  int64_t base, step, rows, run;
};

bool as_byte_runs(const Array& a, ByteRuns* out) {
  const int64_t item = static_cast<int64_t>(a.itemsize());
  int64_t shape[2], stride[2], base = a.byte_offset;
  int nd = 0;
  for (int d = 0; d < a.ndim(); ++d) {
    if (a.shape[d] == 1) continue;
    if (nd == 2) return false;
    shape[nd] = a.shape[d];
    stride[nd] = a.strides[d] * item;
    if (stride[nd] < 0) {  // from the lowest address up
      base += (shape[nd] - 1) * stride[nd];
      stride[nd] = -stride[nd];
    }
    ++nd;
  }
  if (nd == 0) {
    *out = {base, 0, 1, item};
  } else if (nd == 1) {
    *out = stride[0] == item ? ByteRuns{base, 0, 1, shape[0] * item} : ByteRuns{base, stride[0], shape[0], item};
  } else if (stride[1] == item) {
    *out = {base, stride[0], shape[0], shape[1] * item};
  } else if (stride[0] == item) {
    *out = {base, stride[1], shape[1], shape[0] * item};
  } else {
    return false;
  }
  return true;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether the bytes [lo, hi) meet one of r's runs.
bool meets(int64_t lo, int64_t hi, const ByteRuns& r) {
  if (r.rows == 1 || r.step == 0) return lo < r.base + r.run && r.base < hi;
  // Runs k with base + k*step < hi and lo < base + k*step + run.
  const int64_t first = std::max<int64_t>(floor_div(lo - r.run - r.base, r.step) + 1, 0);
  const int64_t last = std::min<int64_t>(floor_div(hi - 1 - r.base, r.step), r.rows - 1);
  return first <= last;
}

}  // namespace

bool bytes_may_meet(const Array& a, const Array& b) {
  if (a.storage != b.storage) return false;
  auto [alo, ahi] = byte_extent(a);
  auto [blo, bhi] = byte_extent(b);
  if (!(alo < bhi && blo < ahi)) return false;
  ByteRuns ra, rb;
  if (!as_byte_runs(a, &ra) || !as_byte_runs(b, &rb)) return true;
  if (ra.rows > rb.rows) std::swap(ra, rb);
  constexpr int64_t kMaxRuns = 4096;  // bounded work: past it, the extents' answer
  if (ra.rows > kMaxRuns) return true;
  for (int64_t k = 0; k < ra.rows; ++k) {
    const int64_t lo = ra.base + k * ra.step;
    if (meets(lo, lo + ra.run, rb)) return true;
  }
  return false;
}

MemOverlap memory_overlap(const Array& a, const Array& b) {
  if (a.storage != b.storage) return MemOverlap::None;
  const bool same = a.byte_offset == b.byte_offset && a.dtype == b.dtype && a.shape == b.shape &&
                    a.strides == b.strides;
  if (same) return a.size() == 0 ? MemOverlap::None : MemOverlap::Same;
  return bytes_may_meet(a, b) ? MemOverlap::Partial : MemOverlap::None;
}

}  // namespace nf
