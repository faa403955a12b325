#include "numfuse/backend/cuda/exchange.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

CUstream as_handle(ExternalStream s) {
  if (s == 0) {
    throw ValueError("stream 0 is ambiguous (the legacy or the per-thread default stream) and "
                     "not allowed: pass 1 (legacy default), 2 (per-thread default) or a handle");
  }
  // The driver reads 1 and 2 as CU_STREAM_LEGACY and CU_STREAM_PER_THREAD.
  return reinterpret_cast<CUstream>(s);
}

}  // namespace

ExternalStream exchange_stream(int device) {
  const Stream s = current_stream(device);
  return s.is_null() ? ExternalStream(1) : reinterpret_cast<ExternalStream>(s.handle());
}

void order_external_after_ours(int device, ExternalStream stream) {
  CUstream theirs = as_handle(stream);
  const Stream ours = enqueue_stream(device);
  if (!ours.is_null() && reinterpret_cast<ExternalStream>(ours.handle()) == stream) return;
  Event e = Event::create(device, /*disable_timing=*/true);
  e.record(ours);
  // The legacy default stream waits for blocking streams by itself, but not for non-blocking
  // ones: an explicit wait is always right and costs ~2 µs.
  check(driver().StreamWaitEvent(theirs, e.handle(), 0), "cuStreamWaitEvent");
}

void order_ours_after_external(int device, ExternalStream stream) {
  CUstream theirs = as_handle(stream);
  const Stream ours = enqueue_stream(device);
  if (!ours.is_null() && reinterpret_cast<ExternalStream>(ours.handle()) == stream) return;
  Event e = Event::create(device, /*disable_timing=*/true);
  activate(device);
  check(driver().EventRecord(e.handle(), theirs), "cuEventRecord");
  ours.wait(e);
}

void finish_our_work(int device) { enqueue_stream(device).synchronize(); }

int device_of_pointer(std::uintptr_t p) {
  const DriverApi& d = driver();
  unsigned memory_type = 0;
  CUresult r = d.PointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     static_cast<CUdeviceptr>(p));
  if (r != CUDA_SUCCESS || memory_type != CU_MEMORYTYPE_DEVICE) {
    throw ValueError("the pointer " + std::to_string(p) +
                     " is not CUDA device memory the driver knows (" +
                     (r == CUDA_SUCCESS ? std::string("host memory") : error_text(r)) + ")");
  }
  int ordinal = -1;
  check(d.PointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                              static_cast<CUdeviceptr>(p)),
        "cuPointerGetAttribute(DEVICE_ORDINAL)");
  return ordinal;
}

bool peer_access(int from, int to) {
  static std::mutex mutex;
  static auto* known = new std::map<std::pair<int, int>, bool>();  // lives until exit
  if (from == to) return true;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known->find({from, to});
  if (it != known->end()) return it->second;
  check_device(from);
  check_device(to);
  int can = 0;
  check(driver().DeviceCanAccessPeer(&can, to, from), "cuDeviceCanAccessPeer");
  bool ok = false;
  if (can) {
    activate(to);
    CUresult r = driver().CtxEnablePeerAccess(primary_context(from), 0);
    ok = r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  }
  known->emplace(std::make_pair(from, to), ok);
  return ok;
}

void copy_peer(CUdeviceptr dst, int dst_device, CUdeviceptr src, int src_device, size_t n) {
  peer_access(src_device, dst_device);  // direct when possible; the driver stages otherwise
  const Stream src_stream = enqueue_stream(src_device);
  const Stream dst_stream = enqueue_stream(dst_device);
  // The copy runs on the destination's stream after the source's pending writes ...
  Event written = Event::create(src_device, /*disable_timing=*/true);
  written.record(src_stream);
  dst_stream.wait(written);
  activate(dst_device);
  check(driver().MemcpyPeerAsync(dst, primary_context(dst_device), src,
                                 primary_context(src_device), n, dst_stream.handle()),
        "cuMemcpyPeerAsync");
  // ... and the source's later work (a write, its stream-ordered free) waits for the copy.
  Event copied = Event::create(dst_device, /*disable_timing=*/true);
  copied.record(dst_stream);
  src_stream.wait(copied);
}

}  // namespace nf::cuda
