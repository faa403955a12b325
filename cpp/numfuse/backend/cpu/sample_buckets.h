// Sample-sort buckets: splitters drawn from a sample of a line cut it into ordered buckets (every
// element of bucket b is <= every element of bucket b + 1 in NumPy's order), counted and scattered
// in two passes over `parts` ranges on the thread pool. A long line's sort then sorts each bucket
// alone. (A partition that selected only in the kth's bucket of 64 was no faster than
// std::nth_element on the whole line: the bucket search cost as much as the selection.)
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "numfuse/backend/cpu/host_scratch.h"
#include "numfuse/backend/cpu/sort_keys.h"
#include "numfuse/backend/cpu/thread_pool.h"

namespace nf::cpu {

// How finely a long line's sample sort cuts its work. Both passes and the bucket sorts are claimed
// dynamically by the threads (parallel_for), so that a thread which loses its core to another
// process (this machine's 2 cores are shared) leaves its unclaimed share to the others instead of
// making them wait: many small buckets and several ranges per thread, not one each.
inline int sample_sort_buckets(int threads) {
  int buckets = 2;
  while (buckets < threads * 16 && buckets < 128) buckets *= 2;
  return buckets;
}
inline int sample_sort_parts(int64_t n, int threads) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads * 8, n / 65536)));
}

// Scatters the n elements in[i * si] into `buckets` (at most 256) ordered buckets, handing each over as
// put(position, i). Returns the buckets' starts (buckets + 1 of them, the last n). Meant for
// lines of many thousands of elements (the sample takes 64 per bucket).
template <class T, class Put>
std::vector<int64_t> scatter_to_buckets(const T* in, int64_t n, int64_t si, int buckets, int parts,
                                        const Put& put) {
  using SK = SortKey<T>;
  using K = typename SK::K;
  std::vector<K> sample(static_cast<size_t>(buckets) * 64);
  const int64_t ns = static_cast<int64_t>(sample.size());
  for (int64_t i = 0; i < ns; ++i) sample[i] = SK::key(in[(i * (n / ns)) * si]);
  std::sort(sample.begin(), sample.end());
  std::vector<K> splitters(buckets - 1);
  for (int b = 0; b + 1 < buckets; ++b) splitters[b] = sample[(b + 1) * ns / buckets];
  const K* sp = splitters.data();
  // The bucket: how many splitters are <= the element's key. Up to 64 buckets: a linear count (it
  // vectorises; 25 ms for 1e7 float32 and 31 splitters, where the binary search took 180 ms);
  // more (a power of two): a binary search.
  const int nsp = buckets - 1;
  const bool pow2 = (buckets & (buckets - 1)) == 0;
  // Long lines of 32- and 64-bit keys: a table indexed by the key's top 16 bits (20 bits from 4M
  // elements on) gives the number of splitters below that prefix's range, and whether splitters
  // fall inside it (then the few inside are compared, typically one). For 1e7 float32 on one
  // thread: 16 ms, against 25 ms for the linear count over 31 splitters and 180 ms for the
  // binary search, whose compares the compiler left as mispredicted branches. With 16 bits of a
  // float64 key (4 of them mantissa) a splitter cuts 1/16 of an octave: 65% of 1e7 integers
  // below 1e6 fell in cut prefixes (count 46 ms); with 20 bits, under 1% (count 10 ms).
  const int prefix_bits = n >= (int64_t(1) << 22) ? 20 : 16;
  const int shift = static_cast<int>(sizeof(K) * 8) - prefix_bits;
  constexpr uint8_t kCut = 0x80;  // flag: a splitter inside the prefix's range
  std::vector<uint8_t> table;
  if constexpr (sizeof(K) >= 4) {
    if (n >= (int64_t(1) << 19) && buckets <= 128) {
      table.resize(size_t(1) << prefix_bits);
      int lo_b = 0;  // splitters <= the prefix's first key
      for (uint32_t p = 0; p < (1u << prefix_bits); ++p) {
        const K lo = K(K(p) << shift), hi = K(lo | K((K(1) << shift) - 1));
        while (lo_b < nsp && sp[lo_b] <= lo) ++lo_b;
        const bool cut = lo_b < nsp && sp[lo_b] <= hi;
        table[p] = static_cast<uint8_t>(lo_b | (cut ? kCut : 0));
      }
    }
  }
  const uint8_t* tab = table.empty() ? nullptr : table.data();
  auto bucket_of = [&](const T& x) {
    const K k = SK::key(x);
    if constexpr (sizeof(K) >= 4) {
      if (tab) {
        const uint8_t t = tab[k >> shift];
        int b = t & (kCut - 1);
        if (t & kCut) {
          // The first splitter inside without a branch (which way a key falls is random); the
          // loop is for prefixes cut by several, where its test is predictably false elsewhere.
          b += sp[b] <= k;
          while (b < nsp && sp[b] <= k) ++b;
        }
        return b;
      }
    }
    int b = 0;
    if (pow2 && buckets > 64) {
      for (int step = buckets / 2; step > 0; step >>= 1) b += sp[b + step - 1] <= k ? step : 0;
    } else {
      for (int s = 0; s < nsp; ++s) b += sp[s] <= k;
    }
    return b;
  };
  auto part_begin = [&](int q) { return n * q / parts; };
  std::vector<int64_t> counts(static_cast<size_t>(parts) * buckets, 0);
  HostScratch<uint8_t> bucket_ids(n);  // each element's bucket, found once
  uint8_t* ids = bucket_ids.data();
  parallel_for(parts, 1, [&](int64_t qb, int64_t qe) {
    for (int64_t q = qb; q < qe; ++q) {
      int64_t* c = counts.data() + q * buckets;
      for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) {
        const uint8_t b = static_cast<uint8_t>(bucket_of(in[i * si]));
        ids[i] = b;
        ++c[b];
      }
    }
  });
  std::vector<int64_t> starts(buckets + 1, 0);
  int64_t pos = 0;
  for (int b = 0; b < buckets; ++b) {
    starts[b] = pos;
    for (int q = 0; q < parts; ++q) {
      int64_t& c = counts[q * buckets + b];
      const int64_t m = c;
      c = pos;
      pos += m;
    }
  }
  starts[buckets] = n;
  parallel_for(parts, 1, [&](int64_t qb, int64_t qe) {
    for (int64_t q = qb; q < qe; ++q) {
      int64_t* off = counts.data() + q * buckets;
      for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) put(off[ids[i]]++, i);
    }
  });
  return starts;
}

}  // namespace nf::cpu
