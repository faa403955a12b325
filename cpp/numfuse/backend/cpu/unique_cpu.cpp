// UniqueNode on the CPU: the CPU sort of the values straight into the values output, then one
// pass keeping the first of every run of equal keys (and its length, for the counts) (sort_keys.h's canonical keys: -0.0 is 0.0,
// every NaN the largest key), as NumPy's _unique1d keeps the first of each run.
#include <cstdint>
#include <vector>

#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/sort_keys.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

namespace {

template <class T>
int64_t keep_first_of_runs(T* v, int64_t n, bool equal_nan, int64_t* counts) {
  using SK = SortKey<T>;
  using K = typename SK::K;
  // Every NaN's key is all ones: one value with equal_nan, else each NaN its own.
  const bool nan_distinct = !equal_nan && is_floating(dtype_of<T>::value);
  int64_t k = 1, start = 0;
  K last = SK::key(v[0], true);
  for (int64_t i = 1; i < n; ++i) {
    const K key = SK::key(v[i], true);
    if (key != last || (nan_distinct && key == K(~K(0)))) {
      if (counts) counts[k - 1] = i - start;
      start = i;
      v[k++] = v[i];
    }
    last = key;
  }
  if (counts) counts[k - 1] = n - start;
  return k;
}

}  // namespace

void eval_unique(UniqueNode& node, const std::vector<Array>& outs) {
  const Array& values = outs[0];
  int64_t* count = outs[1].data_as<int64_t>();
  const int64_t n = node.inputs[0].size();
  *count = 0;
  if (n == 0) return;
  SortNode sort;
  sort.device = node.device;
  sort.inputs = {node.inputs[0]};
  eval_sort(sort, {values});
  NF_DISPATCH(values.dtype, "unique", {
    if constexpr (!kHasSortKey<scalar_t>) {
      throw TypeError("unique_values: complex dtypes are not supported");
    } else {
      *count = keep_first_of_runs(values.data_as<scalar_t>(), n, node.equal_nan,
                                  node.counts ? outs[2].data_as<int64_t>() : nullptr);
    }
  });
}

}  // namespace nf::cpu
