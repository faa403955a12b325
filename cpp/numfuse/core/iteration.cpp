#include "numfuse/core/iteration.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace nf {

bool IterSpace::fits_int32() const {
  const int64_t lim = std::numeric_limits<int32_t>::max();
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

IterSpace make_iter_space(const Shape& shape, const std::vector<Strides>& operand_strides, int key) {
  const size_t nops = operand_strides.size();
  {
    IterSpace flat;
    if (flat_space(shape, operand_strides, &flat)) return flat;
  }
  // 1. Drop unit dims (an empty space keeps one dim of 0 so that size() == 0).
  std::vector<int> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) {
      IterSpace empty;
      empty.shape = {0};
      empty.strides.assign(nops, Strides{0});
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
      bool merge = true;
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
    for (size_t k = 0; k < nops; ++k) sp.strides[k].push_back(operand_strides[k][d]);
  }
  if (sp.shape.empty()) {  // all unit dims: one element
    sp.shape = {1};
    for (auto& st : sp.strides) st = {0};
  }
  return sp;
}

}  // namespace nf
