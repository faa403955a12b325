#include "numfuse/backend/cuda/codegen_reduce.h"

#include <algorithm>
#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cuda {

namespace {

bool is_arg(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }


// Byte position of the three pointers at the start of the parameter struct.
constexpr size_t kInAt = 0, kOutAt = 8, kPartialAt = 16;

// Defines nf_acc, nf_identity(p), nf_load(x, r), nf_combine(a, b), nf_store(p, out, o, a) and
// nf_block_reduce(a) for a reduction of values of dtype `in_dtype` (the parameter struct has `init`).
void emit_accumulator(SourceText& s, const ReduceSpec& spec, DType in_dtype) {
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
    s << "  nf_acc a; a.n = 1; a.mean = nf::convert<" << val_t << ">(x); a.m2 = 0; return a;\n";
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
  // Warp shuffle of any accumulator, word by word.
  s << "template <class T> __device__ __forceinline__ T nf_shfl_down(T v, int d) {\n"
       "  constexpr int W = (sizeof(T) + 3) / 4;\n  unsigned w[W] = {};\n  memcpy(w, &v, sizeof(T));\n"
       "#pragma unroll\n  for (int i = 0; i < W; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], d);\n"
       "  T r;\n  memcpy(&r, w, sizeof(T));\n  return r;\n}\n"
       "__device__ __forceinline__ nf_acc nf_warp_reduce(nf_acc a) {\n"
       "#pragma unroll\n  for (int d = 16; d > 0; d >>= 1) a = nf_combine(a, nf_shfl_down(a, d));\n"
       "  return a;\n}\n";
  // Block tree through shared memory: works for every accumulator type.
  s << "__device__ nf_acc nf_block_reduce(nf_acc a) {\n"
       "  __shared__ unsigned char raw[256 * sizeof(nf_acc)];\n"
       "  nf_acc* buf = reinterpret_cast<nf_acc*>(raw);\n"
       "  buf[threadIdx.x] = a;\n  __syncthreads();\n"
       "  for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
       "    if (threadIdx.x < w) buf[threadIdx.x] = nf_combine(buf[threadIdx.x], buf[threadIdx.x + w]);\n"
       "    __syncthreads();\n  }\n  return buf[0];\n}\n";
}

}  // namespace

void emit_reduce_accumulator(SourceText& s, const ReduceSpec& spec, DType in_dtype) {
  emit_accumulator(s, spec, in_dtype);
}

