// Advanced indexing (integer arrays, boolean masks) with NumPy's rules, and nonzero.
// Reads are copies (a pending Gather node); writes go into the original, eagerly.
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/gather.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/indexing.h"

namespace nf {

// One item of an index key: a basic item, or an integer or boolean array.
struct KeyItem {
  bool is_array = false;
  IndexItem basic{IndexItem::Kind::NewAxis};
  Array array;

  static KeyItem of(IndexItem it) { return {false, it, {}}; }
  static KeyItem of(Array a) { return {true, IndexItem{IndexItem::Kind::NewAxis}, std::move(a)}; }
};

// How a key applies to an array, NumPy's way: the basic items make a view, and the arrays
// (integers count as arrays once any array is present; boolean masks become their nonzero())
// index some dims of that view.
struct IndexPlan {
  Array view;                    // the array after the basic items; indexed dims kept whole
  std::vector<int> adv_dims;     // dims of `view` indexed by arrays, in key order
  std::vector<int> adv_axes;     // the same dims as NumPy's errors number them
  std::vector<Array> indices;    // int64 index arrays, one per adv_dims entry
  Shape bshape;                  // their broadcast shape
  bool adjacent = true;          // the arrays were one run of the key: B goes where they were
  int pos = 0;                   // the result dim where B starts
  Shape result_shape;
  std::vector<bool> scalar_index;  // per index: it came from an integer of the key
  std::vector<bool> from_mask;     // per index: nonzero() of a boolean mask, in bounds by making
};

// Analyses `key` against `a`, with NumPy's errors (IndexError for bad or out-of-bounds
// indices). Boolean masks and pending index arrays are evaluated (FlushReason::DataDependent).
// check_arrays=false leaves the bounds of array indices to check_index_bounds (a write checks
// its value's shape first, as NumPy does).
IndexPlan plan_index(const Array& a, const std::vector<KeyItem>& key, bool check_arrays = true);
// The bounds of the integer indices (arrays=false) or of the array indices (true) of a plan.
void check_index_bounds(const IndexPlan& plan, bool arrays);

// a[key] for a key that holds arrays: a new array (pending Gather node).
Array gather(const IndexPlan& plan);
Array getitem(const Array& a, const std::vector<KeyItem>& key);

// a[key] = value, with broadcasting and a cast to a's dtype; repeated indices: the last wins.
// A lone boolean mask with a value that does not depend on the count of Trues is a where().
void setitem(const Array& a, const std::vector<KeyItem>& key, const Operand& value);

// v without leading unit dims while it has more than `ndim` dims: NumPy's setitem allows them.
Array strip_leading_ones(const Array& v, size_t ndim);

// numpy.nonzero: one int64 array per dim (evaluates `a`: its result's shape depends on values).
std::vector<Array> nonzero(const Array& a);
// The number of nonzero elements (evaluates `a`).
int64_t count_nonzero(const Array& a);

}  // namespace nf
