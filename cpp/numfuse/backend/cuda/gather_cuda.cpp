#include "numfuse/backend/cuda/gather_cuda.h"

#include "numfuse/backend/cuda/codegen_gather.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/gather_node.h"

namespace nf {

void GatherNode::eval_cuda(const std::vector<Array>& outs) {
  std::vector<Array> idx(inputs.begin() + 1, inputs.end());
  cuda::gather(inputs[0], gather_geometry(inputs[0], adv_dims, adv_axes, idx, bshape, adjacent), outs[0]);
}

}  // namespace nf

namespace nf::cuda {

namespace {

int device_of(const Array& a) {
  if (a.device().is_cpu()) throw ValueError("advanced indexing on CUDA: an array is on the CPU");
  return a.device().index;
}

void run(const std::vector<KernelLaunch>& launches, int dev) {
  static const std::vector<std::string> opts = {"-std=c++17"};
  for (const KernelLaunch& l : launches) {
    launch(generated_kernel(l.body, l.entry, opts, dev), dev, grid_for(l.blocks * kLaunchThreads, dev),
           kLaunchThreads, l.params);
  }
}

// Every index array on the device `dev` works on.
void check_indices(const cpu::GatherGeometry& g, const Array& on) {
  for (const Array& idx : g.indices) {
    if (idx.device() != on.device()) {
      throw ValueError("arrays are on different devices: " + idx.device().str() + " and " + on.device().str());
    }
  }
}

// An int64 scratch array of n elements on a's device, every element `value`.
Array scratch(int64_t n, const Array& a, int64_t value) {
  Array s = Array::empty({n}, DType::Int64, a.device());
  fill(s, &value);
  return s;
}

}  // namespace

void gather(const Array& src, const cpu::GatherGeometry& g, const Array& out) {
  if (out.size() == 0) return;
  const int dev = device_of(src);
  check_indices(g, src);
  const int64_t nb = numel(g.bshape);
  Array boff = g.indices.empty() ? scratch(nb, src, 0) : Array::empty({nb}, DType::Int64, src.device());
  run(gather_launches(g, src.data(), out.data(), src.itemsize(), boff.data()), dev);
}

void scatter(const Array& values, const cpu::GatherGeometry& g, const Array& dst) {
  if (values.size() == 0) return;
  const int dev = device_of(dst);
  check_indices(g, dst);
  const int64_t nb = numel(g.bshape);
  const bool none = g.indices.empty();
  Array boff = none ? scratch(nb, dst, 0) : Array::empty({nb}, DType::Int64, dst.device());
  Array keep = none ? scratch(nb, dst, 1) : Array::empty({nb}, DType::Int64, dst.device());
  // The table's size follows the index count, not the (possibly huge) extent of the indexed dims.
  const int64_t slots = scatter_slots(nb);
  Array keys = scratch(slots, dst, -1), vals = scratch(slots, dst, 0);
  run(scatter_launches(g, values.data(), dst.data(), dst.itemsize(), boff.data(), keep.data(), keys.data(),
                       vals.data()),
      dev);
}

void nonzero_coords(const Array& pos, const Shape& shape, const std::vector<Array>& outs) {
  const int64_t n = pos.size();
  if (n == 0 || outs.empty() || outs[0].size() == 0) return;
  const int dev = device_of(pos);
  if (pos.dtype != DType::Int64 || !pos.c_contiguous()) {
    throw Error("nonzero on CUDA: the counts must be a contiguous int64 array");
  }
  std::vector<void*> ptrs;
  for (const Array& o : outs) ptrs.push_back(o.data());
  run({nonzero_launch(pos.data(), n, ptrs, shape)}, dev);
}

}  // namespace nf::cuda
