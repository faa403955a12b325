#include "numfuse/backend/cuda/codegen_elementwise.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "numfuse/backend/cuda/codegen_steps.h"
#include "numfuse/backend/cuda/codegen_user.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"
#include "numfuse/ir/user_elementwise.h"

namespace nf::cuda {

const char* cuda_storage_type(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8_t";
    case DType::UInt8: return "uint8_t";
    case DType::Int16: return "int16_t";
    case DType::UInt16: return "uint16_t";
    case DType::Int32: return "int32_t";
    case DType::UInt32: return "uint32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt64: return "uint64_t";
    case DType::Float16: return "nf::half";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex64: return "nf::complex64";
    case DType::Complex128: return "nf::complex128";
  }
  return "?";
}

const char* cuda_compute_type(DType d) {
  return d == DType::Float16 ? "float" : cuda_storage_type(d);
}

namespace {

// The structural key is raw bytes: every field a small non-negative number.
void put(std::string& key, int64_t v) {
  if (v >= 0 && v < 255) {
    key.push_back(static_cast<char>(v));
    return;
  }
  key.push_back(static_cast<char>(255));
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_structure(std::string& key, const GroupProgram& p) {
  for (const ProgramStep& st : p.steps) {
    put(key, static_cast<int>(st.op.kind));
    put(key, static_cast<int>(st.op.ufunc));
    put(key, static_cast<int>(st.op.gen.kind));
    if (st.op.user) put(key, st.op.user->id);  // a user's operation: its text, by its interned id
    put(key, static_cast<int64_t>(st.op.in.size()));
    for (DType d : st.op.in) put(key, static_cast<int>(d));
    put(key, static_cast<int64_t>(st.op.out.size()));
    for (DType d : st.op.out) put(key, static_cast<int>(d));
    for (const ProgramValue& v : st.args) {
      put(key, v.leaf + 1);
      put(key, v.step + 1);
      put(key, v.output);
    }
  }
  put(key, 254);  // end of steps
  for (const ProgramOutput& o : p.outputs) {
    put(key, o.value.leaf + 1);
    put(key, o.value.step + 1);
    put(key, o.value.output);
  }
}

}  // namespace

// Granlund and Montgomery: with s = ceil(log2(d)) and m = floor(2^W (2^s - d) / d) + 1,
// n / d = (mulhi(n, m) + n) >> s for W-bit n, as long as the sum does not overflow.
FastDivisor fast_divisor(int64_t d, bool idx32) {
  const uint64_t u = static_cast<uint64_t>(std::max<int64_t>(d, 1));
  int shift = 0;
  while ((uint64_t(1) << shift) < u) ++shift;
  FastDivisor f;
  f.shift = static_cast<uint64_t>(shift);
  if (idx32) {
    f.magic = (((uint64_t(1) << shift) - u) << 32) / u + 1;
  } else {
    const unsigned __int128 num = static_cast<unsigned __int128>((uint64_t(1) << shift) - u) << 64;
    f.magic = static_cast<uint64_t>(num / u) + 1;
  }
  return f;
}

std::vector<uint64_t> generator_words(const GroupProgram& p) {
  std::vector<uint64_t> words;
  for (const ProgramStep& st : p.steps) {
    if (st.op.kind == ElementwiseOp::Kind::Generate) words.insert(words.end(), st.op.gen.word, st.op.gen.word + 8);
  }
  return words;
}

bool int32_split_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("NUMFUSE_CUDA_INT32_SPLIT");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

namespace {

// The pieces past the whole space that one kernel covers `sp` with: none when sp fits 32-bit
// indices (the common case, planned without a copy of the space), 32-bit pieces
// (split_for_int32) past it, none again (one 64-bit launch) past kMaxElementwisePieces pieces.
std::vector<IterPiece> launch_pieces(const IterSpace& sp, int64_t max_index, bool* idx32) {
  *idx32 = sp.fits_int32(max_index);
  if (*idx32 || !int32_split_enabled()) return {};  // before issue 11: one launch, 64-bit past it
  std::vector<IterPiece> pieces = split_for_int32(sp, max_index);
  if (pieces.size() > kMaxElementwisePieces) return {};
  *idx32 = true;
  return pieces;
}

// A device address `elements` elements of `size` bytes past `base` (negative for reversed views).
char* advanced(char* base, int64_t elements, size_t size) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(base) +
                                 static_cast<uintptr_t>(elements * static_cast<int64_t>(size)));
}

}  // namespace

