// Device memory through the driver's stream-ordered pool (cuMemAllocAsync, release threshold set
// high so freed blocks stay for reuse), a settable limit, and pinned host staging for transfers.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/core/buffer.h"

namespace nf::cuda {

// Allocates nbytes on `s`'s device, ordered on `s`. On out-of-memory: synchronises the device,
// trims the pool, retries once, then throws CUDAOutOfMemoryError naming the bytes asked for and
// the bytes free. Also throws it when the limit would be passed.
CUdeviceptr device_malloc(size_t nbytes, const Stream& s);
// Frees memory from device_malloc, ordered on `s` (errors after driver shutdown are ignored).
void device_free(CUdeviceptr p, size_t nbytes, const Stream& s);
// A Buffer of nbytes on cuda:`device`, allocated and later freed on the current stream at
// allocation time (the stream is kept alive by the Buffer).
std::shared_ptr<Buffer> allocate_device_buffer(size_t nbytes, int device);

struct MemoryInfo {
  size_t used = 0;          // bytes numfuse holds (live allocations)
  size_t used_high = 0;     // most ever held at once
  size_t reserved = 0;      // bytes the pool holds from the device (used + cached)
  size_t limit = 0;         // numfuse's limit (0: none)
  size_t device_free = 0;   // cuMemGetInfo
  size_t device_total = 0;
};
MemoryInfo memory_info(int device = -1);
// Returns the pool's unused blocks to the device (after waiting for pending frees).
void free_cache(int device = -1);
// Limits what numfuse allocates on each device (0: no limit). Starts as NUMFUSE_GPU_MEMORY_LIMIT.
void set_memory_limit(size_t bytes);
size_t memory_limit();
// "1073741824", "512M", "1.5G", "64KiB": bytes, with K/M/G/T suffixes in powers of 1024.
// Throws ValueError naming `what` for anything else.
size_t parse_memory_size(const std::string& text, const char* what = "memory size");
// "1.50 GiB" (as error messages say it).
std::string format_bytes(size_t n);

// ---- pinned host memory --------------------------------------------------------------------------

// A page-locked host block from a small cache; returned to the cache when destroyed, reusable once
// the work recorded by release_after() has finished.
class PinnedBlock {
 public:
  explicit PinnedBlock(size_t nbytes);
  ~PinnedBlock();
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  void* data() const { return ptr_; }
  size_t size() const { return size_; }
  // The block may be reused only after the work enqueued on `s` so far has finished.
  void release_after(const Stream& s);

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
  Event ready_;
};
// Bytes of pinned memory cached for reuse.
size_t pinned_cached_bytes();

// Host -> device on `s`. Non-blocking copies are staged through pinned memory, so `src` may be
// reused as soon as this returns.
void copy_host_to_device(CUdeviceptr dst, const void* src, size_t n, const Stream& s,
                         bool blocking = true);
// Device -> host on `s`; returns when the bytes are in `dst`.
void copy_device_to_host(void* dst, CUdeviceptr src, size_t n, const Stream& s);

}  // namespace nf::cuda
