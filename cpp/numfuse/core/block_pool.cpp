#include "numfuse/core/block_pool.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <new>

namespace nf {

namespace {

constexpr size_t kGranule = 64;
constexpr size_t kClasses = kPoolMaxBytes / kGranule;
// Blocks kept per size: enough for the longest pending chain the graph limits let grow
// (NUMFUSE_MAX_GRAPH_DEPTH nodes, each with its storages) without holding on to much memory.
constexpr size_t kKeepPerClass = 2048;

struct FreeBlock {
  FreeBlock* next;
};

// A spin lock: the lists are held for a few instructions, and the uncontended path is one atomic
// exchange and one plain store (a pthread mutex adds a second atomic and two calls per op).
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

struct Pool {
  SpinLock m;
  FreeBlock* head[kClasses] = {};
  size_t count[kClasses] = {};
};

Pool& pool() {
  static Pool* p = new Pool();  // leaked: nodes may be freed during static teardown
  return *p;
}

}  // namespace

void* pool_alloc(size_t bytes) {
  if (bytes == 0 || bytes > kPoolMaxBytes) return ::operator new(bytes);
  const size_t c = (bytes - 1) / kGranule;
  Pool& p = pool();
  {
    std::lock_guard<SpinLock> lock(p.m);
    if (FreeBlock* b = p.head[c]) {
      p.head[c] = b->next;
      --p.count[c];
      return b;
    }
  }
  return ::operator new((c + 1) * kGranule);
}

void pool_free(void* ptr, size_t bytes) {
  if (!ptr) return;
  if (bytes == 0 || bytes > kPoolMaxBytes) {
    ::operator delete(ptr);
    return;
  }
  const size_t c = (bytes - 1) / kGranule;
  Pool& p = pool();
  {
    std::lock_guard<SpinLock> lock(p.m);
    if (p.count[c] < kKeepPerClass) {
      auto* b = static_cast<FreeBlock*>(ptr);
      b->next = p.head[c];
      p.head[c] = b;
      ++p.count[c];
      return;
    }
  }
  ::operator delete(ptr);
}

void block_pool_lock_for_fork() { pool().m.lock(); }
void block_pool_unlock_after_fork() { pool().m.unlock(); }

}  // namespace nf
