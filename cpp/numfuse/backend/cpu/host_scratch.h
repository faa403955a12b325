// Scratch memory for a CPU kernel from the host allocator's cache (core/host_allocator.h): a
// fresh 80 MB std::vector cost a page fault per page, a third of a 1e7-element sort's time.
#pragma once
#include <cstddef>

#include "numfuse/core/host_allocator.h"

namespace nf::cpu {

template <class T>
class HostScratch {
 public:
  HostScratch() = default;
  explicit HostScratch(size_t n) { resize(n); }
  HostScratch(const HostScratch&) = delete;
  HostScratch& operator=(const HostScratch&) = delete;
  ~HostScratch() { release(); }
  // Room for n elements (contents not kept).
  void resize(size_t n) {
    if (n <= n_) return;
    release();
    p_ = static_cast<T*>(host_alloc(n * sizeof(T)));
    n_ = n;
  }
  T* data() const { return p_; }

 private:
  void release() {
    if (p_) host_free(p_, n_ * sizeof(T));
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace nf::cpu
