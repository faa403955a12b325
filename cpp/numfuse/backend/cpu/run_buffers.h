// Per-thread scratch for the CPU interpreter's cache-sized runs, and the strided store that
// writes a run's contiguous results into a strided destination.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace nf::cpu {

// Elements per run: operands of one run stay in L1/L2 between casting and computing.
constexpr int64_t kRunElements = 4096;

// Scratch buffers of one run (kRunElements of the widest dtype each), reused across runs.
struct RunScratch {
  std::vector<std::unique_ptr<char[]>> bufs;
  char* get(size_t i) {
    while (bufs.size() <= i) bufs.emplace_back(new char[kRunElements * 16 + 64]);
    return bufs[i].get();
  }
};

// Copies n contiguous items of `size` bytes to dst with a stride in items (may be negative).
inline void store_strided(const char* src, char* dst, int64_t stride, int64_t n, size_t size) {
  struct Bytes16 {
    uint64_t lo, hi;
  };
  switch (size) {
#define NF_STORE_(S, T)                                   \
  case S: {                                               \
    const T* s = reinterpret_cast<const T*>(src);         \
    T* d = reinterpret_cast<T*>(dst);                     \
    for (int64_t i = 0; i < n; ++i) d[i * stride] = s[i]; \
    return;                                               \
  }
    NF_STORE_(1, uint8_t)
    NF_STORE_(2, uint16_t)
    NF_STORE_(4, uint32_t)
    NF_STORE_(8, uint64_t)
    NF_STORE_(16, Bytes16)
#undef NF_STORE_
  }
}

}  // namespace nf::cpu
