// UniqueNode on the CPU: the CPU sort of the values straight into the values output, then one
// pass keeping the first of every run of equal keys (and its length, for the counts) (sort_keys.h's canonical keys: -0.0 is 0.0,
// every NaN the largest key), as NumPy's _unique1d keeps the first of each run.
// Long float lines with a free second core: the sample sort's buckets are each sorted and
// compacted in one task (the compaction runs on every thread, on a bucket still in cache), then
// the kept runs are packed and the runs that continue across a bucket boundary joined.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "numfuse/backend/cpu/core_load.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/sample_buckets.h"
#include "numfuse/backend/cpu/sort_cpu.h"
#include "numfuse/backend/cpu/sort_keys.h"
#include "numfuse/backend/cpu/thread_pool.h"
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

// Below this many elements the fused path's buckets are not worth their passes.
constexpr int64_t kFusedMinLength = int64_t(1) << 18;

// The fused sample sort and compaction of n floats in[i * si] into v (n elements). Returns the
// count, or -1 when it does not apply (no NumPy sort loop, one thread or no free core).
template <class T>
int64_t unique_by_buckets(const T* in, int64_t n, int64_t si, T* v, bool equal_nan, int64_t* counts) {
  using SK = SortKey<T>;
  using K = typename SK::K;
  const InPlaceSort f = inplace_sort(dtype_of<T>::value);
  const int threads = num_threads();
  if (!f || threads < 2 || n < kFusedMinLength) return -1;
  const int usable = cores_free_now(threads);
  if (usable < 2) return -1;
  const int buckets = sample_sort_buckets(usable);
  const std::vector<int64_t> starts = scatter_to_buckets(in, n, si, buckets, sample_sort_parts(n, usable),
                                                         [&](int64_t pos, int64_t i) { v[pos] = in[i * si]; });
  std::vector<int64_t> kept(buckets, 0);
  parallel_for(buckets, 1, [&](int64_t bb, int64_t be) {
    for (int64_t b = bb; b < be; ++b) {
      const int64_t lo = starts[b], len = starts[b + 1] - lo;
      if (len == 0) continue;
      f(v + lo, len, nullptr);
      kept[b] = keep_first_of_runs(v + lo, len, equal_nan, counts ? counts + lo : nullptr);
    }
  });
  // Pack the buckets' kept runs to the front. Equal canonical keys can sit on both sides of a
  // boundary (-0.0 and 0.0 have distinct plain keys, which the buckets are cut by): the later
  // run then joins the earlier one, as one pass over the whole line would have found.
  const bool nan_distinct = !equal_nan;
  int64_t k = 0;
  for (int b = 0; b < buckets; ++b) {
    int64_t lo = starts[b], m = kept[b];
    if (m == 0) continue;
    if (k > 0) {
      const K first = SK::key(v[lo], true);
      if (first == SK::key(v[k - 1], true) && !(nan_distinct && first == K(~K(0)))) {
        if (counts) counts[k - 1] += counts[lo];
        ++lo, --m;
      }
    }
    if (m == 0) continue;
    if (lo != k) {
      std::memmove(v + k, v + lo, static_cast<size_t>(m) * sizeof(T));
      if (counts) std::memmove(counts + k, counts + lo, static_cast<size_t>(m) * sizeof(int64_t));
    }
    k += m;
  }
  return k;
}

}  // namespace

void eval_unique(UniqueNode& node, const std::vector<Array>& outs) {
  const Array& values = outs[0];
  int64_t* count = outs[1].data_as<int64_t>();
  const int64_t n = node.inputs[0].size();
  *count = 0;
  if (n == 0) return;
  if (values.dtype == DType::Float32 || values.dtype == DType::Float64) {
    const Array& in = node.inputs[0];
    int64_t* counts = node.counts ? outs[2].data_as<int64_t>() : nullptr;
    int64_t k = -1;
    if (values.dtype == DType::Float32) {
      k = unique_by_buckets(in.data_as<float>(), n, in.strides[0], values.data_as<float>(), node.equal_nan, counts);
    } else {
      k = unique_by_buckets(in.data_as<double>(), n, in.strides[0], values.data_as<double>(), node.equal_nan, counts);
    }
    if (k >= 0) {
      *count = k;
      return;
    }
  }
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
