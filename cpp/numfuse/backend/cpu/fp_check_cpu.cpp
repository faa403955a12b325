#include "numfuse/backend/cpu/fp_check_cpu.h"

#include "numfuse/ops/ufunc_list.h"

namespace nf::cpu {

namespace {
const char* ufunc_numpy_name(UFunc u) {
  switch (u) {
#define NF_UFUNC_NAME_(E, N, I, O) \
  case UFunc::E:                   \
    return N;
    NF_FOR_EACH_UFUNC(NF_UFUNC_NAME_)
#undef NF_UFUNC_NAME_
    case UFunc::kCount: break;
  }
  return "?";
}
}  // namespace

uint8_t fp_reportable(const ElementwiseOp& op) {
  switch (op.kind) {
    case ElementwiseOp::Kind::Select:
    case ElementwiseOp::Kind::Generate: return 0;
    case ElementwiseOp::Kind::Copy: return kFpAllFlags;  // float -> int of NaN, f64 -> f16 overflow
    case ElementwiseOp::Kind::UFunc: break;
  }
  switch (op.ufunc) {
    // NumPy's loops for these clear (or never raise) the flags: checked against numpy 2.4
    // (tests/test_errstate.py compares every ufunc on 0, inf and NaN operands).
    case UFunc::Maximum: case UFunc::Minimum: case UFunc::Fmax: case UFunc::Fmin:
    case UFunc::Equal: case UFunc::NotEqual: case UFunc::Less: case UFunc::LessEqual:
    case UFunc::Greater: case UFunc::GreaterEqual: case UFunc::LogicalAnd:
    case UFunc::LogicalOr: case UFunc::LogicalXor: case UFunc::LogicalNot:
    case UFunc::BitwiseAnd: case UFunc::BitwiseOr: case UFunc::BitwiseXor: case UFunc::Invert:
    case UFunc::LeftShift: case UFunc::RightShift: case UFunc::Copysign: case UFunc::Heaviside:
    case UFunc::Negative: case UFunc::Positive: case UFunc::Absolute: case UFunc::Fabs:
    case UFunc::Sign: case UFunc::Conjugate: case UFunc::Floor: case UFunc::Ceil:
    case UFunc::Trunc: case UFunc::Rint: case UFunc::Isnan: case UFunc::Isinf:
    case UFunc::Isfinite: case UFunc::Signbit:
      return 0;
    default: return kFpAllFlags;
  }
}

const char* fp_op_name(const ElementwiseOp& op) {
  switch (op.kind) {
    case ElementwiseOp::Kind::UFunc: return ufunc_numpy_name(op.ufunc);
    case ElementwiseOp::Kind::Copy: return "cast";
    case ElementwiseOp::Kind::Select: return "where";
    case ElementwiseOp::Kind::Generate: return generator_name(op.gen.kind);
  }
  return "?";
}

void record_step_flags(const Node* node, const ElementwiseOp& op, uint8_t flags) {
  const FpState state = node ? node->fp_state : kFpDefaultState;
  // The event keeps every reportable flag: a seterrcall callback gets them all, as NumPy's.
  flags &= fp_reportable(op);
  if (flags & fp_watched(state)) record_fp_event(fp_op_name(op), flags, state);
}

void record_reduce_flags(ReduceOp op, FpState state, uint8_t flags) {
  if (op != ReduceOp::Sum && op != ReduceOp::Prod && op != ReduceOp::Var) return;
  if (flags & fp_watched(state)) record_fp_event("reduce", flags, state);
}

void record_scan_flags(FpState state, uint8_t flags) {
  if (flags & fp_watched(state)) record_fp_event("accumulate", flags, state);
}

}  // namespace nf::cpu
