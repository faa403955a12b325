// SortNode and SearchSortedNode on the CPU. Lines along the axis are sorted side by side on the
// thread pool (one line per task) or, when there are fewer lines than threads, one after another
// with the radix sort's passes split over the threads. Every dtype but complex sorts as unsigned
// keys (sort_keys.h): radix for long lines, std::sort for short ones, std::nth_element for
// partitions; complex numbers sort with NumPy's comparator.
#include <algorithm>
#include <numeric>
#include <vector>

#include "numfuse/backend/cpu/sort_cpu.h"

#include <atomic>
#include <memory>

#include "numfuse/backend/cpu/core_load.h"
#include "numfuse/backend/cpu/host_scratch.h"
#include "numfuse/backend/cpu/long_partition.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/radix_sort.h"
#include "numfuse/backend/cpu/sample_buckets.h"
#include "numfuse/backend/cpu/select_kth.h"
#include "numfuse/backend/cpu/sort_keys.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

namespace {

std::atomic<InPlaceSort> g_inplace_sorts[kNumDTypes];

// Below this many elements a line is sorted by comparison: the radix sort's 2048-bucket
// counters cost more than n log n compares there.
constexpr int64_t kRadixMinLength = 2048;

// The offset of every line's first element, lines in C order of the dims other than `axis`.
std::vector<int64_t> line_offsets(const Shape& shape, const Strides& strides, int axis) {
  int64_t lines = 1;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d != axis) lines *= shape[d];
  }
  std::vector<int64_t> offs(static_cast<size_t>(lines));
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t off = 0;
  for (int64_t l = 0; l < lines; ++l) {
    offs[l] = off;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (d == axis) continue;
      if (++idx[d] < shape[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
  return offs;
}

// One line: n elements of `in` at stride si; outputs (either may be null) at strides sv, sx.
struct Line {
  int64_t n, si, sv, sx;
};

// Scratch a task reuses over its lines.
template <class T, class K>
struct Scratch {
  HostScratch<K> ka, kb;
  HostScratch<int64_t> ia, ib;
  // (bool sorts by radix: one pass of counting; vector<bool> has no data())
  std::vector<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>> values;
  std::vector<std::pair<K, int64_t>> pairs;
};

// A long line on every thread (sample sort): sample_buckets.h cuts it into a few ordered buckets
// per thread, scattered into the output in one parallel pass, and each bucket is sorted in place
// there by NumPy's sort `f`. No merge: a merge of two runs cost as much as sorting them
// (docs/decisions.md).
template <class T>
void sort_long_line(InPlaceSort f, const T* in, T* vals, const Line& g, int threads) {
  const int64_t n = g.n;
  const int buckets = sample_sort_buckets(threads);
  HostScratch<T> scratch;
  T* out = vals;
  if (g.sv != 1) scratch.resize(n), out = scratch.data();
  const std::vector<int64_t> starts = scatter_to_buckets(in, n, g.si, buckets, sample_sort_parts(n, threads),
                                                         [&](int64_t pos, int64_t i) { out[pos] = in[i * g.si]; });
  parallel_for(buckets, 1, [&](int64_t bb, int64_t be) {
    for (int64_t b = bb; b < be; ++b) f(out + starts[b], starts[b + 1] - starts[b], nullptr);
  });
  if (out == vals) return;
  parallel_for(n, 1 << 16, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) vals[i * g.sv] = out[i];
  });
}

