#include "numfuse/backend/cuda/nccl.h"

#include <cstring>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

// nccl.h's declarations used here (the header is not needed at build time: the library is
// opened at run time). ncclResult_t is an int enum; ncclUint8 is 1 in every NCCL 2 release.
constexpr int kNcclSuccess = 0;
constexpr int kNcclUint8 = 1;
constexpr size_t kUniqueIdBytes = 128;
struct UniqueId {
  char internal[kUniqueIdBytes];
};

struct NcclCalls {
  int (*get_version)(int*) = nullptr;
  int (*get_unique_id)(UniqueId*) = nullptr;
  int (*comm_init_rank)(void**, int, UniqueId, int) = nullptr;
  int (*comm_destroy)(void*) = nullptr;
  int (*send)(const void*, size_t, int, int, void*, void*) = nullptr;
  int (*recv)(void*, size_t, int, int, void*, void*) = nullptr;
  int (*group_start)() = nullptr;
  int (*group_end)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  bool ok = false;
  std::string reason;
};

// NCCL's calls into c (false, with c.reason, when one is missing).
bool bind_nccl(const LoadedLibrary& lib, NcclCalls& c) {
  return lib.bind(c.get_version, "ncclGetVersion", &c.reason) &&
         lib.bind(c.get_unique_id, "ncclGetUniqueId", &c.reason) &&
         lib.bind(c.comm_init_rank, "ncclCommInitRank", &c.reason) &&
         lib.bind(c.comm_destroy, "ncclCommDestroy", &c.reason) &&
         lib.bind(c.send, "ncclSend", &c.reason) && lib.bind(c.recv, "ncclRecv", &c.reason) &&
         lib.bind(c.group_start, "ncclGroupStart", &c.reason) &&
         lib.bind(c.group_end, "ncclGroupEnd", &c.reason) &&
         lib.bind(c.error_string, "ncclGetErrorString", &c.reason);
}

const NcclCalls& calls() {  // lives until exit, as the library does
  return bound_library<NcclCalls>(CudaLibrary::Nccl, bind_nccl);
}

const NcclCalls& require() {
  const NcclCalls& c = calls();
  if (!c.ok) throw Error("numfuse: NCCL is not available: " + c.reason);
  return c;
}

void check_nccl(int result, const char* what) {
  if (result == kNcclSuccess) return;
  const NcclCalls& c = calls();
  throw Error(std::string("numfuse: ") + what + " failed: " +
              (c.error_string ? c.error_string(result) : "NCCL error " + std::to_string(result)));
}

}  // namespace

bool nccl_available(std::string* reason) {
  const NcclCalls& c = calls();
  if (!c.ok && reason) *reason = c.reason;
  return c.ok;
}

std::string nccl_unique_id() {
  UniqueId id;
  check_nccl(require().get_unique_id(&id), "ncclGetUniqueId");
  return std::string(id.internal, kUniqueIdBytes);
}

int nccl_version() {
  int v = 0;
  check_nccl(require().get_version(&v), "ncclGetVersion");
  return v;
}

NcclComm::NcclComm(int nranks, const std::string& unique_id, int rank, int device)
    : nranks_(nranks), rank_(rank), device_(device) {
  const NcclCalls& c = require();
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    throw ValueError("numfuse.cuda.nccl: rank " + std::to_string(rank) + " is not in 0.." +
                     std::to_string(nranks - 1) + " (" + std::to_string(nranks) + " ranks)");
  }
  if (unique_id.size() != kUniqueIdBytes) {
    throw ValueError("numfuse.cuda.nccl: a unique id is " + std::to_string(kUniqueIdBytes) +
                     " bytes (get_unique_id()), not " + std::to_string(unique_id.size()));
  }
  UniqueId id;
  std::memcpy(id.internal, unique_id.data(), kUniqueIdBytes);
  activate(device);  // NCCL takes the current device: numfuse's primary context of `device`
  check_nccl(c.comm_init_rank(&comm_, nranks, id, rank), "ncclCommInitRank");
}

NcclComm::~NcclComm() {
  if (comm_) calls().comm_destroy(comm_);  // no throw from a destructor; destroy() reports
}

void NcclComm::destroy() {
  if (!comm_) return;
  void* c = comm_;
  comm_ = nullptr;
  check_nccl(require().comm_destroy(c), "ncclCommDestroy");
}

void NcclComm::check_peer(int peer) const {
  if (!comm_) throw ValueError("numfuse.cuda.nccl: the communicator was destroyed");
  if (peer < 0 || peer >= nranks_) {
    throw ValueError("numfuse.cuda.nccl: peer " + std::to_string(peer) + " is not in 0.." +
                     std::to_string(nranks_ - 1));
  }
}

void NcclComm::send(std::uintptr_t ptr, size_t bytes, int peer) {
  check_peer(peer);
  void* stream = enqueue_stream(device_).handle();  // also makes the device's context current
  check_nccl(
      require().send(reinterpret_cast<const void*>(ptr), bytes, kNcclUint8, peer, comm_, stream),
      "ncclSend");
}

void NcclComm::recv(std::uintptr_t ptr, size_t bytes, int peer) {
  check_peer(peer);
  void* stream = enqueue_stream(device_).handle();
  check_nccl(require().recv(reinterpret_cast<void*>(ptr), bytes, kNcclUint8, peer, comm_, stream),
             "ncclRecv");
}

void nccl_group_start() { check_nccl(require().group_start(), "ncclGroupStart"); }
void nccl_group_end() { check_nccl(require().group_end(), "ncclGroupEnd"); }

}  // namespace nf::cuda
