// Host memory for CPU arrays: freed blocks of every size above the small classes come back from
// the cache (a fresh block costs a page fault per page on its first touch).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "numfuse/core/host_allocator.h"

using namespace nf;

namespace {
// Allocates, touches and frees a block of `nbytes`, then allocates the same size again.
void expect_reused(size_t nbytes) {
  host_free_cache();  // earlier tests' blocks may fill the cache up to its cap
  void* a = host_alloc(nbytes);
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, nbytes);
  const size_t cached = host_cached_bytes();
  host_free(a, nbytes);
  EXPECT_GE(host_cached_bytes(), cached + nbytes) << nbytes << " bytes";
  void* b = host_alloc(nbytes);
  EXPECT_EQ(a, b) << nbytes << " bytes: the freed block is reused";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  host_free(b, nbytes);
}
}  // namespace

TEST(HostAllocator, BlocksOfEveryLargeSizeAreCached) {
  // 1e6 float32 (just under 4 MiB) and the sizes around each rounding boundary.
  for (size_t n : {size_t(4000000), (size_t(1) << 20) + 1, size_t(3) << 20, size_t(4) << 20,
                   (size_t(16) << 20) + 1, size_t(40000000)})
    expect_reused(n);
  host_free_cache();
  EXPECT_EQ(host_cached_bytes(), 0u);
}

TEST(HostAllocator, SizesInOneClassShareABlock) {
  // 1.5 MiB + 1 and 1.5 MiB + 101 bytes round to one size: the second reuses the first's block.
  const size_t n = (size_t(3) << 19) + 1;
  void* a = host_alloc(n);
  host_free(a, n);
  void* b = host_alloc(n + 100);
  EXPECT_EQ(a, b);
  std::memset(b, 0, n + 100);  // the whole request is usable
  host_free(b, n + 100);
  host_free_cache();
}
