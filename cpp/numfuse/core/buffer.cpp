#include "numfuse/core/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <string>

#include "numfuse/backend/cuda/memory.h"
#include "numfuse/core/error.h"

namespace nf {

namespace {
void free_aligned(void* p) { std::free(p); }
}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(size_t nbytes, Device device) {
  if (!device.is_cpu()) {
    check_device_usable(device);
    return cuda::allocate_device_buffer(nbytes, device.index);
  }
  // Large blocks are 2 MiB aligned and asked to be backed by huge pages (as NumPy does): first
  // touch then costs one fault per 2 MiB instead of one per 4 KiB.
  constexpr size_t kHuge = size_t(2) << 20;
  const bool large = nbytes >= (size_t(4) << 20);
  const size_t align = large ? kHuge : 64;
  size_t rounded = (nbytes + align - 1) / align * align;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) {
    throw std::bad_alloc();
  }
#ifdef MADV_HUGEPAGE
  if (large) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  auto b = std::shared_ptr<Buffer>(new Buffer());
  b->data_ = p;
  b->nbytes_ = nbytes;
  b->device_ = device;
  b->release_ = free_aligned;
  b->ctx_ = p;
  return b;
}

std::shared_ptr<Buffer> Buffer::wrap(void* data, size_t nbytes, Device device,
                                     void (*release)(void*), void* ctx) {
  auto b = std::shared_ptr<Buffer>(new Buffer());
  b->data_ = data;
  b->nbytes_ = nbytes;
  b->device_ = device;
  b->release_ = release;
  b->ctx_ = ctx;
  return b;
}

Buffer::~Buffer() {
  if (release_) release_(ctx_);
}

}  // namespace nf
