#include "numfuse/backend/cuda/codegen_scan.h"

#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cuda {

namespace {

// Byte position of the three pointers at the start of the parameter struct.
constexpr size_t kInAt = 0, kOutAt = 8, kPartialAt = 16;

// Lines with their neighbours in memory (the axis is not the last dim) coalesce when a thread
// walks each one: that many of them keep the device busy without tiles.
constexpr int64_t kManyLines = 1024;

// The kernels' shared part: types, the parameter struct, one step of the scan, where a line
// starts in the input and in the output, and an inclusive scan across a block.
void emit_common(SourceText& s, ScanOp op, DType dtype, int rank) {
  s << "\n// ---- scan kernels\n"
    << "typedef " << cuda_storage_type(dtype) << " nf_t;\n"
    << "typedef " << cuda_compute_type(dtype) << " nf_c;\n"
    << "#define NF_SCAN_THREADS " << kScanThreads << "\n#define NF_SCAN_ITEMS " << kScanItems
    << "\n#define NF_SCAN_TILE " << kScanTile << "\n"
    // One padding slot every 32 elements: the threads of a warp reading their own run of
    // NF_SCAN_ITEMS neighbours then hit different shared-memory banks.
    << "#define NF_PAD(k) ((k) + ((k) >> 5))\n";
  s << "struct nf_sparams {\n  const void* in;\n  void* out;\n  void* partial;\n  long long n;\n"
       "  long long lines;\n  long long inner;\n  long long astride;\n  long long tiles;\n"
       "  long long lshape[" << rank << "];\n  long long lstride[" << rank << "];\n};\n";
  // Every step is rounded to the stored dtype, as NumPy's accumulate stores each result.
  s << "__device__ __forceinline__ nf_t nf_step(nf_t a, nf_t b) {\n"
    << "  return nf::convert<nf_t>(nf::sop::" << (op == ScanOp::CumSum ? "Add" : "Multiply")
    << "{}(nf::convert<nf_c>(a), nf::convert<nf_c>(b)));\n}\n";
  s << "__device__ __forceinline__ long long nf_line_in(const nf_sparams& p, long long l) {\n"
       "  long long off = 0;\n";
  for (int d = rank - 1; d >= 0; --d) {
    s << "  { const long long c = l % p.lshape[" << d << "]; l /= p.lshape[" << d
      << "]; off += c * p.lstride[" << d << "]; }\n";
  }
  s << "  return off;\n}\n";
  // The output is C-contiguous: line l is (outer o, inner i), its first element o*n*inner + i.
  s << "__device__ __forceinline__ long long nf_line_out(const nf_sparams& p, long long l) {\n"
       "  const long long o = l / p.inner;\n  return o * p.n * p.inner + (l - o * p.inner);\n}\n";
  // Hillis-Steele over the block: the earlier value always on the left of nf_step.
  s << "__device__ __forceinline__ nf_t nf_block_scan(nf_t v, nf_t* buf) {\n"
       "  const int t = threadIdx.x;\n  buf[t] = v;\n  __syncthreads();\n"
       "  for (int d = 1; d < NF_SCAN_THREADS; d <<= 1) {\n"
       "    const nf_t prev = t >= d ? buf[t - d] : v;\n    __syncthreads();\n"
       "    if (t >= d) v = nf_step(prev, v);\n    buf[t] = v;\n    __syncthreads();\n  }\n"
       "  return v;\n}\n";
}

// A thread per line, in order: NumPy's association exactly. Loads come in batches so that
// several are in flight while the additions wait on each other.
void emit_lines_kernel(SourceText& s) {
  s << "extern \"C\" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_lines(const nf_sparams p) {\n"
       "  const nf_t* __restrict__ in = static_cast<const nf_t*>(p.in);\n"
       "  nf_t* __restrict__ out = static_cast<nf_t*>(p.out);\n"
       "  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < p.lines;\n"
       "       l += (long long)gridDim.x * blockDim.x) {\n"
       "    const nf_t* src = in + nf_line_in(p, l);\n    nf_t* dst = out + nf_line_out(p, l);\n"
       "    nf_t acc = src[0];\n    dst[0] = acc;\n"
       "    for (long long k0 = 1; k0 < p.n; k0 += NF_SCAN_ITEMS) {\n"
       "      nf_t x[NF_SCAN_ITEMS];\n"
       "#pragma unroll\n"
       "      for (int j = 0; j < NF_SCAN_ITEMS; ++j) if (k0 + j < p.n) x[j] = src[(k0 + j) * p.astride];\n"
       "#pragma unroll\n"
       "      for (int j = 0; j < NF_SCAN_ITEMS; ++j) {\n"
       "        if (k0 + j < p.n) {\n          acc = nf_step(acc, x[j]);\n"
       "          dst[(k0 + j) * p.inner] = acc;\n        }\n      }\n    }\n  }\n}\n";
}

// One tile (block `bid` = line * tiles + tile). Loads are striped across the block (neighbouring
// threads read neighbouring elements) into shared memory; each thread then takes its run of
// NF_SCAN_ITEMS elements. kTotals: only the tile's total, into partial[bid]. Else the scan, each
// thread starting from its carry: the tile's (partial[bid - 1], the inclusive scan of the earlier
// tiles of the line) and the earlier threads' totals.
void emit_tile_function(SourceText& s) {
  s << "template <bool kTotals>\n"
       "__device__ __forceinline__ void nf_scan_tile(const nf_sparams& p, long long bid, nf_t* sh, nf_t* buf) {\n"
       "  const nf_t* __restrict__ in = static_cast<const nf_t*>(p.in);\n"
       "  nf_t* partial = static_cast<nf_t*>(p.partial);\n"
       "  const int t = threadIdx.x;\n"
       "  const long long line = bid / p.tiles, tile = bid - line * p.tiles;\n"
       "  const long long k0 = tile * NF_SCAN_TILE;\n"
       "  const long long left = p.n - k0;\n"
       "  const int cnt = left < NF_SCAN_TILE ? (int)left : NF_SCAN_TILE;\n"
       "  const nf_t* src = in + nf_line_in(p, line) + k0 * p.astride;\n"
       "  __syncthreads();  // the block's previous tile is done with sh and buf\n"
       "#pragma unroll\n"
       "  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {\n"
       "    const int k = j * NF_SCAN_THREADS + t;\n"
       "    if (k < cnt) sh[NF_PAD(k)] = src[k * p.astride];\n  }\n"
       "  __syncthreads();\n"
       "  const int first = t * NF_SCAN_ITEMS;\n"
       "  const int mine = cnt - first < 0 ? 0 : (cnt - first < NF_SCAN_ITEMS ? cnt - first : NF_SCAN_ITEMS);\n"
       "  nf_t x[NF_SCAN_ITEMS];\n  nf_t total{};\n"
       "#pragma unroll\n"
       "  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {\n"
       "    if (j < mine) {\n      x[j] = sh[NF_PAD(first + j)];\n"
       "      total = j == 0 ? x[j] : nf_step(total, x[j]);\n    }\n  }\n"
       "  const nf_t incl = nf_block_scan(total, buf);\n"
       "  if (kTotals) {\n"
       "    if (mine > 0 && first + mine == cnt) partial[bid] = incl;\n    return;\n  }\n"
       "  bool carried = tile > 0;\n  nf_t acc{};\n"
       "  if (carried) acc = partial[bid - 1];\n"
       "  if (t > 0) {\n    const nf_t e = buf[t - 1];\n"
       "    acc = carried ? nf_step(acc, e) : e;\n    carried = true;\n  }\n"
       "#pragma unroll\n"
       "  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {\n"
       "    if (j < mine) {\n      acc = (carried || j > 0) ? nf_step(acc, x[j]) : x[j];\n"
       "      sh[NF_PAD(first + j)] = acc;\n    }\n  }\n"
       "  __syncthreads();\n"
       "  nf_t* dst = static_cast<nf_t*>(p.out) + nf_line_out(p, line) + k0 * p.inner;\n"
       "#pragma unroll\n"
       "  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {\n"
       "    const int k = j * NF_SCAN_THREADS + t;\n"
       "    if (k < cnt) dst[k * p.inner] = sh[NF_PAD(k)];\n  }\n}\n";
  for (const char* name : {"nf_scan_totals", "nf_scan_tiles"}) {
    const bool totals = std::strcmp(name, "nf_scan_totals") == 0;
    s << "extern \"C\" __global__ void __launch_bounds__(NF_SCAN_THREADS) " << name
      << "(const nf_sparams p) {\n"
         "  __shared__ nf_t sh[NF_PAD(NF_SCAN_TILE)];\n  __shared__ nf_t buf[NF_SCAN_THREADS];\n"
         "  for (long long bid = blockIdx.x; bid < p.lines * p.tiles; bid += gridDim.x)\n"
         "    nf_scan_tile<" << (totals ? "true" : "false") << ">(p, bid, sh, buf);\n}\n";
  }
}

// Per line, the tile totals become their inclusive scan, in place, a block-wide chunk at a time.
void emit_carries_kernel(SourceText& s) {
  s << "extern \"C\" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_carries(const nf_sparams p) {\n"
       "  __shared__ nf_t buf[NF_SCAN_THREADS];\n"
       "  const int t = threadIdx.x;\n"
       "  for (long long line = blockIdx.x; line < p.lines; line += gridDim.x) {\n"
       "    nf_t* row = static_cast<nf_t*>(p.partial) + line * p.tiles;\n"
       "    nf_t carry{};\n"
       "    for (long long c = 0; c < p.tiles; c += NF_SCAN_THREADS) {\n"
       "      const long long b = c + t;\n      nf_t v{};\n"
       "      if (b < p.tiles) v = row[b];\n"
       "      __syncthreads();  // everyone has read buf's last chunk\n"
       "      v = nf_block_scan(v, buf);\n"
       "      if (c > 0) v = nf_step(carry, v);\n"
       "      if (b < p.tiles) row[b] = v;\n"
       // Only a full chunk has more after it: its last slot is a real total.
       "      if (c + NF_SCAN_THREADS < p.tiles) {\n"
       "        const nf_t last = buf[NF_SCAN_THREADS - 1];\n"
       "        carry = c > 0 ? nf_step(carry, last) : last;\n      }\n    }\n  }\n}\n";
}

}  // namespace

