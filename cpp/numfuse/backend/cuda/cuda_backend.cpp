#include "numfuse/backend/cuda/cuda_backend.h"

#include <algorithm>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/gather_cuda.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/backend/cuda/reduce_cuda.h"
#include "numfuse/backend/cuda/small_linalg_cuda.h"
#include "numfuse/backend/cuda/transfer.h"

namespace nf::cuda {

namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend() : Backend(Device::Kind::CUDA, "CUDA devices") {
    add_node_eval<ReduceNode, eval_reduce>();
    add_node_eval<ScanNode, eval_scan>();
    add_node_eval<GatherNode, eval_gather>();
    add_node_eval<MatmulNode, eval_matmul>();
    add_node_eval<FftNode, eval_fft>();
    add_node_eval<LinalgNode, eval_linalg>();
    add_node_eval<SortNode, eval_sort>();
    add_node_eval<SearchSortedNode, eval_searchsorted>();
    add_node_eval<UniqueNode, eval_unique>();
    add_node_eval<BinCountNode, eval_bincount>();
    add_node_eval<InterpNode, eval_interp>();
    add_node_eval<CorrelateNode, eval_correlate>();
    add_node_eval<RandomDistNode, eval_random_dist>();
  }

  bool available() const override { return cuda_available(); }
  std::string unavailable_reason() const override { return cuda_unavailable_reason(); }
  int device_count() const override { return cuda::device_count(); }
  void after_fork_child() override { cuda_after_fork_child(); }

  std::shared_ptr<Buffer> allocate(size_t nbytes, int device) override {
    return allocate_device_buffer(nbytes, device);
  }

  uint64_t allocation_capacity(int device) const override {
    uint64_t c = device_properties(device).total_memory;
    if (const size_t limit = memory_limit()) c = std::min<uint64_t>(c, limit);
    return c;
  }

  void copy(const Array& src, const Array& dst) override { copy_between(src, dst); }

  bool waits_for_device(const Node& node) const override {
    const auto* l = dynamic_cast<const LinalgNode*>(&node);
    return l && small_linalg_waits_only(*l);
  }

  void run_program(const GroupProgram& program) override { run_program_cuda(program); }

  bool run_reduction_program(ReduceNode& red, const GroupProgram& prologue, const Array& out,
                             const GroupProgram* epilogue) override {
    const bool fuse_epilogue = epilogue && can_fuse_epilogue(*epilogue);
    run_reduction_program_cuda(red.spec, prologue, out, fuse_epilogue ? epilogue : nullptr,
                               red.outputs[0].lock().get(), red.fp_state);
    return fuse_epilogue;
  }

  std::string explain_group(const GroupProgram& p, const ReduceNode* reduction,
                            const GroupProgram* e) const override {
    std::string s = "    CUDA kernel (after the embedded kernel headers):\n";
    if (reduction) {
      const Storage* result = reduction->outputs[0].lock().get();
      bool fuse = e && can_fuse_epilogue(*e);
      if (e) {
        for (const Array& l : e->leaves) fuse = fuse && (l.storage.get() == result || !l.pending());
      }
      s += generate_reduce_fused(reduction->spec, p, 132, fuse ? e : nullptr, result).body;
    } else {
      s += generate_elementwise(p).body;
    }
    return s;
  }

  void scatter(const Array& values, const GatherGeometry& g, const Array& dst) override {
    cuda::scatter(values, g, dst);
  }

  std::vector<Array> nonzero_from_cumsum(const Array& pos, const Shape& shape, int64_t n) override {
    return cuda::nonzero_from_cumsum(pos, shape, n);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace nf::cuda