template <class T>
void sort_line_keyed(const T* in, T* vals, int64_t* idxs, const Line& g,
                     const std::vector<int64_t>& kth, int parts, Scratch<T, typename SortKey<T>::K>& s) {
  using SK = SortKey<T>;
  using K = typename SK::K;
  const int64_t n = g.n;
  auto put_index = [&](int64_t pos, int64_t i) {
    idxs[pos * g.sx] = i;
    if (vals) vals[pos * g.sv] = in[i * g.si];
  };
  if (!idxs) {
    InPlaceSort f = std::is_same_v<T, bool> ? nullptr : inplace_sort(dtype_of<T>::value);
    if (f && kth.empty() && parts == 1) {
      auto& buf = s.values;
      T* line = vals;
      if (g.sv != 1) buf.resize(n), line = reinterpret_cast<T*>(buf.data());
      for (int64_t i = 0; i < n; ++i) line[i] = in[i * g.si];
      f(line, n, nullptr);
      if (line != vals) for (int64_t i = 0; i < n; ++i) vals[i * g.sv] = line[i];
      return;
    }
    if (kth.empty() && n >= kRadixMinLength) {
      s.ka.resize(n), s.kb.resize(n);
      radix_sort<K, false>(
          n, parts, [&](int64_t i) { return SK::key(in[i * g.si]); },
          [&](int64_t pos, K k, int64_t) { vals[pos * g.sv] = SK::value(k); }, s.ka.data(),
          s.kb.data(), nullptr, nullptr);
      return;
    }
    s.ka.resize(n);
    K* keys = s.ka.data();
    for (int64_t i = 0; i < n; ++i) keys[i] = SK::key(in[i * g.si]);
    if (kth.empty()) {
      std::sort(keys, keys + n);
    } else {
      select_kth(keys, keys + n, kth);
    }
    for (int64_t i = 0; i < n; ++i) vals[i * g.sv] = SK::value(keys[i]);
    return;
  }
  if (kth.empty() && n >= kRadixMinLength) {
    s.ka.resize(n), s.kb.resize(n), s.ia.resize(n), s.ib.resize(n);
    radix_sort<K, true>(
        n, parts, [&](int64_t i) { return SK::key(in[i * g.si], true); },
        [&](int64_t pos, K, int64_t i) { put_index(pos, i); }, s.ka.data(), s.kb.data(), s.ia.data(),
        s.ib.data());
    return;
  }
  s.pairs.resize(n);
  for (int64_t i = 0; i < n; ++i) s.pairs[i] = {SK::key(in[i * g.si], true), i};
  // (key, index) pairs compare as keys first, then input order: stable, and a total order for
  // nth_element.
  if (kth.empty()) {
    std::sort(s.pairs.begin(), s.pairs.end());
  } else {
    select_kth(s.pairs.begin(), s.pairs.end(), kth);
  }
  for (int64_t pos = 0; pos < n; ++pos) put_index(pos, s.pairs[pos].second);
}

template <class C>
void sort_line_complex(const C* in, C* vals, int64_t* idxs, const Line& g,
                       const std::vector<int64_t>& kth, std::vector<int64_t>& order) {
  const int64_t n = g.n;
  order.resize(n);
  std::iota(order.begin(), order.end(), int64_t(0));
  const ComplexLess<C> less;
  // Ties broken by input position: stable, and a total order for nth_element.
  auto by_value = [&](int64_t a, int64_t b) {
    const C& x = in[a * g.si];
    const C& y = in[b * g.si];
    if (less(x, y)) return true;
    if (less(y, x)) return false;
    return a < b;
  };
  if (kth.empty()) {
    std::sort(order.begin(), order.end(), by_value);
  } else {
    select_kth(order.begin(), order.end(), kth, by_value);
  }
  for (int64_t pos = 0; pos < n; ++pos) {
    if (idxs) idxs[pos * g.sx] = order[pos];
    if (vals) vals[pos * g.sv] = in[order[pos] * g.si];
  }
}

