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

IterSpace make_iter_space(const Shape& shape, const std::vector<Strides>& operand_strides, int key) {
  const size_t nops = operand_strides.size();
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
