// NCCL, found at run time (library_loader.h): byte transfers between the GPUs of several
// processes (one rank each), enqueued on numfuse's stream of the rank's device so that they are
// ordered after the work that computed what they send and before the work that reads what they
// receive. numfuse.cuda.nccl (Python) lends arrays' memory to these calls.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace nf::cuda {

// Whether NCCL can be used; *reason says why not.
bool nccl_available(std::string* reason);
// A new unique id (ncclGetUniqueId): 128 bytes, handed to every rank of one communicator.
std::string nccl_unique_id();
// NCCL's version as an integer (e.g. 22805 for 2.28.5).
int nccl_version();

// A communicator of `nranks` processes, this one `rank`, on `device`. Making it waits until every
// rank has made its own with the same id (ncclCommInitRank). Throws nf::Error naming NCCL's
// message when NCCL fails, ValueError for a rank out of range or an id of the wrong size.
class NcclComm {
 public:
  NcclComm(int nranks, const std::string& unique_id, int rank, int device);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  int nranks() const { return nranks_; }
  int rank() const { return rank_; }
  int device() const { return device_; }
  // `bytes` bytes at device address `ptr` to rank `peer` / from it into `ptr`, on numfuse's
  // stream of device(). Between group_start() and group_end() the transfers of one group are
  // posted together (a send to a peer and a receive from it cannot then wait on each other).
  void send(std::uintptr_t ptr, size_t bytes, int peer);
  void recv(std::uintptr_t ptr, size_t bytes, int peer);
  // Frees the communicator (the destructor does it too); later calls raise.
  void destroy();

 private:
  void check_peer(int peer) const;
  void* comm_ = nullptr;  // ncclComm_t
  int nranks_, rank_, device_;
};

void nccl_group_start();
void nccl_group_end();

}  // namespace nf::cuda