ReducePlan plan_reduce(const ReduceSpec& spec, const Array& in, int sm_count) {
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
    // 16-byte loads when each output's row is contiguous.
    if (p.red_shape.size() == 1 && p.red_stride[0] == 1 && !is_arg(spec.op)) {
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

ReduceKernel generate_reduce(const ReduceSpec& spec, const Array& in, const ReducePlan& plan) {
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
  s << "template <class T, int N> struct alignas(sizeof(T) * N) nf_vec { T v[N]; };\n";
  s << "struct nf_rparams {\n  const void* in;\n  void* out;\n  void* partial;\n  long long nout;\n"
       "  long long nred;\n  long long bpo;\n  long long kshape[" << kr << "];\n  long long kstride[" << kr
    << "];\n  long long rshape[" << rr << "];\n  long long rstride[" << rr
    << "];\n  unsigned long long init[2];\n};\n";
  emit_accumulator(s, spec, in.dtype);
  auto offset_fn = [&](const char* name, const char* shape, const char* stride, int rank) {
    s << "__device__ __forceinline__ long long " << name << "(const nf_rparams& p, long long i) {\n"
      << "  long long off = 0;\n";
    for (int d = rank - 1; d >= 0; --d) {
      s << "  { const long long c = i % p." << shape << "[" << d << "]; i /= p." << shape << "[" << d
        << "]; off += c * p." << stride << "[" << d << "]; }\n";
    }
    s << "  return off;\n}\n";
  };
  offset_fn("nf_kept_offset", "kshape", "kstride", kr);
  offset_fn("nf_red_offset", "rshape", "rstride", rr);
  const char* in_ptr = "static_cast<const ";
  if (plan.warp_per_output) {
    s << "extern \"C\" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {\n"
         "  const long long o = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;\n"
         "  const int lane = threadIdx.x & 31;\n  if (o >= p.nout) return;\n"
         "  const long long base = nf_kept_offset(p, o);\n  nf_acc acc = nf_identity(p);\n"
         "  for (long long r = lane; r < p.nred; r += 32)\n"
         "    acc = nf_combine(acc, nf_load(" << in_ptr << in_t << "*>(p.in)[base + nf_red_offset(p, r)], r));\n"
         "  acc = nf_warp_reduce(acc);\n  if (lane == 0) nf_store(p, p.out, o, acc);\n}\n";
  } else if (plan.thread_per_output) {
    s << "extern \"C\" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {\n"
         "  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < p.nout;\n"
         "       o += (long long)gridDim.x * blockDim.x) {\n"
         "    const long long base = nf_kept_offset(p, o);\n    nf_acc acc = nf_identity(p);\n"
         "    for (long long r = 0; r < p.nred; ++r)\n"
         "      acc = nf_combine(acc, nf_load(" << in_ptr << in_t
      << "*>(p.in)[base + nf_red_offset(p, r)], r));\n"
         "    nf_store(p, p.out, o, acc);\n  }\n}\n";
  } else {
    s << "extern \"C\" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {\n"
         "  const long long o = blockIdx.x / p.bpo, part = blockIdx.x % p.bpo;\n"
         "  const long long base = nf_kept_offset(p, o);\n  nf_acc acc = nf_identity(p);\n";
    if (plan.vec > 1) {
      s << "  typedef nf_vec<" << in_t << ", " << plan.vec << "> V;\n"
        << "  const V* row = reinterpret_cast<const V*>(" << in_ptr << in_t << "*>(p.in) + base);\n"
        << "  for (long long r = part * blockDim.x + threadIdx.x; r < p.nred / " << plan.vec
        << "; r += p.bpo * blockDim.x) {\n    const V v = row[r];\n"
        << "#pragma unroll\n    for (int k = 0; k < " << plan.vec
        << "; ++k) acc = nf_combine(acc, nf_load(v.v[k], r * " << plan.vec << " + k));\n  }\n";
    } else {
      s << "  for (long long r = part * blockDim.x + threadIdx.x; r < p.nred; r += p.bpo * blockDim.x)\n"
        << "    acc = nf_combine(acc, nf_load(" << in_ptr << in_t
        << "*>(p.in)[base + nf_red_offset(p, r)], r));\n";
    }
    s << "  acc = nf_block_reduce(acc);\n"
         "  if (threadIdx.x == 0) {\n"
         "    if (p.bpo == 1) nf_store(p, p.out, o, acc);\n"
         "    else static_cast<nf_acc*>(p.partial)[blockIdx.x] = acc;\n  }\n}\n";
    // Second pass: one block per output over its partial results, in order.
    s << "extern \"C\" __global__ void __launch_bounds__(256) nf_reduce_partials(const nf_rparams p) {\n"
         "  const long long o = blockIdx.x;\n  nf_acc acc = nf_identity(p);\n"
         "  const nf_acc* part = static_cast<const nf_acc*>(p.partial) + o * p.bpo;\n"
         "  for (long long r = threadIdx.x; r < p.bpo; r += blockDim.x) acc = nf_combine(acc, part[r]);\n"
         "  acc = nf_block_reduce(acc);\n  if (threadIdx.x == 0) nf_store(p, p.out, o, acc);\n}\n";
  }

  ReduceKernel k;
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
  if (plan.blocks_per_output > 1) {
    size_t acc_size = arg ? 16 + itemsize(value_dtype) : std::max<size_t>(itemsize(value_dtype), 4);
    if (op == ReduceOp::Var) acc_size *= 3;  // count, mean, m2
    k.partial_bytes = static_cast<size_t>(plan.nout * plan.blocks_per_output) * (acc_size + 16);
  }
  return k;
}

void set_reduce_pointers(ReduceKernel& k, const void* in, void* out, void* partials) {
  std::memcpy(k.params.data() + kInAt, &in, sizeof(in));
  std::memcpy(k.params.data() + kOutAt, &out, sizeof(out));
  std::memcpy(k.params.data() + kPartialAt, &partials, sizeof(partials));
}

}  // namespace nf::cuda
