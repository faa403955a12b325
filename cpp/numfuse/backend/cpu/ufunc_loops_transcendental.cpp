// CPU loops of the sqrt, cbrt, exp/log and the (inverse) trigonometric and hyperbolic functions.
#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu::detail {

UFuncLoop find_loop_transcendental(UFunc op, const DType* in, DType* out) {
  constexpr Family kFamily = Family::Transcendental;
  switch (op) {
    NF_FOR_EACH_UFUNC(NF_FAMILY_CASE_)
    default:
      return nullptr;
  }
}

}  // namespace nf::cpu::detail
