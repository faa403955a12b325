// SortNode and SearchSortedNode on a CUDA device. Numbers and complex64 sort by CUB's device
// radix sort (segmented for several lines) on keys in NumPy's order (sort_radix_cuda.cpp, through
// libnumfuse_cub.so); complex128, and every dtype when that library is missing, by the NVRTC
// kernels of kernels/sort.cuh (bitonic tiles in shared memory, then log2(n / tile) merge
// passes). docs/decisions.md, "Sorting on CUDA", has the measurements. A partition is computed
// as a full sort (a sort is a valid partition); a selection kernel is later work.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/backend/cuda/sort_radix_cuda.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/sort.h"

namespace nf::cuda {

namespace {

constexpr int64_t kTile = 1024;        // NF_SORT_TILE
constexpr int kThreads = 256;          // NF_SORT_THREADS
constexpr int64_t kMergeItems = 8;     // NF_MERGE_ITEMS

// `a` itself when C-contiguous, else a contiguous device copy.
Array dense_on_device(const Array& a) {
  if (a.c_contiguous()) return a;
  Array d = Array::empty(a.shape, a.dtype, a.device());
  copy_on_device(a, d);
  return d;
}

struct SearchParams {
  const void* a;
  const void* v;
  const long long* sorter;
  long long* out;
  long long n, m, right;
};

unsigned blocks_for(int64_t work, int64_t per_block) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + per_block - 1) / per_block, 1, 1 << 20));
}

}  // namespace

bool cub_sort_available() { return cub_library().sort != nullptr; }

void eval_sort(SortNode& node, const std::vector<Array>& outs) {
  Array in = node.inputs[0];
  if (in.size() == 0) return;
  in = dense_on_device(in);
  const int dev = node.device.index;
  const int axis = node.axis;
  const int64_t n = in.shape[axis];
  int64_t inner = 1;
  for (int d = axis + 1; d < in.ndim(); ++d) inner *= in.shape[d];
  const int64_t lines = in.size() / n;
  if (radix_sort_handles(in, lines)) {
    radix_sort(node, in, outs, n, lines, inner);
    return;
  }
  const size_t count = static_cast<size_t>(in.size());
  auto va = allocate_device_buffer(count * in.itemsize(), dev);
  auto vb = allocate_device_buffer(count * in.itemsize(), dev);
  auto ia = allocate_device_buffer(count * sizeof(long long), dev);
  auto ib = allocate_device_buffer(count * sizeof(long long), dev);
  SortParams p{};
  p.in = in.data();
  p.out_values = node.values ? outs[0].data() : nullptr;
  p.out_indices = node.indices ? reinterpret_cast<long long*>(outs[node.values ? 1 : 0].data()) : nullptr;
  p.n = n;
  p.lines = lines;
  p.inner = inner;
  p.vals_dst = va->data();
  p.idx_dst = static_cast<long long*>(ia->data());
  const int64_t tiles = lines * ((n + kTile - 1) / kTile);
  launch(sort_kernel(in.dtype, "nf_sort_tiles", dev), dev, blocks_for(tiles, 1), kThreads, &p);
  void* src_v = va->data();
  void* dst_v = vb->data();
  long long* src_i = static_cast<long long*>(ia->data());
  long long* dst_i = static_cast<long long*>(ib->data());
  const int64_t merge_threads = lines * ((n + kMergeItems - 1) / kMergeItems);
  for (int64_t width = kTile; width < n; width *= 2) {
    p.vals_src = src_v, p.idx_src = src_i, p.vals_dst = dst_v, p.idx_dst = dst_i, p.width = width;
    launch(sort_kernel(in.dtype, "nf_sort_merge", dev), dev, blocks_for(merge_threads, kThreads),
           kThreads, &p);
    std::swap(src_v, dst_v);
    std::swap(src_i, dst_i);
  }
  p.vals_src = src_v, p.idx_src = src_i;
  launch(sort_kernel(in.dtype, "nf_sort_store", dev), dev, blocks_for(in.size(), kThreads),
         kThreads, &p);
}

void eval_searchsorted(SearchSortedNode& node, const std::vector<Array>& outs) {
  const Array& out = outs[0];
  if (out.size() == 0) return;
  const Array a = dense_on_device(node.inputs[0]);
  const Array v = dense_on_device(node.inputs[1]);
  const int dev = node.device.index;
  Array sorter;
  if (node.sorter) sorter = dense_on_device(node.inputs[2]);
  // The sorter's range was checked at the call (python/numfuse/_sort.py).
  SearchParams p{a.data(), v.data(), node.sorter ? reinterpret_cast<const long long*>(sorter.data()) : nullptr,
                 reinterpret_cast<long long*>(out.data()), a.size(), v.size(), node.right ? 1 : 0};
  launch(sort_kernel(a.dtype, "nf_searchsorted", dev), dev,
         blocks_for(v.size(), kThreads), kThreads, &p);
}

}  // namespace nf::cuda
