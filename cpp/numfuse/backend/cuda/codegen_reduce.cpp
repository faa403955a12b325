#include "numfuse/backend/cuda/codegen_reduce.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cuda {

namespace {

bool is_arg(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }


// Byte position of the three pointers at the start of the parameter struct.
constexpr size_t kInAt = 0, kOutAt = 8, kPartialAt = 16;
// And of nout and kshape[0] (after nred and bpo).
constexpr size_t kNoutAt = 24, kKeptShapeAt = 48;

// Defines nf_acc, nf_identity(p), nf_load(x, r), nf_combine(a, b), nf_store(p, out, o, a) and
// nf_block_reduce(a) for a reduction of values of dtype `in_dtype` (the parameter struct has `init`).
void emit_tree_reductions(SourceText& s);

void emit_checked_accumulator(SourceText& s, const ReduceSpec& spec, const std::string& val_t, int slot) {
  const char* combine = spec.op == ReduceOp::Sum ? "nf::sop::Add" : "nf::sop::Multiply";
  s << "struct nf_acc { " << val_t << " v; unsigned bad; };\n"
    << "__device__ __forceinline__ nf_acc nf_identity(const nf_rparams& p) {\n"
    << "  nf_acc a; a.v = nf::convert<" << val_t << ">(*reinterpret_cast<const "
    << cuda_storage_type(spec.loop) << "*>(p.init)); a.bad = 0u; return a;\n}\n"
    << "template <class X> __device__ __forceinline__ nf_acc nf_load(X x, long long) {\n"
    << "  nf_acc a; a.v = nf::convert<" << val_t << ">(x); a.bad = 0u; return a;\n}\n"
    << "__device__ __forceinline__ nf_acc nf_combine(nf_acc a, nf_acc b) {\n"
    << "  nf_acc c; c.v = " << combine << "{}(a.v, b.v);\n"
    << "  c.bad = a.bad | b.bad | nf::fpc::judge(c.v, a.v, b.v);\n  return c;\n}\n"
    << "__device__ __forceinline__ " << cuda_storage_type(spec.loop)
    << " nf_result(const nf_rparams&, nf_acc a) {\n  return nf::convert<"
    << cuda_storage_type(spec.loop) << ">(a.v);\n}\n"
    << "__device__ __forceinline__ void nf_store(const nf_rparams& p, void* out, long long o, nf_acc a) {\n"
    << "  if (a.bad) nf::fpc::note(p.fpw + " << slot / 8 << ", a.bad << " << 4 * (slot % 8) << ");\n"
    << "  static_cast<" << cuda_storage_type(spec.loop) << "*>(out)[o] = nf_result(p, a);\n}\n";
  emit_tree_reductions(s);
}

// `acc_slot` >= 0 (sums and products of real floats with numpy.errstate checks on): the accumulator
// also carries the conditions its combines raised (an infinity from finite values: overflow; a NaN
// from non-NaN values: invalid), and nf_store notes them in that slot of p.fpw.
void emit_accumulator(SourceText& s, const ReduceSpec& spec, DType in_dtype, int acc_slot) {
  const ReduceOp op = spec.op;
  const bool arg = is_arg(op);
  const bool logical = op == ReduceOp::Any || op == ReduceOp::All;
  const bool var = op == ReduceOp::Var;
  const DType value_dtype = (arg || logical) ? in_dtype : spec.loop;
  const std::string val_t = logical ? "bool" : cuda_compute_type(value_dtype);
  const std::string out_t = arg ? "long long" : logical ? "bool" : cuda_storage_type(spec.loop);
  const DType in_dtype_ = in_dtype;
  // The accumulator: a value, a (value, index) pair for argmax/argmin, or (count, mean, sum of
  // squared deviations) for var.
  if (acc_slot >= 0) {
    emit_checked_accumulator(s, spec, val_t, acc_slot);
    return;
  }
  if (var) {
    s << "struct nf_acc { " << val_t << " n, mean, m2; };\n";
  } else if (arg) {
    s << "struct nf_acc { " << val_t << " v; long long i; };\n";
  } else {
    s << "typedef " << val_t << " nf_acc;\n";
  }
  s << "__device__ __forceinline__ nf_acc nf_identity(const nf_rparams& p) {\n";
  if (var) {
    s << "  nf_acc a; a.n = 0; a.mean = 0; a.m2 = 0; return a;\n";
  } else if (arg) {
    s << "  nf_acc a; a.v = " << val_t << "(); a.i = -1; return a;\n";
  } else if (logical) {
    s << "  return " << (op == ReduceOp::All ? "true" : "false") << ";\n";
  } else {
    s << "  return nf::convert<nf_acc>(*reinterpret_cast<const " << cuda_storage_type(spec.loop)
      << "*>(p.init));\n";
  }
  s << "}\n";
  s << "template <class X> __device__ __forceinline__ nf_acc nf_load(X x, long long r) {\n";
  if (var) {
    // m2 starts as x - x: 0 for a finite x, NaN for an inf or NaN one. NumPy's two passes give NaN
    // whenever an element is not finite (x - mean is inf - inf or NaN); Chan's update alone would
    // give 0 for one such element (m2 = 0) and inf for an inf beside finite ones.
    s << "  nf_acc a; a.n = 1; a.mean = nf::convert<" << val_t << ">(x); a.m2 = a.mean - a.mean; return a;\n";
  } else if (arg) {
    s << "  nf_acc a; a.v = nf::convert<" << val_t << ">(x); a.i = r; return a;\n";
  } else if (logical) {
    s << "  return nf::truth(x);\n";
  } else {
    s << "  return nf::convert<nf_acc>(x);\n";
  }
  s << "}\n";
  s << "__device__ __forceinline__ nf_acc nf_combine(nf_acc a, nf_acc b) {\n";
  switch (op) {
    case ReduceOp::Sum: s << "  return nf::sop::Add{}(a, b);\n"; break;
    case ReduceOp::Prod: s << "  return nf::sop::Multiply{}(a, b);\n"; break;
    case ReduceOp::Max: s << "  return nf::sop::Maximum{}(a, b);\n"; break;
    case ReduceOp::Min: s << "  return nf::sop::Minimum{}(a, b);\n"; break;
    case ReduceOp::Fmax: s << "  return nf::sop::Fmax{}(a, b);\n"; break;
    case ReduceOp::Fmin: s << "  return nf::sop::Fmin{}(a, b);\n"; break;
    case ReduceOp::Any: s << "  return a || b;\n"; break;
    case ReduceOp::Var:
      // Chan et al.'s pairwise update: exact for a single element, stable for any split.
      s << "  if (a.n == 0) return b;\n  if (b.n == 0) return a;\n"
           "  nf_acc c; c.n = a.n + b.n;\n  const " << val_t << " d = b.mean - a.mean, f = b.n / c.n;\n"
           "  c.mean = a.mean + d * f;\n  c.m2 = a.m2 + b.m2 + d * d * a.n * f;\n  return c;\n";
      break;
    case ReduceOp::All: s << "  return a && b;\n"; break;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin: {
      // The first extreme wins; NaN counts as the extreme (its first occurrence).
      const char* better = op == ReduceOp::ArgMax ? "nf::sop::Greater" : "nf::sop::Less";
      bool has_nan = is_inexact(in_dtype_);
      s << "  if (a.i < 0) return b;\n  if (b.i < 0) return a;\n";
      if (has_nan) {
        s << "  const bool an = nf::sop::Isnan{}(a.v), bn = nf::sop::Isnan{}(b.v);\n"
             "  if (an || bn) return (an && (!bn || a.i < b.i)) ? a : b;\n";
      }
      s << "  if (" << better << "{}(b.v, a.v)) return b;\n"
        << "  if (" << better << "{}(a.v, b.v)) return a;\n"
        << "  return a.i <= b.i ? a : b;\n";
      break;
    }
  }
  s << "}\n";
  // The result as stored (fused epilogues read it from here, not back from memory).
  s << "__device__ __forceinline__ " << out_t << " nf_result(const nf_rparams& p, nf_acc a) {\n";
  if (var) {
    // m2 / max(n - ddof, 0): NumPy's inf or nan when ddof leaves no degree of freedom.
    s << "  const " << val_t << " ddof = nf::convert<" << val_t << ">(*reinterpret_cast<const " << out_t
      << "*>(p.init));\n  const " << val_t << " dof = a.n - ddof;\n"
      << "  return nf::convert<" << out_t << ">(a.m2 / (dof > 0 ? dof : " << val_t << "(0)));\n";
  } else if (arg) {
    s << "  return a.i;\n";
  } else if (logical) {
    s << "  return a;\n";
  } else {
    s << "  return nf::convert<" << out_t << ">(a);\n";
  }
  s << "}\n";
  s << "__device__ __forceinline__ void nf_store(const nf_rparams& p, void* out, long long o, nf_acc a) {\n"
       "  static_cast<" << out_t << "*>(out)[o] = nf_result(p, a);\n}\n";
  emit_tree_reductions(s);
}

// nf_warp_reduce and nf_block_reduce (kernels/reduce_tree.cuh), for any nf_acc with nf_combine.
void emit_tree_reductions(SourceText& s) {
  s << kernel_templates::reduce_tree;
}

}  // namespace

