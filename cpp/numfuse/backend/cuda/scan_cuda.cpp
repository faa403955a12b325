// ScanNode on a CUDA device: the generated kernels of codegen_scan.h, one launch (a thread per
// line, or one tile per line) or three (long lines: tile totals, their scan, the tiles).
#include <algorithm>

#include "numfuse/backend/cuda/codegen_scan.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/scan.h"

namespace nf {

void ScanNode::eval_cuda(const std::vector<Array>& outs) {
  const Array& out = outs[0];
  if (out.size() == 0) return;
  Array in = inputs[0];
  if (in.dtype != out.dtype) throw Error("cumsum/cumprod: the input was not cast to the output dtype");
  const int dev = device.index;
  cuda::ScanPlan plan = cuda::plan_scan(in, axis);
  if (static_cast<int>(plan.line_shape.size()) > cuda::kMaxScanRank) {
    // Too many dims to unravel in a kernel: a contiguous copy leaves at most two.
    Array dense = Array::empty(in.shape, in.dtype, in.device());
    cuda::copy_on_device(in, dense);
    in = dense;
    plan = cuda::plan_scan(in, axis);
  }
  cuda::ScanKernel k = cuda::generate_scan(op, out.dtype, plan);
  std::shared_ptr<Buffer> partial;
  if (k.partial_bytes) partial = cuda::allocate_device_buffer(k.partial_bytes, dev);
  cuda::set_scan_pointers(k, in.data(), out.data(), partial ? partial->data() : nullptr);
  const std::vector<std::string> opts = {"-std=c++17", "--fmad=false"};
  auto fn = [&](const char* name) { return cuda::generated_kernel(k.body, name, opts, dev); };
  if (plan.sequential) {
    cuda::launch(fn("nf_scan_lines"), dev, cuda::grid_for(plan.lines, dev), cuda::kScanThreads, k.params);
    return;
  }
  // Grid-stride loops over the tiles: a bounded grid covers any count.
  const auto blocks = [](int64_t n) { return static_cast<unsigned>(std::min<int64_t>(n, int64_t(1) << 20)); };
  const int64_t ntiles = plan.lines * plan.tiles;
  if (plan.tiles > 1) {
    cuda::launch(fn("nf_scan_totals"), dev, blocks(ntiles), cuda::kScanThreads, k.params);
    cuda::launch(fn("nf_scan_carries"), dev, blocks(plan.lines), cuda::kScanThreads, k.params);
  }
  cuda::launch(fn("nf_scan_tiles"), dev, blocks(ntiles), cuda::kScanThreads, k.params);
}

}  // namespace nf
