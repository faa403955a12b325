// Handing CUDA memory to and from other libraries (DLPack, __cuda_array_interface__) and between
// numfuse's own devices: the stream ordering at the hand-over, and peer access between devices.
#pragma once
#include <cstdint>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

// Streams as the exchange protocols name them: 1 is the legacy default stream, 2 the per-thread
// default stream, any larger value a CUstream handle (0 is refused by both protocols).
using ExternalStream = std::uintptr_t;

// The stream numfuse would enqueue on now for `device`, as the protocols name it.
ExternalStream exchange_stream(int device);
// The consumer's `stream` waits for everything numfuse enqueued so far on `device` (an event
// recorded on numfuse's stream; nothing blocks the host). Throws ValueError for stream 0.
void order_external_after_ours(int device, ExternalStream stream);
// numfuse's next work on `device` waits for everything enqueued so far on the producer's
// `stream` (an event recorded on that stream).
void order_ours_after_external(int device, ExternalStream stream);
// Blocks until numfuse's work enqueued so far on `device` has finished (before memory lent by
// another library is given back to it: its allocator knows nothing of numfuse's streams).
void finish_our_work(int device);
// The device whose memory `p` is (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL); throws ValueError for
// host memory or a pointer the driver does not know.
int device_of_pointer(std::uintptr_t p);

// Whether kernels and copies on `to` may read `from`'s memory directly; asks for access once
// (cuCtxEnablePeerAccess from `to`'s context) and remembers the answer.
bool peer_access(int from, int to);
// n bytes from src on device `src_device` to dst on `dst_device`, ordered after numfuse's work
// on both devices and before later work on both (the source is not freed under the copy).
// Direct over NVLink/PCIe where peer access is possible, else staged by the driver.
void copy_peer(CUdeviceptr dst, int dst_device, CUdeviceptr src, int src_device, size_t n);

}  // namespace nf::cuda
