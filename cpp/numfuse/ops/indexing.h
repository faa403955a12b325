// Basic indexing (integers, slices, None, Ellipsis): views that share memory.
#pragma once
#include <vector>

#include "numfuse/core/array.h"

namespace nf {

struct IndexItem {
  enum class Kind : uint8_t { Integer, Slice, NewAxis, Ellipsis };
  Kind kind;
  int64_t index = 0;                      // Integer (may be negative)
  int64_t start = 0, step = 1, length = 0;  // Slice, already adjusted to the axis (PySlice)
  // Slices arrive unadjusted from Python as raw (start, stop, step) with "none" flags.
  bool has_start = false, has_stop = false;
  int64_t stop = 0;

  static IndexItem integer(int64_t i) { return {Kind::Integer, i}; }
  static IndexItem new_axis() { return {Kind::NewAxis}; }
  static IndexItem ellipsis() { return {Kind::Ellipsis}; }
  static IndexItem slice(bool has_start, int64_t start, bool has_stop, int64_t stop, int64_t step);
};

// Python's PySlice_AdjustIndices for a Slice item: its first index on an axis of `dim` and the
// count of items it selects there.
void adjust_slice(const IndexItem& it, int64_t dim, int64_t* start, int64_t* length);

// a[items] for basic items only. Throws IndexError as NumPy words it.
Array basic_index(const Array& a, const std::vector<IndexItem>& items);

}  // namespace nf
