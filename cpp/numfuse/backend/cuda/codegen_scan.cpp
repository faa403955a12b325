#include "numfuse/backend/cuda/codegen_scan.h"

#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/kernel_templates.h"
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

// What the kernels of scan.cuh expect: types, sizes, the parameter struct (with the errstate
// flag words when `checked`), one step of the scan and where a line starts in the input.
void emit_common(SourceText& s, ScanOp op, DType dtype, int rank, bool checked) {
  s << "\n// ---- scan kernels\n"
    << "typedef " << cuda_storage_type(dtype) << " nf_t;\n"
    << "typedef " << cuda_compute_type(dtype) << " nf_c;\n"
    << "#define NF_SCAN_THREADS " << kScanThreads << "\n#define NF_SCAN_ITEMS " << kScanItems
    << "\n#define NF_SCAN_TILE " << kScanTile << "\n";
  s << "struct nf_sparams {\n  const void* in;\n  void* out;\n  void* partial;\n  long long n;\n"
       "  long long lines;\n  long long inner;\n  long long astride;\n  long long tiles;\n"
       "  long long lshape[" << rank << "];\n  long long lstride[" << rank << "];\n"
    << (checked ? "  unsigned* fpw;  // numpy.errstate flag words\n" : "") << "};\n";
  // Every step is rounded to the stored dtype, as NumPy's accumulate stores each result.
  s << "__device__ __forceinline__ nf_t nf_step(nf_t a, nf_t b) {\n"
    << "  return nf::convert<nf_t>(nf::sop::" << scan_step_functor(op)
    << "{}(nf::convert<nf_c>(a), nf::convert<nf_c>(b)));\n}\n";
  s << "__device__ __forceinline__ long long nf_line_in(const nf_sparams& p, long long l) {\n"
       "  long long off = 0;\n";
  for (int d = rank - 1; d >= 0; --d) {
    s << "  { const long long c = l % p.lshape[" << d << "]; l /= p.lshape[" << d
      << "]; off += c * p.lstride[" << d << "]; }\n";
  }
  s << "  return off;\n}\n";
}

// numpy.errstate for the accumulation, after the scan: step k of a line made out[k] from out[k-1]
// and in[k], so an infinity there from finite values is an overflow and a NaN from non-NaN
// values invalid (kernels/fp_check.h's judge), as NumPy's accumulate reports them in order. A
// pass of its own reads each element twice more, only when the checks are on.
void emit_check_kernel(SourceText& s, int slot) {
  s << "#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scan_check)\n"
       "extern \"C\" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_check(const nf_sparams p) {\n"
       "  const nf_t* in = static_cast<const nf_t*>(p.in);\n"
       "  const nf_t* out = static_cast<const nf_t*>(p.out);\n"
       "  const long long steps = p.n - 1;\n  unsigned bits = 0u;\n"
       "  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < p.lines * steps;\n"
       "       e += (long long)gridDim.x * blockDim.x) {\n"
       "    const long long l = e / steps, k = e - l * steps + 1;\n"
       "    const long long o = nf_line_out(p, l) + k * p.inner;\n"
       "    bits |= nf::fpc::judge(nf::convert<nf_c>(out[o]), nf::convert<nf_c>(out[o - p.inner]),\n"
       "                           nf::convert<nf_c>(in[nf_line_in(p, l) + k * p.astride]));\n"
       "  }\n"
       "  nf::fpc::note(p.fpw + " << slot / 8 << ", bits << " << 4 * (slot % 8) << ");\n}\n#endif\n";
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

ScanKernel generate_scan(ScanOp op, DType dtype, const ScanPlan& plan, FpState state) {
  const int rank = static_cast<int>(plan.line_shape.size());
  if (rank > kMaxScanRank) {
    throw NotImplementedError("scan with more than " + std::to_string(kMaxScanRank) +
                              " line dims after coalescing on CUDA");
  }
  ScanKernel k;
  int slot = -1;
  if ((dtype == DType::Float32 || dtype == DType::Float64) && scan_op_computes(op)) {
    slot = add_accumulation_check(k.fp, {}, state);
    if (slot >= 0) k.fp.checks[slot].op = "accumulate";
  }
  SourceText s;
  emit_common(s, op, dtype, rank, slot >= 0);
  s << kernel_templates::scan;
  if (slot >= 0) emit_check_kernel(s, slot);
  k.body = s.str();
  append_param(k.params, static_cast<const void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  for (int64_t v : {plan.n, plan.lines, plan.inner, plan.axis_stride, plan.tiles}) {
    append_param(k.params, static_cast<long long>(v));
  }
  for (int64_t v : plan.line_shape) append_param(k.params, static_cast<long long>(v));
  for (int64_t v : plan.line_stride) append_param(k.params, static_cast<long long>(v));
  if (!k.fp.empty()) {
    k.fp_param_offset = k.params.size();
    append_param(k.params, static_cast<unsigned*>(nullptr));
  }
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
