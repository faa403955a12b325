#include "numfuse/backend/cuda/codegen_user.h"

#include <set>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/ir/user_elementwise.h"

namespace nf::cuda {

namespace {

using Role = UserElementwiseDef::Role;

// CuPy's names inside an operation: `_ind.size()` and raw arrays indexed by `x[j]` (C order).
const char* const kUserHelpers = R"(
#ifndef NF_USER_HELPERS
#define NF_USER_HELPERS
struct nf_user_ind {
  long long n;
  __device__ long long size() const { return n; }
};
template <class T> struct nf_user_raw {
  T* p;
  long long n;
  __device__ T& operator[](long long j) const { return p[j]; }
  __device__ long long size() const { return n; }
};
#endif
)";

std::string function_name(size_t st) { return "nf_user_" + std::to_string(st); }

}  // namespace

std::string user_step_definitions(const GroupProgram& p) {
  std::string out;
  std::set<std::string> preambles;  // by text: two kernels may share one preamble
  for (size_t st = 0; st < p.steps.size(); ++st) {
    const ProgramStep& step = p.steps[st];
    if (step.op.kind != ElementwiseOp::Kind::User) continue;
    const UserElementwiseDef& d = *step.op.user;
    if (out.empty()) out += kUserHelpers;
    if (!d.preamble.empty() && preambles.insert(d.preamble).second) {
      out += "// preamble of " + d.name + "\n" + d.preamble + "\n";
    }
    std::string params, locals;
    auto param = [&](const std::string& text) { params += (params.empty() ? "" : ", ") + text; };
    for (size_t a = 0; a < d.args.size(); ++a) {
      const UserElementwiseDef::Arg& arg = d.args[a];
      switch (arg.role) {
        case Role::In: param(std::string("const ") + cuda_compute_type(step.op.in[a]) + " " + arg.name); break;
        case Role::RawView:
        case Role::OutInit: break;
        case Role::RawPtr:
          param("unsigned long long nf_rawp_" + arg.name);
          locals += std::string("  const nf_user_raw<") + cuda_storage_type(arg.raw_dtype) + "> " + arg.name +
                    "{reinterpret_cast<" + cuda_storage_type(arg.raw_dtype) + "*>(nf_rawp_" + arg.name +
                    "), nf_raws_" + arg.name + "};\n";
          break;
        case Role::RawSize: param("long long nf_raws_" + arg.name); break;
        case Role::Size:
          param("long long nf_ind_size");
          locals += "  const nf_user_ind _ind{nf_ind_size};\n";
          break;
      }
    }
    for (size_t j = 0; j < d.out_names.size(); ++j) {
      param(std::string(cuda_compute_type(step.op.out[j])) + "& " + d.out_names[j]);
    }
    param("const long long i");
    out += "// " + d.name + "\n__device__ __forceinline__ void " + function_name(st) + "(" + params + ") {\n";
    for (const auto& t : d.typedefs) {
      out += std::string("  typedef ") + cuda_compute_type(t.second) + " " + t.first + ";\n";
    }
    out += locals;
    if (!d.loop_prep.empty()) out += "  " + d.loop_prep + ";\n";
    out += "  " + d.operation + ";\n}\n";
  }
  return out;
}

void emit_user_step(SourceText& s, const GroupProgram& p, size_t st, const std::vector<std::string>& args,
                    const StepNames& names, const std::string& indent) {
  const ProgramStep& step = p.steps[st];
  const UserElementwiseDef& d = *step.op.user;
  for (size_t j = 0; j < d.out_names.size(); ++j) {
    std::string init;
    for (size_t a = 0; a < d.args.size(); ++a) {
      if (d.args[a].role == Role::OutInit && d.args[a].name == d.out_names[j]) init = args[a];
    }
    const char* ct = cuda_compute_type(step.op.out[j]);
    s << indent << ct << " v" << st << "_" << j << " = " << (init.empty() ? std::string(ct) + "()" : init) << ";\n";
  }
  s << indent << function_name(st) << "(";
  bool first = true;
  auto arg = [&](const std::string& text) {
    s << (first ? "" : ", ") << text;
    first = false;
  };
  for (size_t a = 0; a < d.args.size(); ++a) {
    const Role r = d.args[a].role;
    if (r == Role::RawView || r == Role::OutInit) continue;
    arg(args[a]);
  }
  for (size_t j = 0; j < d.out_names.size(); ++j) arg("v" + std::to_string(st) + "_" + std::to_string(j));
  arg("(long long)(" + names.position + ")");
  s << ");\n";
}

}  // namespace nf::cuda
