#include "numfuse/backend/cpu/mask_cpu.h"

#include <algorithm>
#include <cstring>

namespace nf::cpu {

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// Bit j set where mask byte j of the 64 at m is nonzero (any nonzero byte is True, as NumPy
// reads a mask): each 8 bytes folded to 0/1 per byte, then packed by one multiplication (bit
// 8j moves to bit 56+j; the other products land below bit 56 or past bit 63, without carries).
inline uint64_t block_bits(const uint8_t* m) {
  uint64_t bits = 0;
  for (int q = 0; q < 8; ++q) {
    uint64_t w;
    std::memcpy(&w, m + 8 * q, 8);
    w |= w >> 4;
    w |= w >> 2;
    w |= w >> 1;
    w &= 0x0101010101010101ull;
    bits |= ((w * 0x0102040810204080ull) >> 56) << (8 * q);
  }
  return bits;
}

// Calls run(i, bits) for each block of 64 mask bytes from i that holds a True (the cost is one
// block test for an all-False block: sparse masks cost little), then one(i) for each True of
// the tail.
template <class Block, class One>
void for_each_true_block(const uint8_t* m, int64_t n, Block&& block, One&& one) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t any = 0;  // all False: eight loads and no packing
    for (int q = 0; q < 8; ++q) {
      uint64_t w;
      std::memcpy(&w, m + i + 8 * q, 8);
      any |= w;
    }
    if (any) block(i, block_bits(m + i));
  }
  for (; i < n; ++i) {
    if (m[i]) one(i);
  }
}

template <class T>
void select_typed(const Array& a, const Array& mask, const Array& out) {
  const uint8_t* m = mask.data_as<uint8_t>();
  const int64_t n = mask.size(), inner = a.size() / std::max<int64_t>(n, 1);
  const T* src = a.data_as<T>();
  T* dst = out.data_as<T>();
  const size_t block = static_cast<size_t>(inner) * sizeof(T);
  int64_t k = 0;
  auto one = [&](int64_t i) {
    if (inner == 1) {
      dst[k++] = src[i];
    } else {
      std::memcpy(dst + (k++) * inner, src + i * inner, block);
    }
  };
  for_each_true_block(m, n, [&](int64_t i, uint64_t bits) {
    if (bits == ~uint64_t(0)) {  // a run of 64 Trues: one copy
      std::memcpy(dst + k * inner, src + i * inner, 64 * block);
      k += 64;
      return;
    }
    do {
      one(i + __builtin_ctzll(bits));
      bits &= bits - 1;
    } while (bits);
  }, one);
}

template <class T>
void store_typed(const Array& a, const Array& mask, const Array& v, bool per_true) {
  const uint8_t* m = mask.data_as<uint8_t>();
  const int64_t n = mask.size(), inner = a.size() / std::max<int64_t>(n, 1);
  T* dst = a.data_as<T>();
  const T* src = v.data_as<T>();
  const size_t block = static_cast<size_t>(inner) * sizeof(T);
  int64_t k = 0;
  auto one = [&](int64_t i) {
    if (inner == 1) {
      dst[i] = src[per_true ? k++ : 0];
    } else {
      std::memcpy(dst + i * inner, src + (per_true ? (k++) * inner : 0), block);
    }
  };
  for_each_true_block(m, n, [&](int64_t i, uint64_t bits) {
    do {
      one(i + __builtin_ctzll(bits));
      bits &= bits - 1;
    } while (bits);
  }, one);
}

// Selection and stores move bytes: one instance per item size serves every dtype.
template <template <class> class F, class... Args>
void by_itemsize(size_t size, Args&&... args) {
  switch (size) {
    case 1: F<uint8_t>::run(args...); break;
    case 2: F<uint16_t>::run(args...); break;
    case 4: F<uint32_t>::run(args...); break;
    case 8: F<uint64_t>::run(args...); break;
    case 16: F<Bytes16>::run(args...); break;
  }
}

template <class T>
struct Select {
  static void run(const Array& a, const Array& mask, const Array& out) { select_typed<T>(a, mask, out); }
};
template <class T>
struct Store {
  static void run(const Array& a, const Array& mask, const Array& v, bool per_true) {
    store_typed<T>(a, mask, v, per_true);
  }
};

}  // namespace

void mask_select(const Array& a, const Array& mask, const Array& out) {
  if (out.size() == 0) return;
  by_itemsize<Select>(a.itemsize(), a, mask, out);
}

void mask_store(const Array& a, const Array& mask, const Array& v, bool per_true) {
  if (a.size() == 0 || v.size() == 0) return;
  by_itemsize<Store>(a.itemsize(), a, mask, v, per_true);
}

}  // namespace nf::cpu
