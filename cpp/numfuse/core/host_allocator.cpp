#include "numfuse/core/host_allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace nf {

namespace {

constexpr size_t kHuge = size_t(2) << 20;
constexpr size_t kCoarse = size_t(16) << 20;  // from here on, sizes round up to whole huge pages

size_t cache_limit() {
  static const size_t limit = [] {
    const char* v = std::getenv("NUMFUSE_HOST_CACHE_BYTES");
    if (v && *v) {
      try {
        return static_cast<size_t>(std::stoull(v));
      } catch (...) {
      }
    }
    return size_t(1) << 30;
  }();
  return limit;
}

struct LargeBlocks {
  std::mutex m;
  std::unordered_map<void*, size_t> live;     // size of every large block handed out
  std::multimap<size_t, void*> cached;        // freed blocks by size
  size_t cached_bytes = 0;
};

LargeBlocks& large_blocks() {
  static LargeBlocks* b = new LargeBlocks();  // leaked: arrays may be freed during static teardown
  return *b;
}

// Small blocks: 64-byte steps up to 1 KiB, then four classes per power of two (at most 25% of a
// block unused).
constexpr size_t kSmallMax = size_t(1) << 20;
constexpr int kSmallClasses = 16 + 10 * 4;
constexpr size_t kSmallClassBytes = size_t(512) << 10;  // cached per class (at least 2 blocks)

size_t small_class(size_t nbytes, int* cls) {
  if (nbytes <= 1024) {
    size_t size = nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
    *cls = static_cast<int>(size / 64) - 1;
    return size;
  }
  const int p = 63 - __builtin_clzll(static_cast<unsigned long long>(nbytes - 1));  // 2^p < n <= 2^(p+1)
  const size_t step = (size_t(1) << p) / 4;
  const size_t size = (nbytes + step - 1) / step * step;
  *cls = 16 + (p - 10) * 4 + static_cast<int>(size / step) - 5;
  return size;
}

struct SmallBlocks {
  std::mutex m;
  std::vector<void*> free[kSmallClasses];
};

SmallBlocks& small_blocks() {
  static SmallBlocks* b = new SmallBlocks();  // leaked, as large_blocks()
  return *b;
}

// Large blocks (above kSmallMax) round up to eight sizes per power of two below kCoarse (at most
// 12.5% unused), then to whole huge pages; the cache matches sizes exactly, so a loop that
// allocates and frees one shape reuses one block.
size_t large_size(size_t nbytes) {
  if (nbytes >= kCoarse) return (nbytes + kHuge - 1) / kHuge * kHuge;
  const int p = 63 - __builtin_clzll(static_cast<unsigned long long>(nbytes - 1));  // 2^p < n <= 2^(p+1)
  const size_t step = (size_t(1) << p) / 8;
  return (nbytes + step - 1) / step * step;
}

void* aligned_block(size_t size) {
  void* p = nullptr;
  return posix_memalign(&p, kHuge, size) == 0 ? p : nullptr;
}

}  // namespace

void* host_alloc(size_t nbytes) {
  if (nbytes <= kSmallMax) {
    int cls;
    const size_t size = small_class(nbytes, &cls);
    SmallBlocks& sb = small_blocks();
    {
      std::lock_guard<std::mutex> lock(sb.m);
      if (!sb.free[cls].empty()) {
        void* p = sb.free[cls].back();
        sb.free[cls].pop_back();
        return p;
      }
    }
    void* p = std::aligned_alloc(64, size);
    if (!p) {
      host_free_cache();
      p = std::aligned_alloc(64, size);
      if (!p) throw std::bad_alloc();
    }
    return p;
  }
  const size_t rounded = large_size(nbytes);
  LargeBlocks& lb = large_blocks();
  {
    std::lock_guard<std::mutex> lock(lb.m);
    auto it = lb.cached.find(rounded);
    if (it != lb.cached.end()) {
      void* p = it->second;
      lb.cached.erase(it);
      lb.cached_bytes -= rounded;
      lb.live[p] = rounded;
      return p;
    }
  }
  void* p = aligned_block(rounded);
  if (!p) {
    host_free_cache();  // cached blocks of other sizes may be what stands in the way
    p = aligned_block(rounded);
    if (!p) throw std::bad_alloc();
  }
#ifdef MADV_HUGEPAGE
  madvise(p, rounded, MADV_HUGEPAGE);
#endif
  std::lock_guard<std::mutex> lock(lb.m);
  lb.live[p] = rounded;
  return p;
}

void host_allocator_lock_for_fork() {
  small_blocks().m.lock();
  large_blocks().m.lock();
}

void host_allocator_unlock_after_fork() {
  large_blocks().m.unlock();
  small_blocks().m.unlock();
}

void host_free(void* p, size_t nbytes) {
  if (!p) return;
  if (nbytes <= kSmallMax) {
    int cls;
    const size_t size = small_class(nbytes, &cls);
    SmallBlocks& sb = small_blocks();
    if (cache_limit() > 0) {  // NUMFUSE_HOST_CACHE_BYTES=0: no cache of any size
      std::lock_guard<std::mutex> lock(sb.m);
      std::vector<void*>& list = sb.free[cls];
      if (list.size() < 2 || (list.size() + 1) * size <= kSmallClassBytes) {
        list.push_back(p);
        return;
      }
    }
    std::free(p);
    return;
  }
  LargeBlocks& lb = large_blocks();
  {
    std::lock_guard<std::mutex> lock(lb.m);
    auto it = lb.live.find(p);
    if (it != lb.live.end()) {
      size_t size = it->second;
      lb.live.erase(it);
      if (lb.cached_bytes + size <= cache_limit()) {
        lb.cached.emplace(size, p);
        lb.cached_bytes += size;
        return;
      }
    }
  }
  std::free(p);
}

void host_free_cache() {
  std::vector<void*> blocks;
  {
    SmallBlocks& sb = small_blocks();
    std::lock_guard<std::mutex> lock(sb.m);
    for (auto& list : sb.free) {
      blocks.insert(blocks.end(), list.begin(), list.end());
      list.clear();
    }
  }
  LargeBlocks& lb = large_blocks();
  {
    std::lock_guard<std::mutex> lock(lb.m);
    for (auto& [size, p] : lb.cached) blocks.push_back(p);
    lb.cached.clear();
    lb.cached_bytes = 0;
  }
  for (void* p : blocks) std::free(p);
}

size_t host_cached_bytes() {
  LargeBlocks& lb = large_blocks();
  std::lock_guard<std::mutex> lock(lb.m);
  return lb.cached_bytes;
}

}  // namespace nf