void emit_reduce_accumulator(SourceText& s, const ReduceSpec& spec, DType in_dtype, int acc_slot) {
  emit_accumulator(s, spec, in_dtype, acc_slot);
}

int accumulation_slot(FpCheckPlan& plan, const ReduceSpec& spec, DType value_dtype,
                      std::initializer_list<const GroupProgram*> programs, FpState state) {
  // float16 sums accumulate in float32 and round once at the end: no flag on the CPU either.
  (void)value_dtype;  // converted to the loop's type as it is loaded
  const bool floats = spec.loop == DType::Float32 || spec.loop == DType::Float64;
  if (!floats || (spec.op != ReduceOp::Sum && spec.op != ReduceOp::Prod)) return -1;
  return add_accumulation_check(plan, programs, state);
}

bool reduce_fits_int32(const Shape& shape, const std::vector<Strides>& strides, int64_t max_index) {
  return int32_split_enabled() && make_iter_space(shape, strides).fits_int32(max_index);
}

int64_t reduce_rows_per_piece(const ReducePlan& plan, int64_t max_index) {
  const int64_t rows = plan.kept_shape[0];
  int64_t inner_out = 1, span = 0;
  for (size_t d = 1; d < plan.kept_shape.size(); ++d) {
    inner_out *= plan.kept_shape[d];
    span += std::abs(plan.kept_stride[d]) * (plan.kept_shape[d] - 1);
  }
  for (size_t d = 0; d < plan.red_shape.size(); ++d)
    span += std::abs(plan.red_stride[d]) * (plan.red_shape[d] - 1);
  const int64_t per_row = inner_out * plan.nred;
  if (rows < 2 || per_row <= 0 || span > max_index) return 0;
  int64_t r = std::min(rows, max_index / per_row);
  const int64_t step = std::abs(plan.kept_stride[0]);
  if (step > 0) r = std::min(r, (max_index - span) / step + 1);
  if (r <= 0) return 0;
  // Pieces of equal rows: a short last piece ran its few blocks alone, latency-bound (sum along
  // the rows of a (2049, 2^20) int8 array: 0.874 ms in pieces of 2031 and 18 rows on the H100,
  // 0.736 ms in one 64-bit launch).
  const int64_t pieces = (rows + r - 1) / r;
  return (rows + pieces - 1) / pieces;
}