ElementwiseKernel plan_elementwise(const GroupProgram& p, int64_t max_index) {
  ElementwiseKernel k;
  const size_t nout = p.outputs.size(), nleaf = p.leaves.size();
  // Operands as the setup pass sees them: outputs first, then array leaves, then the position.
  std::vector<KernelOperand>& ops = k.operands;
  ops.resize(nout + nleaf);
  std::vector<Strides> strides;
  std::vector<char*> ptrs;
  std::vector<size_t> ptr_size;  // the itemsize of each pointer's elements
  std::vector<const Array*> scalars;
  strides.reserve(nout + nleaf + 1);
  ptrs.reserve(nout + nleaf);
  for (size_t j = 0; j < nout; ++j) {
    ops[j].dtype = p.outputs[j].array.dtype;
    ops[j].ptr = static_cast<int>(ptrs.size());
    ptrs.push_back(p.outputs[j].array.data());
    ptr_size.push_back(p.outputs[j].array.itemsize());
    strides.push_back(p.outputs[j].array.strides);
  }
  for (size_t l = 0; l < nleaf; ++l) {
    const Array& a = p.leaves[l];
    KernelOperand& op = ops[nout + l];
    op.dtype = a.dtype;
    if (a.ndim() == 0 && a.device().is_cpu() && !p.device.is_cpu()) {
      op.scalar = true;
      op.value = static_cast<int>(scalars.size());
      scalars.push_back(&a);
      continue;
    }
    op.ptr = static_cast<int>(ptrs.size());
    ptrs.push_back(a.data());
    ptr_size.push_back(a.itemsize());
    strides.push_back(broadcast_strides(a.shape, a.strides, p.shape));
  }
  if (ptrs.size() > size_t(kMaxKernelOperands)) {
    throw NotImplementedError("fused kernel with " + std::to_string(ptrs.size()) + " arrays");
  }
  k.nptr = static_cast<int>(ptrs.size());
  k.nscalar = static_cast<int>(scalars.size());
  std::vector<uint64_t> gen = generator_words(p);
  k.ngen = static_cast<int>(gen.size() / 8);
  k.position = k.ngen > 0 || p.uses_position();
  if (k.position) strides.push_back(contiguous_strides(p.shape));  // stride row nptr, no pointer
  IterSpace sp = make_iter_space(p.shape, strides, 0);
  if (sp.size() == 1) {
    // One element (a 0-d or all-unit-dims space): unit strides, so the contiguous variant applies.
    sp.shape = Shape{1};
    for (Strides& st : sp.strides) st = Strides{1};
  }
  k.rank = sp.ndim();
  if (k.rank > kMaxKernelRank) throw NotImplementedError("fused kernel of rank " + std::to_string(k.rank));
  // Every launch indexes in 32 bits: a space past max_index is cut into pieces, each launched
  // with its operands' pointers (and first position) advanced to its first element.
  const std::vector<IterPiece> split = launch_pieces(sp, max_index, &k.idx32);
  // Each launch: its space and its operands' element offsets (the whole space at 0 when unsplit).
  struct Launch {
    const IterSpace* space;
    const int64_t* offsets;
  };
  static const int64_t kZeros[kMaxKernelOperands + 1] = {};  // every pointer, and the position
  SmallVector<Launch, 1> pieces;
  if (split.empty()) pieces.push_back({&sp, kZeros});
  for (const IterPiece& piece : split) pieces.push_back({&piece.space, piece.offsets.data()});
  // Array leaves whose strides are all zero (a broadcast element) are loaded once per thread.
  for (size_t j = nout; j < ops.size(); ++j) {
    if (ops[j].ptr < 0) continue;
    bool zero = true;
    for (int64_t st : sp.strides[ops[j].ptr]) zero &= st == 0;
    ops[j].broadcast = zero;
  }
  // Operands with equal strides share one offset (an operand's stride row is sp.strides[ptr]).
  for (size_t j = 0; j < ops.size(); ++j) {
    if (ops[j].ptr < 0 || ops[j].broadcast) continue;
    for (size_t e = 0; e < j; ++e) {
      if (ops[e].ptr >= 0 && !ops[e].broadcast && ops[e].same_offset_as < 0 &&
          sp.strides[ops[e].ptr] == sp.strides[ops[j].ptr]) {
        ops[j].same_offset_as = static_cast<int>(e);
        break;
      }
    }
  }
  // The contiguous variant: one dim, every array operand (and the position) at unit stride or
  // broadcast.
  k.contiguous = k.rank == 1;
  for (size_t r = 0; r < strides.size() && k.contiguous; ++r) {
    const bool leaf = r >= nout && r < ptrs.size();
    k.contiguous = sp.strides[r][0] == 1 || (leaf && sp.strides[r][0] == 0);
  }
  // Elements per thread: 16-byte loads of the widest operand, if every pointer of every piece is
  // aligned (split_for_int32 cuts on multiples of 64 elements, so large pieces keep alignment).
  k.vec = 1;
  const bool small = sp.size() <= kScalarLoopElements;
  if (k.contiguous && !small) {
    size_t widest = 1;
    for (const KernelOperand& o : ops) {
      if (!o.scalar && !o.broadcast) widest = std::max(widest, itemsize(o.dtype));
    }
    k.vec = static_cast<int>(std::max<size_t>(1, 16 / widest));
    for (const Launch& piece : pieces) {
      for (const KernelOperand& o : ops) {
        if (o.scalar || o.broadcast) continue;
        uintptr_t addr = reinterpret_cast<uintptr_t>(
            advanced(ptrs[o.ptr], piece.offsets[o.ptr], ptr_size[o.ptr]));
        if (addr % (itemsize(o.dtype) * k.vec) != 0) k.vec = 1;
      }
    }
  }
  // Strided: each thread takes `vec` adjacent elements of the innermost dimension when every
  // array operand (and the position) steps by one element along it and its extent divides evenly.
  if (!k.contiguous && !small) {
    // Two measured best on the H100 for the f64 stencil (20.2 ms against 20.75 for one and four).
    constexpr int run = 2;
    bool unit = true;
    for (const Launch& piece : pieces) unit = unit && piece.space->shape.back() % run == 0;
    for (const KernelOperand& o : ops) {
      if (o.ptr >= 0 && !o.broadcast) unit = unit && sp.strides[o.ptr].back() == 1;
    }
    if (unit) k.vec = run;
  }

  std::string& key = k.key;
  key.reserve(64 + 8 * p.steps.size());
  put(key, k.contiguous);
  put(key, k.idx32);
  put(key, k.vec);
  put(key, k.rank);
  put(key, static_cast<int64_t>(nout));
  put(key, k.nptr);
  put(key, k.nscalar);
  put(key, k.ngen);
  for (const KernelOperand& o : ops) {
    put(key, static_cast<int>(o.dtype) | (o.scalar << 5) | (o.broadcast << 6));
    put(key, o.ptr + 1);
    put(key, o.value + 1);
    put(key, o.same_offset_as + 1);
  }
  put_structure(key, p);
  k.fp = plan_fp_checks({&p});
  if (const std::vector<int>* slots = k.fp.slots_of(0)) {
    put(key, 253);  // the checked steps' slots
    for (int slot : *slots) put(key, slot + 1);
  }

  // The parameter struct of one piece, laid out as the source declares it (natural alignment,
  // 8-byte fields).
  auto params_of = [&](const Launch& piece) {
    const IterSpace& ps = *piece.space;
    std::vector<uint8_t> params;
    params.reserve(8 * (ptrs.size() + 3 + (k.contiguous ? 0 : k.rank * (strides.size() + 3))) +
                   16 * (scalars.size() + 1) + 8 * gen.size());
    for (size_t r = 0; r < ptrs.size(); ++r)
      append_param(params, advanced(ptrs[r], piece.offsets[r], ptr_size[r]));
    if (ptrs.empty()) append_param(params, static_cast<void*>(nullptr));
    append_param(params, static_cast<long long>(ps.size()));
    if (k.position) append_param(params, static_cast<long long>(piece.offsets[k.nptr]));
    if (!k.contiguous) {
      for (int d = 0; d < k.rank; ++d) append_param(params, static_cast<long long>(ps.shape[d]));
      for (size_t r = 0; r < strides.size(); ++r) {
        for (int d = 0; d < k.rank; ++d)
          append_param(params, static_cast<long long>(ps.strides[r][d]));
      }
      if (strides.empty()) {
        for (int d = 0; d < k.rank; ++d) append_param(params, 0LL);
      }
      for (int d = 0; d < k.rank; ++d) {
        const FastDivisor f = fast_divisor(ps.shape[d], k.idx32);
        append_param(params, static_cast<unsigned long long>(f.magic));
        append_param(params, static_cast<unsigned long long>(f.shift));
      }
    }
    for (const Array* a : scalars) {
      unsigned long long v[2] = {0, 0};
      std::memcpy(v, a->data(), a->itemsize());
      append_param(params, v);
    }
    if (scalars.empty()) {
      unsigned long long v[2] = {0, 0};
      append_param(params, v);
    }
    for (uint64_t w : gen) append_param(params, static_cast<unsigned long long>(w));
    if (!k.fp.empty()) {
      k.fp_param_offset = params.size();
      append_param(params, static_cast<unsigned*>(nullptr));
    }
    return params;
  };
  k.n = pieces[0].space->size();
  k.params = params_of(pieces[0]);
  for (size_t i = 1; i < pieces.size(); ++i) k.more.push_back({pieces[i].space->size(), params_of(pieces[i])});
  return k;
}

