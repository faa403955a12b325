// The sort node kinds (ops/sort.h builds them): a sort, argsort or partition along one axis, and
// a binary search of values in a sorted 1-D array. They describe the work only; the backends'
// sort files compute it.
#pragma once
#include <string>
#include <vector>

#include "numfuse/ir/node.h"

namespace nf {

// Sorts every line of inputs[0] along `axis` in NumPy's order (NaNs last; complex numbers by
// real then imaginary part, with NumPy's NaN classes), or, when `kth` is not empty, partitions
// them (each kth element in its sorted place, smaller ones before, larger after). Outputs, in
// this order: the sorted values (when `values`) and the int64 indices that sort each line (when
// `indices`), both of the input's shape. A sort is always stable (equal keys keep their order),
// which every `kind` NumPy accepts allows.
struct SortNode : Node {
  int axis = 0;
  bool values = true;
  bool indices = false;
  std::vector<int64_t> kth;  // ascending, each in [0, n); empty: a full sort
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override {
    if (!kth.empty()) return indices ? "argpartition" : "partition";
    return indices && !values ? "argsort" : "sort";
  }
};

// np.searchsorted: for each element of inputs[1] (the values, of inputs[0]'s dtype), the int64
// index where it would be inserted into the sorted 1-D inputs[0] (through the permutation
// inputs[2] when `sorter`): the first place (side 'left') or the last (`right`) that keeps the
// order, in NumPy's order (NaNs last).
struct SearchSortedNode : Node {
  bool right = false;
  bool sorter = false;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "searchsorted"; }
};

}  // namespace nf
