#include "numfuse/core/buffer.h"

#include <cstdlib>
#include <new>
#include <string>

#include "numfuse/core/error.h"

namespace nf {

namespace {
void free_aligned(void* p) { std::free(p); }
}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(size_t nbytes, Device device) {
  if (!device.is_cpu()) {
    throw NotImplementedError("device " + device.str() + " is not available in this build");
  }
  size_t rounded = (nbytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) {
    throw std::bad_alloc();
  }
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
