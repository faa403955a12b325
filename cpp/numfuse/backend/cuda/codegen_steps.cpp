#include "numfuse/backend/cuda/codegen_steps.h"

#include <vector>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_user.h"
#include "numfuse/backend/cuda/fp_check_cuda.h"

namespace nf::cuda {

namespace {

const char* ufunc_functor(UFunc op) {
  switch (op) {
#define NF_FUNCTOR_NAME_(E, N, I, O) \
  case UFunc::E:                     \
    return "nf::sop::" #E;
    NF_FOR_EACH_UFUNC(NF_FUNCTOR_NAME_)
#undef NF_FUNCTOR_NAME_
    default: return "?";
  }
}

}  // namespace

std::string value_expr(const ProgramValue& v, const std::function<std::string(int)>& leaf_name) {
  if (v.leaf >= 0) return leaf_name(v.leaf);
  return "v" + std::to_string(v.step) + "_" + std::to_string(v.output);
}

std::string generator_function(Generator::Kind kind, DType dtype) {
  const char* fn = "fill";
  switch (kind) {
    case Generator::Kind::Fill: fn = "fill"; break;
    case Generator::Kind::Arange: fn = "arange"; break;
    case Generator::Kind::Eye: fn = "eye"; break;
    case Generator::Kind::Uniform: fn = "uniform"; break;
    case Generator::Kind::Normal: fn = "normal"; break;
    case Generator::Kind::Integers: fn = "integers"; break;
  }
  return std::string("nf::gen::") + fn + "<" + cuda_storage_type(dtype) + ">";
}

bool has_uniform_draws(const GroupProgram& p) {
  for (const ProgramStep& st : p.steps) {
    if (st.op.kind == ElementwiseOp::Kind::Generate && st.op.gen.kind == Generator::Kind::Uniform) return true;
  }
  return false;
}

void emit_uniform_pairs(SourceText& s, const GroupProgram& p, const std::string& first, int count,
                        const std::string& indent, const std::string& gen_words) {
  int generators = 0;
  for (size_t st = 0; st < p.steps.size(); ++st) {
    const ProgramStep& step = p.steps[st];
    if (step.op.kind != ElementwiseOp::Kind::Generate) continue;
    const int g = generators++;
    if (step.op.gen.kind != Generator::Kind::Uniform) continue;
    const char* t = cuda_storage_type(step.op.out[0]);
    s << indent << t << " u" << st << "[" << count << "];\n";
    for (int j = 0; j < count; j += 2) {
      s << indent << "nf::gen::uniform2<" << t << ">(" << gen_words << " + " << 8 * g << ", (unsigned long long)("
        << first << " + " << j << "), u" << st << "[" << j << "], u" << st << "[" << j + 1 << "]);\n";
    }
  }
}

void emit_steps(SourceText& s, const GroupProgram& p, const StepNames& names, const std::string& indent) {
  int generators = 0;
  for (size_t st = 0; st < p.steps.size(); ++st) {
    const ProgramStep& step = p.steps[st];
    std::vector<std::string> raw, args;
    for (size_t a = 0; a < step.args.size(); ++a) {
      DType have = p.dtype_of(step.args[a]);
      std::string name = value_expr(step.args[a], names.leaf_name);
      raw.push_back(name);
      if (have != step.op.in[a] || step.op.in[a] == DType::Float16) {
        name = std::string("nf::convert<") + cuda_compute_type(step.op.in[a]) + ">(" + name + ")";
      }
      args.push_back(name);
    }
    if (step.op.kind == ElementwiseOp::Kind::User) {
      emit_user_step(s, p, st, args, names, indent);
      continue;
    }
    std::string call;
    switch (step.op.kind) {
      case ElementwiseOp::Kind::User: break;  // above
      case ElementwiseOp::Kind::Copy: call = args[0]; break;
      case ElementwiseOp::Kind::Generate: {
        const std::string words = names.gen_words + " + " + std::to_string(8 * generators++);
        if (step.op.gen.kind == Generator::Kind::Uniform && !names.uniform_index.empty()) {
          call = "u" + std::to_string(st) + names.uniform_index;
          break;
        }
        call = generator_function(step.op.gen.kind, step.op.out[0]) + "(" + words;
        if (step.op.gen.kind != Generator::Kind::Fill) call += ", (unsigned long long)(" + names.position + ")";
        call += ")";
        break;
      }
      case ElementwiseOp::Kind::Select:
        call = "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
        break;
      case ElementwiseOp::Kind::UFunc: {
        if (step.op.ufunc == UFunc::Nextafter && step.op.in[0] == DType::Float16) {
          // float16 steps in half precision, not in the float that carries it.
          call = "nf::sop::nextafter_half_value(" + args[0] + ", " + args[1] + ")";
          break;
        }
        if (step.op.ufunc == UFunc::Spacing && step.op.in[0] == DType::Float16) {
          call = "nf::sop::spacing_half_value(" + args[0] + ")";
          break;
        }
        call = std::string(ufunc_functor(step.op.ufunc)) + "{}(";
        for (size_t a = 0; a < args.size(); ++a) call += (a ? ", " : "") + args[a];
        call += ")";
        break;
      }
    }
    // float16 values are rounded after every op, as NumPy's float16 loops do.
    auto rounded = [&](DType d, const std::string& expr) {
      return d == DType::Float16 ? "float(nf::half(" + expr + "))" : expr;
    };
    if (step.op.out.size() == 1) {
      s << indent << "const " << cuda_compute_type(step.op.out[0]) << " v" << st << "_0 = "
        << rounded(step.op.out[0], call) << ";\n";
    } else {
      s << indent << "const auto r" << st << " = " << call << ";\n";
      s << indent << "const " << cuda_compute_type(step.op.out[0]) << " v" << st << "_0 = "
        << rounded(step.op.out[0], "r" + std::to_string(st) + ".first") << ";\n";
      s << indent << "const " << cuda_compute_type(step.op.out[1]) << " v" << st << "_1 = "
        << rounded(step.op.out[1], "r" + std::to_string(st) + ".second") << ";\n";
    }
    if (names.fp_slots && (*names.fp_slots)[st] >= 0) {
      s << indent << fp_check_statement(p, st, raw, args, (*names.fp_slots)[st], names.fp_word)
        << "\n";
    }
  }
}

}  // namespace nf::cuda
