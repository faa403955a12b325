// generate_reduce_fused: a reduction whose input is computed in-kernel by a fused program.
#include <algorithm>
#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/backend/cuda/codegen_steps.h"
#include "numfuse/backend/cuda/codegen_user.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cuda {

// In codegen_reduce.cpp.
void emit_reduce_accumulator(SourceText& s, const ReduceSpec& spec, DType in_dtype, int acc_slot);
int accumulation_slot(FpCheckPlan& plan, const ReduceSpec& spec, DType value_dtype,
                      std::initializer_list<const GroupProgram*> programs, FpState state);

namespace {

struct Leaf {
  int program_leaf;  // -1: the C-order position that generator steps read (no memory behind it)
  bool scalar;
  int index;         // into ptr[] or scalar[]
  Strides strides;   // over the reduced input's shape
};

}  // namespace

namespace {

// How the epilogue reaches each of its leaves: the reduction's result (from p.out, as just
// stored), a host scalar (escalar[]) or a device array read at the output's index (eptr[]).
struct EpilogueLayout {
  std::vector<int> leaf_kind;  // 0 result, 1 scalar, 2 array
  std::vector<int> leaf_index;
  int nptr = 0, nscalar = 0;
};

EpilogueLayout epilogue_layout(const GroupProgram& e, const Storage* result) {
  EpilogueLayout L;
  L.nptr = static_cast<int>(e.outputs.size());  // outputs come first in eptr[]
  for (const Array& a : e.leaves) {
    if (a.storage.get() == result) {
      L.leaf_kind.push_back(0);
      L.leaf_index.push_back(0);
    } else if (a.ndim() == 0 && a.device().is_cpu()) {
      L.leaf_kind.push_back(1);
      L.leaf_index.push_back(L.nscalar++);
    } else {
      L.leaf_kind.push_back(2);
      L.leaf_index.push_back(L.nptr++);
    }
  }
  return L;
}

// nf_finish(p, o, acc): stores the result of output o, then computes the epilogue from it.
void emit_finish(SourceText& s, const ReduceSpec& spec, const GroupProgram* e,
                 const Storage* result, const EpilogueLayout& L, const std::vector<int>* fp_slots) {
  s << "__device__ __forceinline__ void nf_finish(const nf_rparams& p, long long o, nf_acc acc) {\n"
       "  nf_store(p, p.out, o, acc);\n";
  if (e) {
    s << "  const auto result = nf_result(p, acc);\n";
    for (size_t l = 0; l < e->leaves.size(); ++l) {
      const Array& a = e->leaves[l];
      const char* st = cuda_storage_type(a.dtype);
      const char* ct = cuda_compute_type(a.dtype);
      s << "  const " << ct << " e" << l << " = nf::convert<" << ct << ">(";
      switch (L.leaf_kind[l]) {
        case 0: s << "result);\n"; break;
        case 1: s << "*reinterpret_cast<const " << st << "*>(p.escalar[" << L.leaf_index[l] << "]));\n"; break;
        default:
          s << "static_cast<const " << st << "*>(p.eptr[" << L.leaf_index[l] << "])["
            << (a.ndim() == 0 ? "0" : "o") << "]);\n";
      }
    }
    auto leaf_name = [](int leaf) { return "e" + std::to_string(leaf); };
    StepNames names{leaf_name, "o"};
    names.fp_slots = fp_slots;
    emit_steps(s, *e, names, "  ");
    for (size_t j = 0; j < e->outputs.size(); ++j) {
      const char* st = cuda_storage_type(e->outputs[j].array.dtype);
      s << "  static_cast<" << st << "*>(p.eptr[" << j << "])[o] = nf::convert<" << st << ">("
        << value_expr(e->outputs[j].value, leaf_name) << ");\n";
    }
  }
  s << "}\n";
}

}  // namespace

bool can_fuse_epilogue(const GroupProgram& e) {
  if (e.uses_position() || e.outputs.empty()) return false;
  for (const ProgramOutput& o : e.outputs) {
    if (!o.array.c_contiguous() || o.array.shape != e.shape) return false;
  }
  for (const Array& a : e.leaves) {
    if (a.ndim() == 0) continue;
    if (a.shape != e.shape || !a.c_contiguous()) return false;
  }
  return true;
}