ScanPlan plan_scan(const Array& in, int axis) {
  ScanPlan p;
  p.n = in.shape[axis];
  p.axis_stride = in.strides[axis];
  for (int d = axis + 1; d < in.ndim(); ++d) p.inner *= in.shape[d];
  p.lines = p.n ? in.size() / p.n : 0;
  // Neighbouring line dims merge when the input steps through them as one (the flat C-order line
  // index then unravels the same way).
  std::vector<int> line_dims;
  for (int d = 0; d < in.ndim(); ++d) {
    if (d != axis) line_dims.push_back(d);
  }
  const IterSpace lines = coalesce_in_order(in.shape, {in.strides}, line_dims);
  p.line_shape = lines.shape;
  p.line_stride = lines.strides[0];
  // Tiles change the association of float steps (within a few ulp): only where a thread per line
  // would leave the device idle or read memory badly. float16 always walks in order.
  p.sequential = in.dtype == DType::Float16 || p.n < kScanTile || (p.inner > 1 && p.lines >= kManyLines);
  p.tiles = p.sequential ? 1 : (p.n + kScanTile - 1) / kScanTile;
  return p;
}

ScanKernel generate_scan(ScanOp op, DType dtype, const ScanPlan& plan) {
  const int rank = static_cast<int>(plan.line_shape.size());
  if (rank > kMaxScanRank) {
    throw NotImplementedError("scan with more than " + std::to_string(kMaxScanRank) +
                              " line dims after coalescing on CUDA");
  }
  SourceText s;
  emit_common(s, op, dtype, rank);
  emit_lines_kernel(s);
  emit_tile_function(s);
  emit_carries_kernel(s);
  ScanKernel k;
  k.body = s.str();
  append_param(k.params, static_cast<const void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  for (int64_t v : {plan.n, plan.lines, plan.inner, plan.axis_stride, plan.tiles}) {
    append_param(k.params, static_cast<long long>(v));
  }
  for (int64_t v : plan.line_shape) append_param(k.params, static_cast<long long>(v));
  for (int64_t v : plan.line_stride) append_param(k.params, static_cast<long long>(v));
  if (plan.tiles > 1) k.partial_bytes = static_cast<size_t>(plan.lines * plan.tiles) * itemsize(dtype);
  return k;
}

void set_scan_pointers(ScanKernel& k, const void* in, void* out, void* partial) {
  std::memcpy(k.params.data() + kInAt, &in, sizeof(in));
  std::memcpy(k.params.data() + kOutAt, &out, sizeof(out));
  std::memcpy(k.params.data() + kPartialAt, &partial, sizeof(partial));
}

std::vector<ScanLaunch> scan_launches(const ScanPlan& plan) {
  if (plan.sequential) return {{"nf_scan_lines", (plan.lines + kScanThreads - 1) / kScanThreads}};
  const int64_t ntiles = plan.lines * plan.tiles;
  if (plan.tiles == 1) return {{"nf_scan_tiles", ntiles}};
  return {{"nf_scan_totals", ntiles}, {"nf_scan_carries", plan.lines}, {"nf_scan_tiles", ntiles}};
}

}  // namespace nf::cuda
