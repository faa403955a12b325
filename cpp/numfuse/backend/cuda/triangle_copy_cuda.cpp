// The triangle copy of triangle_copy_cuda.h: a tiled transpose through shared memory (32 x 32
// tiles, 256 threads a block, as the usual CUDA transpose), so that both the read of src and the
// write of dst are coalesced whichever of src's axes is the unit-stride one. A tile's elements
// outside the kept triangle are never read. The element is moved as raw bytes (4, 8 or 16), so
// one kernel per size serves every dtype and no value is changed (no conjugation: the callers'
// algebra needs none, see linalg_run_cuda.h).
#include "numfuse/backend/cuda/triangle_copy_cuda.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

constexpr int64_t kTile = 32;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;  // the grid loops over the tiles beyond these

const char* element_type(size_t itemsize) {
  switch (itemsize) {
    case 4:
      return "unsigned int";
    case 8:
      return "unsigned long long";
    case 16:
      return "nf_tc16";
    default:
      throw NotImplementedError("copy_triangle: elements of " + std::to_string(itemsize) +
                                " bytes");
  }
}

}  // namespace

std::string triangle_copy_body(size_t itemsize) {
  return std::string("struct alignas(16) nf_tc16 { unsigned long long lo, hi; };\n") + "typedef " +
         element_type(itemsize) + " nf_tc_t;\n" + R"(
struct nf_tc_params {
  const void* src;
  void* dst;
  long long n, batch;
  long long s_p, s_q, s_batch;
  int keep_upper;
};
// Block b of the grid walks the tiles b, b + gridDim.x, ... of the whole stack; thread
// (tx, ty) = (threadIdx.x % 32, threadIdx.x / 32) does rows ty, ty + 8, ... of a tile.
extern "C" __global__ void __launch_bounds__(256) nf_triangle_copy(const nf_tc_params p) {
  __shared__ nf_tc_t tile[32][33];  // tile[i][j] = S(c0 + i, r0 + j), the value of dst(r0 + j, c0 + i)
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const long long nt = (p.n + 31) / 32, per = nt * nt;
  // The unit-stride axis of S varies fastest over tx in the load; dst's rows in the store.
  const bool p_fast = (p.s_p < 0 ? -p.s_p : p.s_p) < (p.s_q < 0 ? -p.s_q : p.s_q);
  for (long long t = blockIdx.x; t < p.batch * per; t += gridDim.x) {
    const long long b = t / per, r0 = (t % per) / nt * 32, c0 = (t % per) % nt * 32;
    const nf_tc_t* s = static_cast<const nf_tc_t*>(p.src) + b * p.s_batch;
    nf_tc_t* d = static_cast<nf_tc_t*>(p.dst) + b * p.n * p.n;
    for (int k = 0; k < 32; k += 8) {
      const int i = p_fast ? tx : ty + k, j = p_fast ? ty + k : tx;
      const long long c = c0 + i, r = r0 + j;
      if (c < p.n && r < p.n && (p.keep_upper ? c >= r : r >= c)) tile[i][j] = s[c * p.s_p + r * p.s_q];
    }
    __syncthreads();
    for (int k = 0; k < 32; k += 8) {
      const long long r = r0 + ty + k, c = c0 + tx;
      if (r < p.n && c < p.n) {
        nf_tc_t v{};
        if (p.keep_upper ? c >= r : r >= c) v = tile[tx][ty + k];
        d[r * p.n + c] = v;
      }
    }
    __syncthreads();
  }
}
)";
}

void launch_triangle_copy(TriangleCopyParams p, const Array& dst);

bool triangle_copy_params(const Array& src, bool transpose, bool keep_upper,
                          TriangleCopyParams* p) {
  const int nd = src.ndim();
  const int64_t n = src.shape[nd - 1];
  std::vector<int> axes;  // the batch axes longer than 1: one stride apart, or no s_batch
  for (int d = 0; d + 2 < nd; ++d) {
    if (src.shape[d] != 1) axes.push_back(d);
  }
  for (size_t k = 0; k + 1 < axes.size(); ++k) {
    if (src.strides[axes[k]] != src.strides[axes[k + 1]] * src.shape[axes[k + 1]]) return false;
  }
  *p = TriangleCopyParams{};
  p->src = src.data();
  p->n = n;
  p->batch = n == 0 ? 0 : src.size() / (n * n);
  // dst(r, c) = S(c, r): S is src itself when transposing, src's transpose otherwise.
  const int64_t row = src.strides[nd - 2], col = src.strides[nd - 1];
  p->s_p = transpose ? row : col;
  p->s_q = transpose ? col : row;
  p->s_batch = axes.empty() ? 0 : src.strides[axes.back()];
  p->keep_upper = keep_upper ? 1 : 0;
  return true;
}

unsigned triangle_copy_blocks(const TriangleCopyParams& p) {
  const int64_t tiles = p.batch * ((p.n + kTile - 1) / kTile) * ((p.n + kTile - 1) / kTile);
  return static_cast<unsigned>(std::min(tiles, kMaxBlocks));
}

void copy_triangle(const Array& src, const Array& dst, bool transpose, bool keep_upper) {
  if (dst.size() == 0) return;
  if (!dst.c_contiguous() || dst.shape != src.shape || dst.itemsize() != src.itemsize()) {
    throw Error("copy_triangle: dst must be a C-order array of src's shape and size");
  }
  TriangleCopyParams p{};
  if (!triangle_copy_params(src, transpose, keep_upper, &p)) {
    Array c = Array::empty(src.shape, src.dtype, src.device());
    copy_on_device(src, c);
    triangle_copy_params(c, transpose, keep_upper, &p);
    launch_triangle_copy(p, dst);  // c may go once the launch is enqueued (stream-ordered frees)
    return;
  }
  launch_triangle_copy(p, dst);
}

void launch_triangle_copy(TriangleCopyParams p, const Array& dst) {
  p.dst = dst.data();
  const int device = dst.device().index;
  const size_t size = dst.itemsize();
  CUfunction fn = keyed_kernel("triangle_copy:" + std::to_string(size), "nf_triangle_copy",
                               {"-std=c++17"}, device, [size] { return triangle_copy_body(size); });
  launch(fn, device, triangle_copy_blocks(p), kTriangleCopyThreads, &p);
}

}  // namespace nf::cuda
