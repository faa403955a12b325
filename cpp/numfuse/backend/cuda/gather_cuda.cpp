#include "numfuse/backend/cuda/gather_cuda.h"

#include <cstring>

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

const std::vector<std::string>& options() {
  static const std::vector<std::string> opts = {"-std=c++17"};
  return opts;
}

int device_of(const Array& a) {
  if (a.device().is_cpu()) throw ValueError("advanced indexing on CUDA: an array is on the CPU");
  return a.device().index;
}

// boff[b] = the source offset contributed by the index arrays at position b of B, and, with
// `blin`, blin[b] = the indices' C-order linear position over the indexed dims (equal exactly
// when two positions name the same element). One launch per index array.
void index_offsets(const cpu::GatherGeometry& g, int dev, const Array& boff, const Array* blin) {
  const int64_t nb = numel(g.bshape);
  if (g.indices.empty()) {
    const int64_t zero = 0;
    fill(boff, &zero);
    if (blin) fill(*blin, &zero);
    return;
  }
  const size_t k = g.indices.size();
  for (size_t j = 0; j < k; ++j) {
    const Array& idx = g.indices[j];
    if (idx.dtype != DType::Int64 || idx.device() != boff.device()) {
      throw Error("advanced indexing on CUDA: index arrays must be int64 on " + boff.device().str());
    }
    Shape shape = g.bshape;
    Strides strides = broadcast_strides(idx.shape, idx.strides, g.bshape);
    coalesce_dims(&shape, &strides);
    int64_t mult = 1;
    for (size_t m = j + 1; m < k; ++m) mult *= g.adv_sizes[m];
    std::vector<uint8_t> params =
        index_offsets_params(idx.data(), boff.data(), blin ? blin->data() : nullptr, nb, g.adv_sizes[j],
                             g.adv_strides[j], mult, j == 0, shape, strides);
    CUfunction f = generated_kernel(index_offsets_body(static_cast<int>(shape.size())), "nf_index_offsets",
                                    options(), dev);
    launch(f, dev, grid_for(nb, dev), kLaunchThreads, params);
  }
}

// Runs nf_gather or nf_scatter (`entry`) between the strided array and the contiguous one.
void run_geometry_kernel(const char* entry, const cpu::GatherGeometry& g, const void* src, void* dst,
                         const Array& boff, const void* keep, size_t itemsize, int64_t n, int dev) {
  Shape oshape = g.outer_shape, ishape = g.inner_shape;
  Strides ostrides = g.outer_strides, istrides = g.inner_strides;
  const int64_t ninner = numel(ishape);
  coalesce_dims(&oshape, &ostrides);
  coalesce_dims(&ishape, &istrides);
  std::vector<uint8_t> params = gather_params(src, dst, boff.data(), keep, n, numel(g.bshape), ninner, oshape,
                                              ostrides, ishape, istrides);
  std::string body = gather_body(itemsize, static_cast<int>(oshape.size()), static_cast<int>(ishape.size()));
  launch(generated_kernel(body, entry, options(), dev), dev, grid_for(n, dev), kLaunchThreads, params);
}

}  // namespace

void gather(const Array& src, const cpu::GatherGeometry& g, const Array& out) {
  const int64_t n = out.size();
  if (n == 0) return;
  const int dev = device_of(src);
  Array boff = Array::empty({numel(g.bshape)}, DType::Int64, src.device());
  index_offsets(g, dev, boff, nullptr);
  run_geometry_kernel("nf_gather", g, src.data(), out.data(), boff, nullptr, src.itemsize(), n, dev);
}

void scatter(const Array& values, const cpu::GatherGeometry& g, const Array& dst) {
  const int64_t n = values.size();
  if (n == 0) return;
  const int dev = device_of(dst);
  const int64_t nb = numel(g.bshape);
  Array boff = Array::empty({nb}, DType::Int64, dst.device());
  Array keep = Array::empty({nb}, DType::Int64, dst.device());  // linear indices, then the flags
  index_offsets(g, dev, boff, &keep);
  // A table with at least twice as many slots as positions: probes stay short, and its size
  // follows the index count, not the (possibly huge) extent of the indexed dims.
  uint64_t slots = 64;
  while (slots < 2 * static_cast<uint64_t>(nb)) slots <<= 1;
  Array keys = Array::empty({static_cast<int64_t>(slots)}, DType::UInt64, dst.device());
  Array vals = Array::empty({static_cast<int64_t>(slots)}, DType::UInt64, dst.device());
  const uint64_t empty_key = ~uint64_t(0), zero = 0;
  fill(keys, &empty_key);
  fill(vals, &zero);
  std::vector<uint8_t> sel = scatter_select_params(keep.data(), keys.data(), vals.data(), nb, slots - 1);
  const std::string body = scatter_select_body();
  launch(generated_kernel(body, "nf_scatter_claim", options(), dev), dev, grid_for(nb, dev), kLaunchThreads, sel);
  launch(generated_kernel(body, "nf_scatter_mark", options(), dev), dev, grid_for(nb, dev), kLaunchThreads, sel);
  run_geometry_kernel("nf_scatter", g, values.data(), dst.data(), boff, keep.data(), dst.itemsize(), n, dev);
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
  std::vector<uint8_t> params = nonzero_params(pos.data(), n, ptrs, shape);
  CUfunction f = generated_kernel(nonzero_body(static_cast<int>(shape.size())), "nf_nonzero", options(), dev);
  launch(f, dev, grid_for(n, dev), kLaunchThreads, params);
}

}  // namespace nf::cuda