FusedReduceKernel generate_reduce_fused(const ReduceSpec& spec, const GroupProgram& p, int sm_count,
                                        const GroupProgram* epilogue, const Storage* result,
                                        FpState state, int64_t max_index) {
  const Shape& shape = p.shape;
  std::vector<Leaf> leaves;
  int nptr = 0, nscalar = 0;
  for (size_t l = 0; l < p.leaves.size(); ++l) {
    const Array& a = p.leaves[l];
    Leaf leaf{static_cast<int>(l), a.ndim() == 0 && a.device().is_cpu(), 0, {}};
    leaf.index = leaf.scalar ? nscalar++ : nptr++;
    if (!leaf.scalar) leaf.strides = broadcast_strides(a.shape, a.strides, shape);
    leaves.push_back(std::move(leaf));
  }
  const std::vector<uint64_t> gen = generator_words(p);
  const int ngen = static_cast<int>(gen.size() / 8);
  if (ngen || p.uses_position()) leaves.push_back(Leaf{-1, false, nptr++, contiguous_strides(shape)});
  FusedReduceKernel k;
  ReducePlan& plan = k.plan;
  // Scalar leaves have no memory: zero strides, which never stop a merge.
  std::vector<Strides> leaf_strides;
  for (const Leaf& leaf : leaves) leaf_strides.push_back(leaf.scalar ? Strides(shape.size(), 0) : leaf.strides);
  ReduceSpaces spaces = split_reduction(shape, leaf_strides, spec.axes);
  plan.kept_shape = spaces.kept.shape;
  plan.red_shape = spaces.red.shape;
  const std::vector<Strides>& kstr = spaces.kept.strides;
  const std::vector<Strides>& rstr = spaces.red.strides;
  const int kr = int(plan.kept_shape.size()), rr = int(plan.red_shape.size());
  if (kr > kMaxReduceRank || rr > kMaxReduceRank) throw NotImplementedError("fused reduction rank");
  plan.nout = numel(plan.kept_shape);
  plan.nred = numel(plan.red_shape);
  // 32-bit indices where they save a division per element: several reduced dims, whose
  // coordinates the element computes. With one reduced dim the element's offsets are a multiply
  // and add, and 32 bits measured slower on the H100 (sum(a*a) of 2^28 float32: 0.483 ms against
  // 0.364 in 64 bits).
  const bool divides = rr > 1;
  plan.idx32 = divides && reduce_fits_int32(shape, leaf_strides, max_index);
  if (divides && !plan.idx32 && int32_split_enabled() && !epilogue && !ngen && !p.uses_position()) {
    // Past 32 bits: rows of the outermost kept dim in pieces that fit for every leaf (without an
    // epilogue or a position, whose bases a piece would also have to carry).
    ReducePlan one = plan;  // the element count's limit alone (zero strides), then each leaf's
    one.kept_stride.assign(plan.kept_shape.size(), 0);
    one.red_stride.assign(plan.red_shape.size(), 0);
    int64_t rows = reduce_rows_per_piece(one, max_index);
    for (size_t l = 0; l < leaves.size() && rows > 0; ++l) {
      one.kept_stride = spaces.kept.strides[l];
      one.red_stride = spaces.red.strides[l];
      rows = std::min(rows, reduce_rows_per_piece(one, max_index));
    }
    plan.rows_per_piece = rows;
    plan.idx32 = rows > 0;
  }
  bool adjacent = false;
  for (size_t l = 0; l < leaves.size(); ++l) {
    const bool memory = !leaves[l].scalar && leaves[l].program_leaf >= 0;
    if (memory && kstr[l].back() == 1 && plan.kept_shape.back() > 1) adjacent = true;
  }
  plan.thread_per_output = adjacent && plan.nout >= 1024;
  plan.warp_per_output = !plan.thread_per_output && plan.nred <= 4096 && plan.nout >= int64_t(sm_count) * 4;
  if (!plan.thread_per_output && !plan.warp_per_output) {
    int64_t want = std::max<int64_t>(1, (int64_t(sm_count) * 8) / std::max<int64_t>(plan.nout, 1));
    int64_t by_work = std::max<int64_t>(1, plan.nred / (256 * 16));
    plan.blocks_per_output = static_cast<int>(std::min<int64_t>({want, by_work, 1024}));
  }

  const DType value_dtype = p.dtype_of(p.reduced);
  k.fp = plan_fp_checks({&p, epilogue});
  const int acc_slot = accumulation_slot(k.fp, spec, value_dtype, {&p, epilogue}, state);
  SourceText s;
  s << "\n// ---- fused reduction kernel\n";
  s << user_step_definitions(p);
  s << "struct nf_rparams {\n  void* out;\n  void* partial;\n  long long nout;\n  long long nred;\n"
       "  long long bpo;\n  const void* ptr[" << std::max(1, nptr) << "];\n  long long kshape[" << kr
    << "];\n  long long kstride[" << std::max(1, nptr) << "][" << kr << "];\n  long long rshape[" << rr
    << "];\n  long long rstride[" << std::max(1, nptr) << "][" << rr << "];\n  unsigned long long scalar["
    << std::max(1, nscalar) << "][2];\n  unsigned long long init[2];\n";
  if (ngen) s << "  unsigned long long gen[" << 8 * ngen << "];\n";
  const EpilogueLayout elay = epilogue ? epilogue_layout(*epilogue, result) : EpilogueLayout{};
  if (epilogue) {
    s << "  void* eptr[" << std::max(1, elay.nptr) << "];\n  unsigned long long escalar["
      << std::max(1, elay.nscalar) << "][2];\n";
  }
  if (!k.fp.empty())
    s << "  unsigned* fpw;  // numpy.errstate flag words, 4 bits per checked step\n";
  s << "};\n";
  emit_reduce_accumulator(s, spec, value_dtype, acc_slot);
  emit_finish(s, spec, epilogue, result, elay, k.fp.slots_of(1));
  s << "typedef " << (plan.idx32 ? "int" : "long long") << " nf_ri;\n";
  // Per-leaf offsets of an output (kept dims) and of a reduced element.
  s << "__device__ __forceinline__ void nf_kept(const nf_rparams& p, nf_ri o, nf_ri* kb) {\n";
  s << "  for (int l = 0; l < " << std::max(1, nptr) << "; ++l) kb[l] = 0;\n";
  for (int d = kr - 1; d >= 0; --d) {
    s << "  { const nf_ri c = o % nf_ri(p.kshape[" << d << "]); o /= nf_ri(p.kshape[" << d
      << "]);\n";
    s << "    for (int l = 0; l < " << nptr << "; ++l) kb[l] += c * nf_ri(p.kstride[l][" << d
      << "]); }\n";
  }
  s << "}\n";
  // The value of reduced element r: its coordinates, leaves, steps (`uniforms`: read pre-drawn
  // pairs at [k] instead of drawing).
  auto emit_element = [&](const std::string& ind, bool uniforms, const std::string& gen_words) {
    if (rr == 1) {
      s << ind << "const nf_ri c0 = r;\n";
    } else {
      s << ind << "nf_ri rem = r;\n";
      for (int d = rr - 1; d >= 0; --d) {
        s << ind << "const nf_ri c" << d << " = rem % nf_ri(p.rshape[" << d
          << "]); rem /= nf_ri(p.rshape[" << d << "]);\n";
      }
    }
    for (const Leaf& l : leaves) {
      if (l.program_leaf < 0) {
        s << ind << "const long long opos = kb[" << l.index << "]";
        for (int d = 0; d < rr; ++d)
          s << " + c" << d << " * nf_ri(p.rstride[" << l.index << "][" << d << "])";
        s << ";\n";
        continue;
      }
      const Array& a = p.leaves[l.program_leaf];
      const char* st = cuda_storage_type(a.dtype);
      const char* ct = cuda_compute_type(a.dtype);
      s << ind << "const " << ct << " a" << l.program_leaf << " = nf::convert<" << ct << ">(";
      if (l.scalar) {
        s << "*reinterpret_cast<const " << st << "*>(p.scalar[" << l.index << "]));\n";
      } else {
        s << "static_cast<const " << st << "*>(p.ptr[" << l.index << "])[kb[" << l.index << "]";
        for (int d = 0; d < rr; ++d)
          s << " + c" << d << " * nf_ri(p.rstride[" << l.index << "][" << d << "])";
        s << "]);\n";
      }
    }
    StepNames names{[](int leaf) { return "a" + std::to_string(leaf); }, "opos", gen_words};
    if (uniforms) names.uniform_index = "[k]";
    names.fp_slots = k.fp.slots_of(0);
    emit_steps(s, p, names, ind);
  };
  const std::string value = value_expr(p.reduced, [](int leaf) { return "a" + std::to_string(leaf); });
  s << "__device__ __forceinline__ nf_acc nf_elem(const nf_rparams& p, const nf_ri* kb,"
       " nf_ri r) {\n";
  emit_element("  ", false, "p.gen");
  s << "  return nf_load(" << value << ", r);\n}\n";
  // Uniform draws two neighbours at a time (one Philox block each pair) where the reduced
  // elements are consecutive positions: one reduced dim, position stride 1.
  const Leaf* position = nullptr;
  for (const Leaf& l : leaves) {
    if (l.program_leaf < 0) position = &l;
  }
  const bool pairs = position && has_uniform_draws(p) && rr == 1 && rstr[position - leaves.data()][0] == 1 &&
                     !plan.warp_per_output && !plan.thread_per_output;
  if (pairs) {
    // The generator words come in a local copy made once per thread (`gw`): read from the
    // parameter space inside the loop they were reloaded for every pair.
    s << "__device__ __forceinline__ nf_acc nf_elem2(const nf_rparams& p, const nf_ri* kb,"
         " nf_ri r0, nf_acc acc, const unsigned long long* gw) {\n";
    emit_uniform_pairs(s, p, "kb[" + std::to_string(position->index) + "] + r0", 2, "  ", "gw");
    s << "#pragma unroll\n  for (int k = 0; k < 2; ++k) {\n    const nf_ri r = r0 + k;\n"
         "    if (r >= p.nred) break;\n";
    emit_element("    ", true, "gw");
    s << "    acc = nf_combine(acc, nf_load(" << value << ", r));\n  }\n  return acc;\n}\n";
  }
  // Output o's per-leaf offsets (kb); element r computed by nf_elem (or two at a time, nf_elem2).
  const std::string setup =
      "  nf_ri kb[" + std::to_string(std::max(1, nptr)) + "]; nf_kept(p, o, kb);\n";
  std::string block_loop;
  if (pairs) {
    const std::string words = std::to_string(8 * ngen);
    block_loop =
        "  unsigned long long gw[" + words + "];\n#pragma unroll\n  for (int i = 0; i < " + words +
        "; ++i) gw[i] = p.gen[i];\n"
        "  for (nf_ri r = 2 * (part * blockDim.x + threadIdx.x); r < nf_ri(p.nred); r += 2 * "
        "nf_ri(p.bpo) * blockDim.x)\n"
        "    acc = nf_elem2(p, kb, r, acc, gw);\n";
  } else {
    block_loop =
        "  for (nf_ri r = part * blockDim.x + threadIdx.x; r < nf_ri(p.nred); r += nf_ri(p.bpo) * "
        "blockDim.x)\n"
        "    acc = nf_combine(acc, nf_elem(p, kb, r));\n";
  }
  s << reduce_kernels(plan, setup, "nf_elem(p, kb, r)", block_loop);
  k.body = s.str();
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<long long>(plan.nout));
  append_param(k.params, static_cast<long long>(plan.nred));
  append_param(k.params, static_cast<long long>(plan.blocks_per_output));
  for (const Leaf& l : leaves) {
    if (l.scalar) continue;
    const void* ptr = l.program_leaf < 0 ? nullptr : p.leaves[l.program_leaf].data();
    append_param(k.params, ptr);
  }
  if (nptr == 0) append_param(k.params, static_cast<const void*>(nullptr));
  if (plan.rows_per_piece > 0) {
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (leaves[l].scalar) continue;
      const Array& a = p.leaves[leaves[l].program_leaf];
      k.leaf_base.push_back(a.data());
      k.leaf_row_bytes.push_back(kstr[l][0] * static_cast<int64_t>(a.itemsize()));
    }
    k.kept_shape_at = k.params.size();
  }
  for (int64_t v : plan.kept_shape) append_param(k.params, static_cast<long long>(v));
  for (size_t l = 0; l < leaves.size(); ++l) {
    if (leaves[l].scalar) continue;
    for (int64_t v : kstr[l]) append_param(k.params, static_cast<long long>(v));
  }
  if (nptr == 0) for (int d = 0; d < kr; ++d) append_param(k.params, 0LL);
  for (int64_t v : plan.red_shape) append_param(k.params, static_cast<long long>(v));
  for (size_t l = 0; l < leaves.size(); ++l) {
    if (leaves[l].scalar) continue;
    for (int64_t v : rstr[l]) append_param(k.params, static_cast<long long>(v));
  }
  if (nptr == 0) for (int d = 0; d < rr; ++d) append_param(k.params, 0LL);
  for (const Leaf& l : leaves) {
    if (!l.scalar) continue;
    unsigned long long v[2] = {0, 0};
    std::memcpy(v, p.leaves[l.program_leaf].data(), p.leaves[l.program_leaf].itemsize());  // scalars are program leaves
    append_param(k.params, v);
  }
  if (nscalar == 0) {
    unsigned long long v[2] = {0, 0};
    append_param(k.params, v);
  }
  unsigned long long init[2] = {0, 0};
  if (spec.op <= ReduceOp::Fmin || spec.op == ReduceOp::Var) {
    if (spec.has_initial) {
      std::memcpy(init, spec.initial, itemsize(spec.loop));
    } else {
      reduce_identity(spec.op, spec.loop, init);
    }
  }
  append_param(k.params, init);
  for (uint64_t w : gen) append_param(k.params, static_cast<unsigned long long>(w));
  if (epilogue) {
    for (const ProgramOutput& o : epilogue->outputs) append_param(k.params, static_cast<void*>(o.array.data()));
    for (size_t l = 0; l < epilogue->leaves.size(); ++l) {
      if (elay.leaf_kind[l] == 2) append_param(k.params, static_cast<void*>(epilogue->leaves[l].data()));
    }
    if (elay.nptr == 0) append_param(k.params, static_cast<void*>(nullptr));
    for (size_t l = 0; l < epilogue->leaves.size(); ++l) {
      if (elay.leaf_kind[l] != 1) continue;
      unsigned long long v[2] = {0, 0};
      std::memcpy(v, epilogue->leaves[l].data(), epilogue->leaves[l].itemsize());
      append_param(k.params, v);
    }
    if (elay.nscalar == 0) {
      unsigned long long v[2] = {0, 0};
      append_param(k.params, v);
    }
  }
  if (!k.fp.empty()) {
    k.fp_param_offset = k.params.size();
    append_param(k.params, static_cast<unsigned*>(nullptr));
  }
  if (plan.blocks_per_output > 1) {
    k.partial_bytes = static_cast<size_t>(plan.nout * plan.blocks_per_output) * (32 + itemsize(value_dtype));
  }
  return k;
}

int64_t set_fused_reduce_piece(FusedReduceKernel& k, const Array& out, int64_t row0, int64_t rows) {
  const int64_t inner_out = k.plan.nout / k.plan.kept_shape[0];
  void* out_at = out.data() + row0 * inner_out * static_cast<int64_t>(out.itemsize());
  std::memcpy(k.params.data(), &out_at, sizeof out_at);
  const long long nout = rows * inner_out, kshape0 = rows;
  std::memcpy(k.params.data() + 16, &nout, sizeof nout);  // after out and partial
  for (size_t j = 0; j < k.leaf_base.size(); ++j) {
    const void* at = k.leaf_base[j] + row0 * k.leaf_row_bytes[j];
    std::memcpy(k.params.data() + 40 + 8 * j, &at, sizeof at);  // ptr[] after nout, nred, bpo
  }
  std::memcpy(k.params.data() + k.kept_shape_at, &kshape0, sizeof kshape0);
  return nout;
}

void set_fused_reduce_pointers(FusedReduceKernel& k, void* out, void* partials) {
  std::memcpy(k.params.data(), &out, sizeof(out));
  std::memcpy(k.params.data() + 8, &partials, sizeof(partials));
}

}  // namespace nf::cuda
