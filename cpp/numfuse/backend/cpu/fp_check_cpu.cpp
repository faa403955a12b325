#include "numfuse/backend/cpu/fp_check_cpu.h"

#include <cmath>
#include <cstring>

#include "numfuse/core/divmod_flags.h"
#include "numfuse/ir/ufunc_list.h"
#include "numfuse/kernels/scalar_ops.h"

namespace nf::cpu {

namespace {
const char* ufunc_numpy_name(UFunc u) {
  switch (u) {
#define NF_UFUNC_NAME_(E, N, I, O) \
  case UFunc::E:                   \
    return N;
    NF_FOR_EACH_UFUNC(NF_UFUNC_NAME_)
#undef NF_UFUNC_NAME_
    case UFunc::kCount:
      break;
  }
  return "?";
}
}  // namespace

namespace {
// Element i of an operand as bits: 1 NaN, 2 infinite, 4 zero, 0 anything else (other integers,
// bools). A complex number carries the NaN and inf bits of both parts.
uint8_t value_class(DType d, const void* p, int64_t i) {
  auto of = [](auto v) -> uint8_t {
    return std::isnan(v) ? 1 : std::isinf(v) ? 2 : v == 0 ? 4 : 0;
  };
  switch (d) {
    case DType::Float16: {
      uint16_t b;
      std::memcpy(&b, static_cast<const char*>(p) + 2 * i, 2);
      if ((b & 0x7fff) == 0) return 4;
      if (((b >> 10) & 0x1f) != 0x1f) return 0;
      return (b & 0x3ff) ? 1 : 2;
    }
    case DType::Float32:
      return of(static_cast<const float*>(p)[i]);
    case DType::Float64:
      return of(static_cast<const double*>(p)[i]);
    case DType::Complex64: {
      const float* z = static_cast<const float*>(p) + 2 * i;
      const uint8_t a = of(z[0]), b = of(z[1]);
      return ((a | b) & 3) | (a & b & 4);  // both parts' NaN and inf bits
    }
    case DType::Complex128: {
      const double* z = static_cast<const double*>(p) + 2 * i;
      const uint8_t a = of(z[0]), b = of(z[1]);
      return ((a | b) & 3) | (a & b & 4);  // both parts' NaN and inf bits
    }
    default:
      return 0;
  }
}
// Element i of a real floating operand as double (float16 through its float value).
double real_value(DType d, const void* p, int64_t i) {
  switch (d) {
    case DType::Float16: {
      uint16_t b;
      std::memcpy(&b, static_cast<const char*>(p) + 2 * i, 2);
      return half::to_float(b);
    }
    case DType::Float32:
      return static_cast<const float*>(p)[i];
    default:
      return static_cast<const double*>(p)[i];
  }
}

// floor_divide (0), remainder (1), divmod (2) of real floats: their elements with a NaN or
// infinite operand or a zero divisor raise NumPy's flags of core/divmod_flags.h (kernels/scalar_ops.h), -1 when
// the op is another or no table is installed.
int divmod_table_op(const ElementwiseOp& op) {
  if (op.in.size() != 2 || !is_floating(op.in[0]) || !divmod_nonfinite_installed()) return -1;
  switch (op.ufunc) {
    case UFunc::FloorDivide: return kDivmodFloorDivide;
    case UFunc::Remainder: return kDivmodRemainder;
    case UFunc::Divmod: return kDivmodDivmod;
    default: return -1;
  }
}

}  // namespace

uint8_t fp_justified_flags(const ElementwiseOp& op, const void* const* in, const int64_t* step,
                           void* const* out, int64_t n, uint8_t flags) {
  if (op.kind != ElementwiseOp::Kind::UFunc) return flags;
  bool float_out = false;
  for (size_t o = 0; o < op.out.size(); ++o) {
    float_out |= is_floating(op.out[o]) || is_complex(op.out[o]);
    for (size_t k = 0; k < op.in.size(); ++k) {
      if (in[k] == out[o]) return flags;  // the operand is gone: nothing to judge by
    }
  }
  if (!float_out) return flags;  // integer loops raise exactly what NumPy's do
  // A pole (x / 0, log(0), 0 ** -1) makes an infinity from finite operands too, but one of them
  // is zero: that justifies divide, not overflow (libmvec's pow raises both there).
  bool nan_made = false, inf_made = false, inf_without_zero = false;
  auto judge = [&](uint8_t ins, uint8_t c) {
    nan_made |= (c & 1) && !(ins & 1);
    const bool inf = (c & 2) && !(ins & 3);
    inf_made |= inf || ((c & 2) && (ins & 4) && !(ins & 1));  // 0 ** -inf: a pole too
    inf_without_zero |= inf && !(ins & 4);
  };
  // A complex sum or difference is two real ones: (-inf + nan j) - (-inf) makes its NaN in the
  // real part from operands whose real parts hold none, which NumPy reports.
  const bool by_part = (op.ufunc == UFunc::Add || op.ufunc == UFunc::Subtract) && op.in.size() == 2 &&
                       is_complex(op.out[0]) && op.in[0] == op.out[0] && op.in[1] == op.out[0];
  const DType part = op.out[0] == DType::Complex64 ? DType::Float32 : DType::Float64;
  const int divmod_op = divmod_table_op(op);
  uint8_t by_table = 0;  // NumPy's flags of the elements judged by its table
  for (int64_t i = 0; i < n; ++i) {
    if (divmod_op >= 0) {
      const double a = real_value(op.in[0], in[0], i * step[0]), b = real_value(op.in[1], in[1], i * step[1]);
      if (sop::divmod_by_table(a, b)) {
        by_table |= divmod_nonfinite_table(divmod_op, op.in[0] == DType::Float64, sop::divmod_class(a), sop::divmod_class(b));
        continue;
      }
    }
    if (by_part) {
      for (int64_t c = 0; c < 2; ++c) {
        const uint8_t ins = value_class(part, in[0], 2 * i * step[0] + c) | value_class(part, in[1], 2 * i * step[1] + c);
        judge(ins, value_class(part, out[0], 2 * i + c));
      }
      continue;
    }
    uint8_t ins = 0;
    for (size_t k = 0; k < op.in.size(); ++k) ins |= value_class(op.in[k], in[k], i * step[k]);
    for (size_t o = 0; o < op.out.size(); ++o) judge(ins, value_class(op.out[o], out[o], i));
  }
  uint8_t keep = flags & (kFpUnderflow | by_table);
  if (nan_made) keep |= flags & kFpInvalid;
  if (inf_made) keep |= flags & kFpDivide;
  if (inf_without_zero) keep |= flags & kFpOverflow;
  return keep;
}

uint8_t fp_reportable(const ElementwiseOp& op) {
  switch (op.kind) {
    case ElementwiseOp::Kind::Select:
    case ElementwiseOp::Kind::Generate:
    case ElementwiseOp::Kind::User:
      return 0;
    case ElementwiseOp::Kind::Copy:
      return kFpAllFlags;  // float -> int of NaN, f64 -> f16 overflow
    case ElementwiseOp::Kind::UFunc:
      break;
  }
  // NumPy orders complex numbers with C's ordered comparisons (xr < yr || (xr == yr && xi < yi)),
  // which raise `invalid` where they meet a NaN: "invalid value encountered in less". Its float
  // loops compare quietly.
  const bool ordering = op.ufunc == UFunc::Less || op.ufunc == UFunc::LessEqual || op.ufunc == UFunc::Greater ||
                        op.ufunc == UFunc::GreaterEqual;
  if (ordering && !op.in.empty() && is_complex(op.in[0])) return kFpInvalid;
  switch (op.ufunc) {
    // NumPy's loops for these clear (or never raise) the flags: checked against numpy 2.4
    // (tests/test_errstate.py compares every ufunc on 0, inf and NaN operands).
    case UFunc::Maximum:
    case UFunc::Minimum:
    case UFunc::Fmax:
    case UFunc::Fmin:
    case UFunc::Equal:
    case UFunc::NotEqual:
    case UFunc::Less:
    case UFunc::LessEqual:
    case UFunc::Greater:
    case UFunc::GreaterEqual:
    case UFunc::LogicalAnd:
    case UFunc::LogicalOr:
    case UFunc::LogicalXor:
    case UFunc::LogicalNot:
    case UFunc::BitwiseAnd:
    case UFunc::BitwiseOr:
    case UFunc::BitwiseXor:
    case UFunc::Invert:
    case UFunc::LeftShift:
    case UFunc::RightShift:
    case UFunc::Copysign:
    case UFunc::Heaviside:
    case UFunc::Negative:
    case UFunc::Positive:
    case UFunc::Absolute:
    case UFunc::Fabs:
    case UFunc::Sign:
    case UFunc::Conjugate:
    case UFunc::Floor:
    case UFunc::Ceil:
    case UFunc::Trunc:
    case UFunc::Rint:
    case UFunc::Isnan:
    case UFunc::Isinf:
    case UFunc::Isfinite:
    case UFunc::Signbit:
      return 0;
    default:
      return kFpAllFlags;
  }
}

const char* fp_op_name(const ElementwiseOp& op) {
  switch (op.kind) {
    case ElementwiseOp::Kind::UFunc:
      return ufunc_numpy_name(op.ufunc);
    case ElementwiseOp::Kind::Copy:
      return "cast";
    case ElementwiseOp::Kind::Select:
      return "where";
    case ElementwiseOp::Kind::Generate:
      return generator_name(op.gen.kind);
    case ElementwiseOp::Kind::User:
      return "elementwise_kernel";
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
  if (op == ReduceOp::Var) {
    // NumPy's var divides by n - ddof last ("divide") and squares the deviations ("square")
    const uint8_t divide = flags & (kFpDivide | kFpInvalid),
                  square = flags & (kFpOverflow | kFpUnderflow);
    if (divide & fp_watched(state)) record_fp_event("divide", divide, state);
    if (square & fp_watched(state)) record_fp_event("square", square, state);
    return;
  }
  if (op != ReduceOp::Sum && op != ReduceOp::Prod) return;
  if (flags & fp_watched(state)) record_fp_event("reduce", flags, state);
}

void record_scan_flags(FpState state, uint8_t flags) {
  if (flags & fp_watched(state)) record_fp_event("accumulate", flags, state);
}

}  // namespace nf::cpu