std::string elementwise_body(const GroupProgram& p, const ElementwiseKernel& k) {
  const size_t nout = p.outputs.size(), nleaf = p.leaves.size();
  const std::vector<KernelOperand>& ops = k.operands;
  const int rank = k.rank, vec = k.vec;
  const bool contiguous = k.contiguous;
  const int stride_rows = k.nptr + (k.position ? 1 : 0);
  auto leaf_name = [&](int leaf) { return "a" + std::to_string(nout + leaf); };
  // Uniform draws of the vector form come two neighbours per Philox block.
  const bool pairs = contiguous && vec > 1 && vec % 2 == 0 && has_uniform_draws(p);
  // Which loops of elementwise.cuh the kernel runs.
  const int loop = vec == 1 ? 0 : contiguous ? 1 : 2;
  SourceText s;
  s.text.reserve(4096);
  s << "\n// ---- fused elementwise kernel\n";
  s << kernel_templates::vector_types;
  s << user_step_definitions(p);
  s << "struct nf_params {\n  void* ptr[" << std::max(1, k.nptr) << "];\n";
  s << "  long long n;\n";
  if (k.position) s << "  long long pos0;  // the launch's first C-order position\n";
  if (!contiguous) {
    s << "  long long shape[" << rank << "];\n  long long stride[" << std::max(1, stride_rows) << "]["
      << rank << "];\n";
    s << "  unsigned long long fdiv[" << rank << "][2];  // each extent's magic number and shift\n";
  }
  s << "  unsigned long long scalar[" << std::max(1, k.nscalar) << "][2];\n";
  if (k.ngen) s << "  unsigned long long gen[" << 8 * k.ngen << "];\n";
  if (!k.fp.empty())
    s << "  unsigned* fpw;  // numpy.errstate flag words, 4 bits per checked step\n";
  s << "};\n";
  s << "typedef " << (k.idx32 ? "int" : "long long") << " nf_idx;\n";
  if (!contiguous) s << kernel_templates::fast_divide;  // nf_fdiv for nf_idx
  s << "#define NF_VEC " << vec << "\n#define NF_LOOP " << loop << "\n";

  // Operands loaded once per thread: host scalars and broadcast arrays.
  SourceText per_thread;
  for (size_t j = nout; j < ops.size(); ++j) {
    const KernelOperand& o = ops[j];
    const char* st = cuda_storage_type(o.dtype);
    const char* ct = cuda_compute_type(o.dtype);
    if (o.scalar) {
      per_thread << "  const " << ct << " a" << j << " = nf::convert<" << ct
                 << ">(*reinterpret_cast<const " << st << "*>(p.scalar[" << o.value << "]));\n";
    } else if (o.broadcast) {
      per_thread << "  const " << ct << " a" << j << " = nf::convert<" << ct
                 << ">(*static_cast<const " << st << "*>(p.ptr[" << o.ptr << "]));\n";
    }
  }
  // The offset variable an operand reads: its own, or that of an earlier operand with the same
  // strides (the views of one array in a stencil share one index computation).
  auto offset_name = [&](size_t j) {
    return "o" + std::to_string(ops[j].same_offset_as >= 0 ? ops[j].same_offset_as : static_cast<int>(j));
  };
  // Every step for element `i` (scalar form) or lane `k` (vector form).
  auto body = [&](const std::string& ind, bool vector_form,
                  const std::string& vector_position = "") {
    SourceText b;
    for (size_t l = 0; l < nleaf; ++l) {
      const KernelOperand& o = ops[nout + l];
      if (o.scalar || o.broadcast) continue;
      const char* ct = cuda_compute_type(o.dtype);
      b << ind << "const " << ct << " a" << nout + l << " = nf::convert<" << ct << ">(";
      if (vector_form) {
        b << "in" << nout + l << ".v[k]);\n";
      } else {
        b << "static_cast<const " << cuda_storage_type(o.dtype) << "*>(p.ptr[" << o.ptr << "])["
          << offset_name(nout + l) << "]);\n";
      }
    }
    StepNames names{leaf_name, "p.pos0 + " + (vector_form ? vector_position : std::string("opos"))};
    if (vector_form && pairs) names.uniform_index = "[k]";
    names.fp_slots = k.fp.slots_of(0);
    emit_steps(b, p, names, ind);
    for (size_t j = 0; j < nout; ++j) {
      const char* st = cuda_storage_type(ops[j].dtype);
      std::string val = "nf::convert<" + std::string(st) + ">(" + value_expr(p.outputs[j].value, leaf_name) + ")";
      if (vector_form) {
        b << ind << "out" << j << ".v[k] = " << val << ";\n";
      } else {
        b << ind << "static_cast<" << st << "*>(p.ptr[" << ops[j].ptr << "])[" << offset_name(j)
          << "] = " << val << ";\n";
      }
    }
    return b.str();
  };
  // Element offsets of each array operand (and the position) for element `at`.
  auto offsets = [&](const std::string& at) {
    SourceText o;
    auto computed = [&](size_t j) { return !ops[j].scalar && !ops[j].broadcast && ops[j].same_offset_as < 0; };
    if (contiguous) {
      for (size_t j = 0; j < ops.size(); ++j) {
        if (computed(j)) o << "    const nf_idx o" << j << " = " << at << ";\n";
      }
      if (k.position) o << "    const nf_idx opos = " << at << ";\n";
      return o.str();
    }
    for (size_t j = 0; j < ops.size(); ++j) {
      if (computed(j)) o << "    nf_idx o" << j << " = 0;\n";
    }
    if (k.position) o << "    nf_idx opos = 0;\n";
    o << "    nf_idx rem = " << at << ";\n";
    for (int d = rank - 1; d >= 0; --d) {
      if (d > 0) {
        o << "    { const nf_idx q = nf_fdiv(rem, p.fdiv[" << d << "][0], p.fdiv[" << d
          << "][1]);\n"
          << "      const nf_idx c = rem - q * nf_idx(p.shape[" << d << "]); rem = q;\n";
      } else {
        o << "    { const nf_idx c = rem;  // i < n: the outermost coordinate needs no division\n";
      }
      for (size_t j = 0; j < ops.size(); ++j) {
        // Stride rows follow the pointers: outputs, then array leaves, then the position.
        if (computed(j))
          o << "      o" << j << " += c * nf_idx(p.stride[" << ops[j].ptr << "][" << d << "]);\n";
      }
      if (k.position) o << "      opos += c * nf_idx(p.stride[" << k.nptr << "][" << d << "]);\n";
      o << "    }\n";
    }
    return o.str();
  };
  // The vector forms: whole vectors at index b (contiguous), or runs of `vec` neighbours from
  // each operand's offset, loaded before any is computed or stored.
  SourceText vec_loads, vec_stores, uniform_pairs;
  std::string vec_body;
  if (loop != 0) {
    for (size_t j = 0; j < ops.size(); ++j) {
      const KernelOperand& o = ops[j];
      if (o.scalar || o.broadcast) continue;
      const char* st = cuda_storage_type(o.dtype);
      if (loop == 1) {
        if (j < nout) {
          vec_loads << "    nf_vec<" << st << ", " << vec << "> out" << j << ";\n";
        } else {
          vec_loads << "    const nf_vec<" << st << ", " << vec << "> in" << j
                    << " = static_cast<const nf_vec<" << st << ", " << vec << ">*>(p.ptr[" << o.ptr
                    << "])[b];\n";
        }
        continue;
      }
      vec_loads << "    nf_vec<" << st << ", " << vec << "> " << (j < nout ? "out" : "in") << j
                << ";\n";
      if (j >= nout) {
        vec_loads << "#pragma unroll\n    for (int k = 0; k < " << vec << "; ++k) in" << j
                  << ".v[k] = static_cast<const " << st << "*>(p.ptr[" << o.ptr << "])["
                  << offset_name(j) << " + k];\n";
      }
    }
    for (size_t j = 0; j < nout; ++j) {
      const char* st = cuda_storage_type(ops[j].dtype);
      if (loop == 1) {
        vec_stores << "    static_cast<nf_vec<" << st << ", " << vec << ">*>(p.ptr[" << ops[j].ptr
                   << "])[b] = out" << j << ";\n";
      } else {
        vec_stores << "#pragma unroll\n    for (int k = 0; k < " << vec << "; ++k) static_cast<"
                   << st << "*>(p.ptr[" << ops[j].ptr << "])[" << offset_name(j) << " + k] = out"
                   << j << ".v[k];\n";
      }
    }
    if (pairs)
      emit_uniform_pairs(uniform_pairs, p, "p.pos0 + b * " + std::to_string(vec), vec, "    ");
    vec_body = body("      ", true, loop == 1 ? "b * " + std::to_string(vec) + " + k" : "opos + k");
  }
  // The one-element loop runs alone (loop 0) or after the vectors as the tail (loop 1).
  const bool tail = loop != 2;
  s << fill_template(kernel_templates::elementwise,
                     {{"per_thread", per_thread.str()},
                      {"offsets", tail ? offsets("i") : ""},
                      {"body", tail ? body("    ", false) : ""},
                      {"run_offsets", loop == 2 ? offsets("i * " + std::to_string(vec)) : ""},
                      {"vec_loads", vec_loads.str()},
                      {"uniform_pairs", uniform_pairs.str()},
                      {"vec_body", vec_body},
                      {"vec_stores", vec_stores.str()}});
  return s.str();
}

ElementwiseKernel generate_elementwise(const GroupProgram& p, int64_t max_index) {
  ElementwiseKernel k = plan_elementwise(p, max_index);
  k.body = elementwise_body(p, k);
  return k;
}

}  // namespace nf::cuda