ReducePlan plan_reduce(const ReduceSpec& spec, const Array& in, int sm_count, int64_t max_index) {
  ReducePlan p;
  const ReduceSpaces sp = split_reduction(in.shape, {in.strides}, spec.axes);
  p.kept_shape = sp.kept.shape;
  p.kept_stride = sp.kept.strides[0];
  p.red_shape = sp.red.shape;
  p.red_stride = sp.red.strides[0];
  if (int(p.kept_shape.size()) > kMaxReduceRank || int(p.red_shape.size()) > kMaxReduceRank) {
    throw NotImplementedError("reduction of rank above " + std::to_string(kMaxReduceRank) +
                              " after coalescing on CUDA");
  }
  p.nout = numel(p.kept_shape);
  p.nred = numel(p.red_shape);
  p.idx32 = reduce_fits_int32(in.shape, {in.strides}, max_index);
  if (!p.idx32 && int32_split_enabled()) {
    // Past 32 bits: rows of the outermost kept dim in pieces that fit (independent outputs).
    p.rows_per_piece = reduce_rows_per_piece(p, max_index);
    p.idx32 = p.rows_per_piece > 0;
  }
  // Outer reductions (outputs adjacent in memory, many of them) read coalesced with a thread per
  // output; everything else gives each output one or more blocks.
  const bool outputs_adjacent = p.kept_stride.back() == 1 && p.kept_shape.back() > 1;
  p.thread_per_output = outputs_adjacent && p.nout >= 1024;
  p.warp_per_output = !p.thread_per_output && p.nred <= 4096 && p.nout >= int64_t(sm_count) * 4;
  if (!p.thread_per_output && !p.warp_per_output) {
    // Enough blocks to fill the device when there are few outputs.
    int64_t want = std::max<int64_t>(1, (int64_t(sm_count) * 8) / std::max<int64_t>(p.nout, 1));
    int64_t by_work = std::max<int64_t>(1, p.nred / (256 * 16));
    p.blocks_per_output = static_cast<int>(std::min<int64_t>({want, by_work, 1024}));
    // 16-byte loads when each output's row is contiguous (not at a launch-bound size, where they
    // would only make the kernel depend on alignment and row length: codegen_elementwise.h).
    if (p.red_shape.size() == 1 && p.red_stride[0] == 1 && !is_arg(spec.op) && in.size() > kScalarLoopElements) {
      size_t size = itemsize(in.dtype);
      int vec = static_cast<int>(16 / size);
      bool aligned = reinterpret_cast<uintptr_t>(in.data()) % 16 == 0 && p.nred % vec == 0;
      for (size_t k = 0; k < p.kept_stride.size(); ++k) {
        aligned &= (p.kept_stride[k] * int64_t(size)) % 16 == 0;
      }
      if (aligned && vec > 1) p.vec = vec;
    }
  }
  return p;
}

