// Sorting and searching: sort, argsort, partition, argpartition and searchsorted. Axes, kth and
// shapes are validated here, eagerly, with NumPy's errors; the result is pending, produced by a
// SortNode or SearchSortedNode (ir/sort.h) that the backends' sort files compute.
#pragma once
#include <optional>
#include <vector>

#include "numfuse/ir/sort.h"

namespace nf {

// np.sort(a, axis): axis nullopt sorts the flattened array. NaNs last, stable.
Array sort(const Array& a, std::optional<int64_t> axis);
// np.argsort(a, axis): int64 indices that sort a along axis (stable). A 0-d input gives [0],
// as NumPy's does.
Array argsort(const Array& a, std::optional<int64_t> axis);
// np.partition / np.argpartition: kth (one index or several, negative from the end) in their
// sorted places along axis. Returns the values, or the indices when `indices`.
Array partition(const Array& a, const std::vector<int64_t>& kth, std::optional<int64_t> axis,
                bool indices);
// np.searchsorted(a, v, side, sorter) with a 1-D and a, v (and sorter, int64, a's size) already
// of one dtype: int64 insertion indices of v's shape.
Array searchsorted(const Array& a, const Array& v, bool right, const std::optional<Array>& sorter);

}  // namespace nf
