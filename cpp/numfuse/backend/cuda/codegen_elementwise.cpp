#include "numfuse/backend/cuda/codegen_elementwise.h"

#include "numfuse/backend/cuda/codegen_steps.h"
#include "numfuse/backend/cuda/source_text.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

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


// How the kernel reaches one operand.
struct OperandPlan {
  DType dtype;
  bool scalar = false;  // a 0-d host array: its value is a kernel parameter
  int ptr = -1;         // index into Params::ptr
  int value = -1;       // index into Params::scalar
  bool broadcast = false;  // stride 0 everywhere: loaded once
};


}  // namespace

ElementwiseKernel generate_elementwise(const GroupProgram& p) {
  const size_t nout = p.outputs.size(), nleaf = p.leaves.size();
  // Operands as the setup pass sees them: outputs first, then array leaves.
  std::vector<OperandPlan> ops(nout + nleaf);
  std::vector<Strides> strides;
  std::vector<char*> ptrs;
  std::vector<const Array*> scalars;
  for (size_t j = 0; j < nout; ++j) {
    ops[j].dtype = p.outputs[j].array.dtype;
    ops[j].ptr = static_cast<int>(ptrs.size());
    ptrs.push_back(p.outputs[j].array.data());
    strides.push_back(p.outputs[j].array.strides);
  }
  for (size_t l = 0; l < nleaf; ++l) {
    const Array& a = p.leaves[l];
    OperandPlan& op = ops[nout + l];
    op.dtype = a.dtype;
    if (a.ndim() == 0 && a.device().is_cpu() && !p.device.is_cpu()) {
      op.scalar = true;
      op.value = static_cast<int>(scalars.size());
      scalars.push_back(&a);
      continue;
    }
    op.ptr = static_cast<int>(ptrs.size());
    ptrs.push_back(a.data());
    strides.push_back(broadcast_strides(a.shape, a.strides, p.shape));
  }
  if (ptrs.size() > size_t(kMaxKernelOperands)) {
    throw NotImplementedError("fused kernel with " + std::to_string(ptrs.size()) + " arrays");
  }
  IterSpace sp = make_iter_space(p.shape, strides, 0);
  if (sp.size() == 1) {
    // One element (a 0-d or all-unit-dims space): unit strides, so the contiguous variant applies.
    sp.shape = Shape{1};
    for (Strides& st : sp.strides) st = Strides{1};
  }
  const int rank = sp.ndim();
  if (rank > kMaxKernelRank) throw NotImplementedError("fused kernel of rank " + std::to_string(rank));
  // Array leaves whose strides are all zero (a broadcast element) are loaded once per thread.
  for (size_t k = nout; k < ops.size(); ++k) {
    if (ops[k].ptr < 0) continue;
    bool zero = true;
    for (int64_t st : sp.strides[ops[k].ptr]) zero &= st == 0;
    ops[k].broadcast = zero;
  }
  // The contiguous variant: one dim, every array operand at unit stride or broadcast.
  bool contiguous = rank == 1;
  for (size_t k = 0; k < strides.size() && contiguous; ++k) {
    contiguous = sp.strides[k][0] == 1 || (k >= nout && sp.strides[k][0] == 0);
  }
  // 32-bit indices leave headroom for the grid-stride step past the end (i + gridDim*blockDim
  // must not overflow): the grid is capped far below 2^24 threads.
  const bool idx32 = sp.fits_int32() && sp.size() < (int64_t(1) << 31) - (int64_t(1) << 24);
  // Elements per thread: 16-byte loads of the widest operand, if every pointer is aligned.
  int vec = 1;
  if (contiguous) {
    size_t widest = 1;
    for (const OperandPlan& o : ops) {
      if (!o.scalar && !o.broadcast) widest = std::max(widest, itemsize(o.dtype));
    }
    vec = static_cast<int>(std::max<size_t>(1, 16 / widest));
    for (size_t k = 0; k < ops.size(); ++k) {
      const OperandPlan& o = ops[k];
      if (o.scalar || o.broadcast) continue;
      uintptr_t addr = reinterpret_cast<uintptr_t>(ptrs[o.ptr]);
      if (addr % (itemsize(o.dtype) * vec) != 0) vec = 1;
    }
  }

  SourceText s;
  s.text.reserve(4096);
  s << "\n// ---- fused elementwise kernel\n";
  s << "template <class T, int N> struct alignas(sizeof(T) * N) nf_vec { T v[N]; };\n";
  s << "struct nf_params {\n  void* ptr[" << std::max<size_t>(1, ptrs.size()) << "];\n";
  s << "  long long n;\n";
  if (!contiguous) {
    s << "  long long shape[" << rank << "];\n  long long stride[" << std::max<size_t>(1, strides.size())
      << "][" << rank << "];\n";
  }
  s << "  unsigned long long scalar[" << std::max<size_t>(1, scalars.size()) << "][2];\n};\n";
  s << "typedef " << (idx32 ? "int" : "long long") << " nf_idx;\n";
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_fused(const nf_params p) {\n";
  // Operands loaded once per thread: host scalars and broadcast arrays.
  for (size_t k = 0; k < ops.size(); ++k) {
    const OperandPlan& o = ops[k];
    if (k < nout) continue;
    const char* st = cuda_storage_type(o.dtype);
    const char* ct = cuda_compute_type(o.dtype);
    if (o.scalar) {
      s << "  const " << ct << " a" << k << " = nf::convert<" << ct << ">(*reinterpret_cast<const " << st
        << "*>(p.scalar[" << o.value << "]));\n";
    } else if (o.broadcast) {
      s << "  const " << ct << " a" << k << " = nf::convert<" << ct << ">(*static_cast<const " << st
        << "*>(p.ptr[" << o.ptr << "]));\n";
    }
  }
  // The body computes every step for element `i` (scalar form) or lane `k` (vector form).
  auto body = [&](const std::string& ind, bool vector_form) {
    auto value_name = [&](const ProgramValue& v) {
      return value_expr(v, [&](int leaf) { return "a" + std::to_string(nout + leaf); });
    };
    for (size_t l = 0; l < nleaf; ++l) {
      const OperandPlan& o = ops[nout + l];
      if (o.scalar || o.broadcast) continue;
      const char* ct = cuda_compute_type(o.dtype);
      s << ind << "const " << ct << " a" << nout + l << " = nf::convert<" << ct << ">(";
      if (vector_form) {
        s << "in" << nout + l << ".v[k]);\n";
      } else {
        s << "static_cast<const " << cuda_storage_type(o.dtype) << "*>(p.ptr[" << o.ptr << "])[o"
          << nout + l << "]);\n";
      }
    }
    emit_steps(s, p, [&](int leaf) { return "a" + std::to_string(nout + leaf); }, ind);
    for (size_t j = 0; j < nout; ++j) {
      const char* st = cuda_storage_type(ops[j].dtype);
      std::string val = "nf::convert<" + std::string(st) + ">(" + value_name(p.outputs[j].value) + ")";
      if (vector_form) {
        s << ind << "out" << j << ".v[k] = " << val << ";\n";
      } else {
        s << ind << "static_cast<" << st << "*>(p.ptr[" << ops[j].ptr << "])[o" << j << "] = " << val << ";\n";
      }
    }
  };
  s << "  const nf_idx stride = nf_idx(gridDim.x) * blockDim.x;\n";
  s << "  nf_idx i = nf_idx(blockIdx.x) * blockDim.x + threadIdx.x;\n";
  if (contiguous && vec > 1) {
    s << "  const nf_idx nvec = nf_idx(p.n / " << vec << ");\n";
    s << "  for (nf_idx b = i; b < nvec; b += stride) {\n";
    for (size_t k = 0; k < ops.size(); ++k) {
      const OperandPlan& o = ops[k];
      if (o.scalar || o.broadcast) continue;
      const char* st = cuda_storage_type(o.dtype);
      if (k < nout) {
        s << "    nf_vec<" << st << ", " << vec << "> out" << k << ";\n";
      } else {
        s << "    const nf_vec<" << st << ", " << vec << "> in" << k << " = static_cast<const nf_vec<"
          << st << ", " << vec << ">*>(p.ptr[" << o.ptr << "])[b];\n";
      }
    }
    s << "#pragma unroll\n    for (int k = 0; k < " << vec << "; ++k) {\n";
    body("      ", true);
    s << "    }\n";
    for (size_t j = 0; j < nout; ++j) {
      s << "    static_cast<nf_vec<" << cuda_storage_type(ops[j].dtype) << ", " << vec << ">*>(p.ptr["
        << ops[j].ptr << "])[b] = out" << j << ";\n";
    }
    s << "  }\n";
    s << "  for (i += nvec * " << vec << "; i < p.n; i += stride) {\n";
  } else {
    s << "  for (; i < p.n; i += stride) {\n";
  }
  // Element offsets of each array operand.
  for (size_t k = 0; k < ops.size(); ++k) {
    const OperandPlan& o = ops[k];
    if (o.scalar || o.broadcast) continue;
    if (contiguous) {
      s << "    const nf_idx o" << k << " = i;\n";
    }
  }
  if (!contiguous) {
    for (size_t k = 0; k < ops.size(); ++k) {
      if (!ops[k].scalar && !ops[k].broadcast) s << "    nf_idx o" << k << " = 0;\n";
    }
    s << "    nf_idx rem = i;\n";
    for (int d = rank - 1; d >= 0; --d) {
      s << "    { const nf_idx c = rem % nf_idx(p.shape[" << d << "]); rem /= nf_idx(p.shape[" << d << "]);\n";
      for (size_t k = 0; k < ops.size(); ++k) {
        const OperandPlan& o = ops[k];
        if (o.scalar || o.broadcast) continue;
        // Stride rows follow the pointers: outputs, then array leaves.
        s << "      o" << k << " += c * nf_idx(p.stride[" << o.ptr << "][" << d << "]);\n";
      }
      s << "    }\n";
    }
  }
  body("    ", false);
  s << "  }\n}\n";

  ElementwiseKernel k;
  k.body = s.str();
  k.entry = "nf_fused";
  k.n = sp.size();
  k.vec = contiguous ? vec : 1;
  // The parameter struct, laid out as the source declares it (natural alignment, 8-byte fields).
  for (char* ptr : ptrs) append_param(k.params, ptr);
  if (ptrs.empty()) append_param(k.params, static_cast<void*>(nullptr));
  append_param(k.params, static_cast<long long>(sp.size()));
  if (!contiguous) {
    for (int d = 0; d < rank; ++d) append_param(k.params, static_cast<long long>(sp.shape[d]));
    for (size_t r = 0; r < strides.size(); ++r) {
      for (int d = 0; d < rank; ++d) append_param(k.params, static_cast<long long>(sp.strides[r][d]));
    }
    if (strides.empty()) {
      for (int d = 0; d < rank; ++d) append_param(k.params, 0LL);
    }
  }
  for (const Array* a : scalars) {
    unsigned long long v[2] = {0, 0};
    std::memcpy(v, a->data(), a->itemsize());
    append_param(k.params, v);
  }
  if (scalars.empty()) {
    unsigned long long v[2] = {0, 0};
    append_param(k.params, v);
  }
  return k;
}

}  // namespace nf::cuda