ReduceKernel generate_reduce(const ReduceSpec& spec, const Array& in, const ReducePlan& plan,
                             FpState state) {
  const ReduceOp op = spec.op;
  const bool arg = is_arg(op);
  const bool logical = op == ReduceOp::Any || op == ReduceOp::All;
  const DType value_dtype = (arg || logical) ? in.dtype : spec.loop;
  const std::string in_t = cuda_storage_type(in.dtype);
  const std::string val_t = logical ? "bool" : cuda_compute_type(value_dtype);
  const std::string out_t = arg ? "long long" : logical ? "bool" : cuda_storage_type(spec.loop);
  const int kr = static_cast<int>(plan.kept_shape.size()), rr = static_cast<int>(plan.red_shape.size());

  SourceText s;
  s << "\n// ---- reduction kernel\n";
  s << kernel_templates::vector_types;
  s << "struct nf_rparams {\n  const void* in;\n  void* out;\n  void* partial;\n  long long nout;\n"
       "  long long nred;\n  long long bpo;\n  long long kshape[" << kr << "];\n  long long kstride[" << kr
    << "];\n  long long rshape[" << rr << "];\n  long long rstride[" << rr
    << "];\n  unsigned long long init[2];\n";
  ReduceKernel k;
  const int acc_slot = accumulation_slot(k.fp, spec, in.dtype, {}, state);
  if (acc_slot >= 0) s << "  unsigned* fpw;  // numpy.errstate flag words\n";
  s << "};\n";
  emit_accumulator(s, spec, in.dtype, acc_slot);
  s << "typedef " << (plan.idx32 ? "int" : "long long") << " nf_ri;\n";
  auto offset_fn = [&](const char* name, const char* shape, const char* stride, int rank) {
    s << "__device__ __forceinline__ nf_ri " << name << "(const nf_rparams& p, nf_ri i) {\n"
      << "  nf_ri off = 0;\n";
    for (int d = rank - 1; d >= 0; --d) {
      s << "  { const nf_ri c = i % nf_ri(p." << shape << "[" << d << "]); i /= nf_ri(p." << shape
        << "[" << d << "]); off += c * nf_ri(p." << stride << "[" << d << "]); }\n";
    }
    s << "  return off;\n}\n";
  };
  offset_fn("nf_kept_offset", "kshape", "kstride", kr);
  offset_fn("nf_red_offset", "rshape", "rstride", rr);
  // Output o's elements start at base in the input; element r lies nf_red_offset(p, r) further.
  s << "__device__ __forceinline__ void nf_finish(const nf_rparams& p, long long o, nf_acc acc) {\n"
       "  nf_store(p, p.out, o, acc);\n}\n";
  const std::string in_ptr = "static_cast<const " + in_t + "*>(p.in)";
  const std::string element = "nf_load(" + in_ptr + "[base + nf_red_offset(p, r)], r)";
  SourceText block_loop;
  if (plan.vec > 1) {
    // Contiguous rows: 16-byte loads of plan.vec elements.
    block_loop << "  typedef nf_vec<" << in_t << ", " << plan.vec << "> V;\n"
               << "  const V* row = reinterpret_cast<const V*>(" << in_ptr << " + base);\n"
               << "  for (nf_ri r = part * blockDim.x + threadIdx.x; r < nf_ri(p.nred / "
               << plan.vec << "); r += nf_ri(p.bpo) * blockDim.x) {\n    const V v = row[r];\n"
               << "#pragma unroll\n    for (int k = 0; k < " << plan.vec
               << "; ++k) acc = nf_combine(acc, nf_load(v.v[k], r * " << plan.vec
               << " + k));\n  }\n";
  } else {
    block_loop << "  for (nf_ri r = part * blockDim.x + threadIdx.x; r < nf_ri(p.nred); r += "
                  "nf_ri(p.bpo) * "
                  "blockDim.x)\n"
               << "    acc = nf_combine(acc, " << element << ");\n";
  }
  s << reduce_kernels(plan, "  const nf_ri base = nf_kept_offset(p, o);\n", element,
                      block_loop.str());

  k.body = s.str();
  append_param(k.params, in.data());
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<long long>(plan.nout));
  append_param(k.params, static_cast<long long>(plan.nred));
  append_param(k.params, static_cast<long long>(plan.blocks_per_output));
  for (int64_t v : plan.kept_shape) append_param(k.params, static_cast<long long>(v));
  for (int64_t v : plan.kept_stride) append_param(k.params, static_cast<long long>(v));
  for (int64_t v : plan.red_shape) append_param(k.params, static_cast<long long>(v));
  for (int64_t v : plan.red_stride) append_param(k.params, static_cast<long long>(v));
  unsigned long long init[2] = {0, 0};
  if (!arg && !logical) {
    if (spec.has_initial) {
      std::memcpy(init, spec.initial, itemsize(spec.loop));
    } else {
      reduce_identity(op, spec.loop, init);
    }
  }
  append_param(k.params, init);
  if (!k.fp.empty()) {
    k.fp_param_offset = k.params.size();
    append_param(k.params, static_cast<unsigned*>(nullptr));
  }
  if (plan.blocks_per_output > 1) {
    size_t acc_size = arg ? 16 + itemsize(value_dtype) : std::max<size_t>(itemsize(value_dtype), 4);
    if (op == ReduceOp::Var) acc_size *= 3;  // count, mean, m2
    k.partial_bytes = static_cast<size_t>(plan.nout * plan.blocks_per_output) * (acc_size + 16);
  }
  return k;
}

