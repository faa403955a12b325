// A stable LSD radix sort of unsigned keys (backend/cpu/sort_keys.h makes them), with an
// optional int64 payload (argsort's indices), over `parts` ranges sorted side by side on the
// thread pool. It beat std::sort / std::stable_sort on long lines by 5-10x here and is what
// matches NumPy's AVX-512 sort (docs/decisions.md, "Sorting on the CPU").
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "numfuse/backend/cpu/thread_pool.h"

namespace nf::cpu {

// The digit width: 11 bits (2048 buckets, whose write positions stay in L2) for 32- and 64-bit
// keys, 8 bits for 8- and 16-bit keys.
template <class K>
constexpr int radix_bits() {
  return sizeof(K) >= 4 ? 11 : 8;
}

// Sorts the n keys load(i) (i in [0, n)) and hands them over in order as store(pos, key, index),
// index being the key's position in the input (stable: equal keys keep their input order).
// Scratch: ka, kb of n keys; ia, ib of n indices when `kWithIndex`. Digits that are equal in
// every key are skipped (a pass of OR/AND finds them), so small-range integers take one or two
// passes. parts > 1 splits each pass over the thread pool (one long line); parts == 1 runs on the
// calling thread (one line of many sorted in parallel).
template <class K, bool kWithIndex, class Load, class Store>
void radix_sort(int64_t n, int parts, const Load& load, const Store& store, K* ka, K* kb,
                int64_t* ia, int64_t* ib) {
  constexpr int kBits = radix_bits<K>();
  constexpr int kRadix = 1 << kBits;
  constexpr int kKeyBits = static_cast<int>(sizeof(K) * 8);
  constexpr int kPasses = (kKeyBits + kBits - 1) / kBits;
  if (n <= 0) return;
  parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(parts, n / 4096)));
  auto part_begin = [&](int q) { return n * q / parts; };
  auto run_parts = [&](auto&& fn) {
    if (parts == 1) return fn(0);
    parallel_for(parts, 1, [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) fn(static_cast<int>(q));
    });
  };

  // Which digits differ between keys: (OR of keys) ^ (AND of keys).
  std::vector<K> ors(parts, K(0)), ands(parts, K(~K(0)));
  run_parts([&](int q) {
    K o = 0, a = K(~K(0));
    for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) {
      const K k = load(i);
      o |= k;
      a &= k;
    }
    ors[q] = o;
    ands[q] = a;
  });
  K diff_bits = 0, all_or = 0, all_and = K(~K(0));
  for (int q = 0; q < parts; ++q) all_or |= ors[q], all_and &= ands[q];
  diff_bits = all_or ^ all_and;
  std::vector<int> active;
  for (int p = 0; p < kPasses; ++p) {
    if ((diff_bits >> (p * kBits)) & K(kRadix - 1)) active.push_back(p);
  }
  if (active.empty()) {
    run_parts([&](int q) {
      for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) store(i, load(i), i);
    });
    return;
  }

  std::vector<int64_t> counts(static_cast<size_t>(parts) * kRadix);
  K* src_k = nullptr;
  int64_t* src_i = nullptr;
  for (size_t j = 0; j < active.size(); ++j) {
    const int shift = active[j] * kBits;
    const bool first = j == 0, last = j + 1 == active.size();
    K* dst_k = (j % 2 == 0) ? ka : kb;
    int64_t* dst_i = (j % 2 == 0) ? ia : ib;
    auto key_at = [&](int64_t i) { return first ? load(i) : src_k[i]; };
    run_parts([&](int q) {
      int64_t* c = counts.data() + static_cast<size_t>(q) * kRadix;
      std::fill(c, c + kRadix, 0);
      for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) {
        ++c[(key_at(i) >> shift) & (kRadix - 1)];
      }
    });
    // Each part's first write position per digit: all smaller digits, then this digit in the
    // parts before it (which keeps the sort stable).
    int64_t pos = 0;
    for (int d = 0; d < kRadix; ++d) {
      for (int q = 0; q < parts; ++q) {
        int64_t& c = counts[static_cast<size_t>(q) * kRadix + d];
        const int64_t m = c;
        c = pos;
        pos += m;
      }
    }
    run_parts([&](int q) {
      int64_t* off = counts.data() + static_cast<size_t>(q) * kRadix;
      for (int64_t i = part_begin(q), e = part_begin(q + 1); i < e; ++i) {
        const K k = key_at(i);
        const int64_t at = off[(k >> shift) & (kRadix - 1)]++;
        const int64_t idx = kWithIndex ? (first ? i : src_i[i]) : 0;
        if (last) {
          store(at, k, idx);
        } else {
          dst_k[at] = k;
          if constexpr (kWithIndex) dst_i[at] = idx;
        }
      }
    });
    src_k = dst_k;
    src_i = dst_i;
  }
}

}  // namespace nf::cpu
