// Host memory for CPU arrays. Large blocks (above 1 MiB) are 2 MiB aligned, backed by huge pages,
// and kept in a size-keyed cache when freed: a fresh block costs a page fault per page on first
// touch, which made a memory-bound op on 1e6-1e7 elements up to several times slower than
// computing it.
// NUMFUSE_HOST_CACHE_BYTES caps the cache (default 1 GiB; 0 turns it off).
// Small blocks (up to 1 MiB) are recycled by size class, most recently freed first: glibc's malloc
// took its slow bins for blocks of a few KB (an array of a thousand doubles) on every small op.
#pragma once
#include <cstddef>

namespace nf {

void* host_alloc(size_t nbytes);
// `nbytes` is what host_alloc was asked for.
void host_free(void* p, size_t nbytes);
// Returns every cached block to the system.
void host_free_cache();
size_t host_cached_bytes();

// fork(): the allocator's locks are taken before it and released after it in both processes,
// so that a child never inherits one held by a thread it does not have (graph/fork.cpp).
void host_allocator_lock_for_fork();
void host_allocator_unlock_after_fork();

}  // namespace nf