std::string reduce_kernels(const ReducePlan& plan, const std::string& setup,
                           const std::string& element, const std::string& block_loop) {
  const int scheme = plan.warp_per_output ? 0 : plan.thread_per_output ? 1 : 2;
  return "#define NF_REDUCE_SCHEME " + std::to_string(scheme) + "\n" +
         fill_template(kernel_templates::reduce,
                       {{"setup", setup}, {"element", element}, {"block_loop", block_loop}});
}

int64_t set_reduce_piece(ReduceKernel& k, const ReducePlan& plan, const Array& in, const Array& out,
                         int64_t row0, int64_t rows) {
  const int64_t inner_out = plan.nout / plan.kept_shape[0];
  const void* in_at = in.data() + row0 * plan.kept_stride[0] * static_cast<int64_t>(in.itemsize());
  void* out_at = out.data() + row0 * inner_out * static_cast<int64_t>(out.itemsize());
  const long long nout = rows * inner_out, kshape0 = rows;
  std::memcpy(k.params.data() + kInAt, &in_at, sizeof in_at);
  std::memcpy(k.params.data() + kOutAt, &out_at, sizeof out_at);
  std::memcpy(k.params.data() + kNoutAt, &nout, sizeof nout);
  std::memcpy(k.params.data() + kKeptShapeAt, &kshape0, sizeof kshape0);
  return nout;
}

void set_reduce_pointers(ReduceKernel& k, const void* in, void* out, void* partials) {
  std::memcpy(k.params.data() + kInAt, &in, sizeof(in));
  std::memcpy(k.params.data() + kOutAt, &out, sizeof(out));
  std::memcpy(k.params.data() + kPartialAt, &partials, sizeof(partials));
}

}  // namespace nf::cuda
