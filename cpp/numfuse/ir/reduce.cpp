#include "numfuse/ir/reduce.h"

#include <cstring>
#include <limits>

#include "numfuse/kernels/scalar_ops.h"

namespace nf {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "add";
    case ReduceOp::Prod: return "multiply";
    case ReduceOp::Max: return "maximum";
    case ReduceOp::Min: return "minimum";
    case ReduceOp::Fmax: return "fmax";
    case ReduceOp::Fmin: return "fmin";
    case ReduceOp::Any: return "logical_or";
    case ReduceOp::All: return "logical_and";
    case ReduceOp::ArgMax: return "argmax";
    case ReduceOp::ArgMin: return "argmin";
    case ReduceOp::Var: return "var";
  }
  return "?";
}

namespace {

template <class T>
T identity_of(ReduceOp op) {
  if constexpr (is_cplx_v<T>) {
    using R = decltype(T{}.re);
    constexpr R inf = std::numeric_limits<R>::infinity(), nan = std::numeric_limits<R>::quiet_NaN();
    switch (op) {
      case ReduceOp::Prod: return T(R(1), R(0));
      case ReduceOp::Max: return T(-inf, -inf);
      case ReduceOp::Min: return T(inf, inf);
      case ReduceOp::Fmax: case ReduceOp::Fmin: return T(nan, nan);
      default: return T(R(0), R(0));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    return op == ReduceOp::Prod || op == ReduceOp::Min || op == ReduceOp::Fmin || op == ReduceOp::All;
  } else {
    using C = compute_t<T>;
    using lim = std::numeric_limits<C>;
    constexpr bool flt = std::is_floating_point_v<C>;
    C c = C(0);
    switch (op) {
      case ReduceOp::Prod: c = C(1); break;
      case ReduceOp::Max: c = flt ? -lim::infinity() : lim::lowest(); break;
      case ReduceOp::Min: c = flt ? lim::infinity() : lim::max(); break;
      // fmax(NaN, x) is x, and an all-NaN slice stays NaN.
      case ReduceOp::Fmax: c = flt ? lim::quiet_NaN() : lim::lowest(); break;
      case ReduceOp::Fmin: c = flt ? lim::quiet_NaN() : lim::max(); break;
      default: break;
    }
    return convert<T>(c);
  }
}

}  // namespace

void reduce_identity(ReduceOp op, DType loop, void* out) {
  NF_DISPATCH(loop, reduce_op_name(op), {
    scalar_t v = identity_of<scalar_t>(op);
    std::memcpy(out, &v, sizeof(v));
  });
}

}  // namespace nf