// How many radix passes a line's keys need (the digits that differ between keys): one parallel
// pass of OR and AND over the keys.
template <class T>
int radix_passes_needed(const T* in, const Line& g, int threads) {
  using SK = SortKey<T>;
  using K = typename SK::K;
  std::vector<K> ors(threads, K(0)), ands(threads, K(~K(0)));
  parallel_for(threads, 1, [&](int64_t qb, int64_t qe) {
    for (int64_t q = qb; q < qe; ++q) {
      K o = 0, a = K(~K(0));
      for (int64_t i = g.n * q / threads, e = g.n * (q + 1) / threads; i < e; ++i) {
        const K k = SK::key(in[i * g.si]);
        o |= k;
        a &= k;
      }
      ors[q] = o;
      ands[q] = a;
    }
  });
  K o = 0, a = K(~K(0));
  for (int q = 0; q < threads; ++q) o |= ors[q], a &= ands[q];
  const K diff = o ^ a;
  constexpr int kBits = radix_bits<K>();
  int passes = 0;
  for (int shift = 0; shift < static_cast<int>(sizeof(K) * 8); shift += kBits) {
    passes += ((diff >> shift) & K((1u << kBits) - 1)) != 0;
  }
  return passes;
}

template <class T>
void sort_typed(const SortNode& node, const Array& in, const Array* vals, const Array* idxs) {
  const int axis = node.axis;
  const Line g{in.shape[axis], in.strides[axis], vals ? vals->strides[axis] : 0,
               idxs ? idxs->strides[axis] : 0};
  const std::vector<int64_t> in_offs = line_offsets(in.shape, in.strides, axis);
  // Outputs are C-contiguous of one shape: one line's offset serves both.
  const Array& out0 = vals ? *vals : *idxs;
  const std::vector<int64_t> out_offs = line_offsets(out0.shape, out0.strides, axis);
  const int64_t lines = static_cast<int64_t>(in_offs.size());
  const T* src = in.data_as<T>();
  T* vdst = vals ? vals->data_as<T>() : nullptr;
  int64_t* xdst = idxs ? idxs->data_as<int64_t>() : nullptr;
  const int threads = num_threads();
  // Few long lines: each line's passes use every thread; otherwise a line per task.
  const bool split_lines = lines < 2 * threads && g.n >= 65536;
  auto run_lines = [&](int64_t b, int64_t e, int parts) {
    if constexpr (kHasSortKey<T>) {
      Scratch<T, typename SortKey<T>::K> s;
      for (int64_t l = b; l < e; ++l) {
        sort_line_keyed<T>(src + in_offs[l], vdst ? vdst + out_offs[l] : nullptr,
                           xdst ? xdst + out_offs[l] : nullptr, g, node.kth, parts, s);
      }
    } else {
      std::vector<int64_t> order;
      for (int64_t l = b; l < e; ++l) {
        sort_line_complex<T>(src + in_offs[l], vdst ? vdst + out_offs[l] : nullptr,
                             xdst ? xdst + out_offs[l] : nullptr, g, node.kth, order);
      }
    }
  };
  // Few long lines partitioned for their values (np.median, the quantiles): every thread on
  // each line (long_partition.h); a line whose sample missed a kth takes the path below.
  if constexpr (kHasSortKey<T>) {
    if (!node.kth.empty() && !idxs && threads > 1 && lines < 2 * threads && g.n >= kLongPartitionMin) {
      for (int64_t l = 0; l < lines; ++l) {
        if (!partition_long_line<T>(src + in_offs[l], g.si, vdst + out_offs[l], g.sv, g.n, node.kth, threads)) {
          run_lines(l, l + 1, 1);
        }
      }
      return;
    }
  }
  if (split_lines && kHasSortKey<T> && node.kth.empty()) {
    InPlaceSort f = std::is_same_v<T, bool> ? nullptr : inplace_sort(in.dtype);
    // Integers whose keys differ in one radix digit only (a small range: 0..1000) take one
    // counting pass of the radix sort, faster than any comparison sort.
    if constexpr (std::is_integral_v<T>) {
      if (f && !idxs && lines == 1 && radix_passes_needed(src + in_offs[0], g, threads) <= 1) f = nullptr;
    }
    if (f && !idxs && threads > 1) {
      // No free second core: NumPy's loop on the whole line beats the sample sort's extra pass.
      if (cores_free_now(threads) <= 1) {
        run_lines(0, lines, 1);
        return;
      }
      if constexpr (kHasSortKey<T> && !std::is_same_v<T, bool>) {
        for (int64_t l = 0; l < lines; ++l) sort_long_line<T>(f, src + in_offs[l], vdst + out_offs[l], g, threads);
      }
      return;
    }
    run_lines(0, lines, threads);
  } else {
    const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(g.n, 1));
    parallel_for(lines, grain, [&](int64_t b, int64_t e) { run_lines(b, e, 1); });
  }
}

