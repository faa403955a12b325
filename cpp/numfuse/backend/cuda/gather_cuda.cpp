#include "numfuse/backend/cuda/gather_cuda.h"

#include "numfuse/backend/cuda/codegen_gather.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/ir/gather.h"

namespace nf {

void cuda::eval_gather(GatherNode& node, const std::vector<Array>& outs) {
  const NodeVector<Array>& inputs = node.inputs;
  if (outs[0].size() == 0) return;
  std::vector<Array> idx(inputs.begin() + 1, inputs.end());
  cuda::gather(
      inputs[0],
      gather_geometry(inputs[0], node.adv_dims, node.adv_axes, idx, node.bshape, node.adjacent),
      outs[0]);
}

}  // namespace nf

namespace nf::cuda {

namespace {
const std::vector<std::string>& options() {
  static const std::vector<std::string> o = {"-std=c++17"};
  return o;
}
}  // namespace

void gather(const Array& src, const cpu::GatherGeometry& g, const Array& out) {
  const int dev = out.device().index;
  GatherKernel k = generate_gather(g, src.itemsize(), src.data(), out.data());
  if (k.n == 0) return;
  CUfunction f = generated_kernel(k.body, "nf_gather", options(), dev);
  launch(f, dev, grid_for(k.n, dev), kLaunchThreads, k.params);
}

void scatter(const Array& values, const cpu::GatherGeometry& g, const Array& dst) {
  const int dev = dst.device().index;
  if (values.size() == 0) return;
  GatherKernel k = generate_scatter(g, dst.itemsize(), dst.data(), values.data(), nullptr);
  // Freed in stream order after the kernels below, which are enqueued on the same stream.
  std::shared_ptr<Buffer> table = allocate_device_buffer(k.table_bytes, dev);
  set_scatter_table(k, table->data());
  const Stream s = enqueue_stream(dev);
  check(driver().MemsetD8Async(reinterpret_cast<CUdeviceptr>(table->data()), 0xFF, k.table_bytes, s.handle()),
        "cuMemsetD8Async");
  launch(generated_kernel(k.body, "nf_scatter_claim", options(), dev), dev, grid_for(k.nb, dev),
         kLaunchThreads, k.params);
  launch(generated_kernel(k.body, "nf_scatter_write", options(), dev), dev, grid_for(k.n, dev),
         kLaunchThreads, k.params);
}

std::vector<Array> nonzero_from_cumsum(const Array& pos, const Shape& shape, int64_t n) {
  std::vector<Array> out;
  std::vector<int64_t*> ptrs;
  for (size_t d = 0; d < shape.size(); ++d) {
    out.push_back(Array::empty({n}, DType::Int64, pos.device()));
    ptrs.push_back(out.back().data_as<int64_t>());
  }
  if (n == 0) return out;
  const int dev = pos.device().index;
  GatherKernel k = generate_nonzero_fill(shape, pos.data_as<int64_t>(), ptrs);
  launch(generated_kernel(k.body, "nf_nonzero_fill", options(), dev), dev, grid_for(k.n, dev),
         kLaunchThreads, k.params);
  return out;
}

}  // namespace nf::cuda
