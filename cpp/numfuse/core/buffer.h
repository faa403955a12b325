// A block of memory on one device. Arrays share Buffers through Storage (core/array.h).
#pragma once
#include <cstddef>
#include <memory>

#include "numfuse/core/device.h"

namespace nf {

class Buffer {
 public:
  // Allocates nbytes (64-byte aligned on the CPU). Zero bytes still gives a valid pointer.
  static std::shared_ptr<Buffer> allocate(size_t nbytes, Device device);
  // Wraps memory owned elsewhere; `release(ctx)` runs when the Buffer dies.
  static std::shared_ptr<Buffer> wrap(void* data, size_t nbytes, Device device,
                                      void (*release)(void*), void* ctx);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  // Host memory numfuse allocated (allocate() on the CPU): no mapping, capsule or other owner
  // reaches it but through numfuse's own arrays and exported views (Storage::host_views).
  bool host_allocated() const { return host_allocated_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  Buffer() = default;
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  void (*release_)(void*) = nullptr;
  void* ctx_ = nullptr;
  bool host_allocated_ = false;
};

}  // namespace nf