template <class T>
void searchsorted_typed(const SearchSortedNode& node, const Array& a, const Array& v,
                        const int64_t* sorter, const Array& out) {
  const T* av = a.data_as<T>();
  const T* vv = v.data_as<T>();
  const int64_t n = a.shape[0], sa = a.strides[0];
  int64_t* dst = out.data_as<int64_t>();
  // v in C order: its element offsets (a contiguous v needs none).
  const bool dense = v.c_contiguous();
  std::vector<int64_t> offs;
  if (!dense) {
    Shape s = v.shape;
    Strides st = v.strides;
    s.insert(s.begin(), 1);
    st.insert(st.begin(), 0);
    offs = line_offsets(s, st, 0);
  }
  const bool right = node.right;
  auto element = [&](int64_t j) -> const T& { return av[(sorter ? sorter[j] : j) * sa]; };
  parallel_for(v.size(), 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const T& x = vv[dense ? i : offs[i]];
      int64_t lo = 0, hi = n;  // the answer lies in [lo, hi]
      if constexpr (kHasSortKey<T>) {
        using SK = SortKey<T>;
        const auto kx = SK::key(x, true);
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          const auto km = SK::key(element(mid), true);
          if (right ? !(kx < km) : (km < kx)) lo = mid + 1;
          else hi = mid;
        }
      } else {
        const ComplexLess<T> less;
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (right ? !less(x, element(mid)) : less(element(mid), x)) lo = mid + 1;
          else hi = mid;
        }
      }
      dst[i] = lo;
    }
  });
}

}  // namespace

void set_inplace_sort(DType d, InPlaceSort f) { g_inplace_sorts[static_cast<int>(d)].store(f); }

InPlaceSort inplace_sort(DType d) { return g_inplace_sorts[static_cast<int>(d)].load(std::memory_order_relaxed); }

void eval_sort(SortNode& node, const std::vector<Array>& outs) {
  const Array& in = node.inputs[0];
  const Array* vals = node.values ? &outs[0] : nullptr;
  const Array* idxs = node.indices ? &outs[node.values ? 1 : 0] : nullptr;
  if (in.size() == 0) return;
  NF_DISPATCH(in.dtype, node.name().c_str(), { sort_typed<scalar_t>(node, in, vals, idxs); });
}

void eval_searchsorted(SearchSortedNode& node, const std::vector<Array>& outs) {
  const Array& a = node.inputs[0];
  const Array& v = node.inputs[1];
  const int64_t* sorter = nullptr;
  std::vector<int64_t> dense_sorter;
  if (node.sorter) {
    const Array& s = node.inputs[2];
    dense_sorter.resize(s.size());
    for (int64_t j = 0; j < s.size(); ++j) {
      const int64_t k = s.data_as<int64_t>()[j * s.strides[0]];
      if (k < 0 || k >= a.size()) throw ValueError("Sorter index out of range.");
      dense_sorter[j] = k;
    }
    sorter = dense_sorter.data();
  }
  if (v.size() == 0) return;
  NF_DISPATCH(a.dtype, "searchsorted", { searchsorted_typed<scalar_t>(node, a, v, sorter, outs[0]); });
}

}  // namespace nf::cpu
