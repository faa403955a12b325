// Recycled memory for the objects every recorded op creates: its node, the node's lists and its
// output storages (std::allocate_shared / containers with PoolAllocator). A chain of hundreds of pending ops frees them all at
// once when it is evaluated, which overflowed malloc's per-thread caches into its slow bins: a
// few hundred instructions per allocation, on every op of a Python loop.
#pragma once
#include <cstddef>

namespace nf {

// Blocks of up to kPoolMaxBytes come from per-size free lists (any thread may free them);
// larger requests go to operator new.
constexpr size_t kPoolMaxBytes = 1024;
void* pool_alloc(size_t bytes);
void pool_free(void* p, size_t bytes);

// fork(): the lists' lock is taken before it and released after it in both processes.
void block_pool_lock_for_fork();
void block_pool_unlock_after_fork();

template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator does
  T* allocate(size_t n) { return static_cast<T*>(pool_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { pool_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const PoolAllocator<U>&) const { return false; }
};

}  // namespace nf
