#include "numfuse/core/buffer.h"

#include <cstdlib>
#include <new>
#include <string>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/core/host_allocator.h"

namespace nf {

namespace {
// ctx is the Buffer itself (still alive in its destructor): the allocator is told the size.
void free_host(void* ctx) {
  const Buffer* b = static_cast<const Buffer*>(ctx);
  host_free(b->data(), b->nbytes());
}
}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(size_t nbytes, Device device) {
  if (!device.is_cpu()) {
    check_device_usable(device);
    return backend_for(device).allocate(nbytes, device.index);
  }
  void* p = host_alloc(nbytes);
  auto b = std::shared_ptr<Buffer>(new Buffer());
  b->data_ = p;
  b->nbytes_ = nbytes;
  b->device_ = device;
  b->release_ = free_host;
  b->ctx_ = b.get();
  b->host_allocated_ = true;
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
