// CPU loops of the comparisons, logical and bitwise ops, shifts, classification and rounding.
#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu::detail {

UFuncLoop find_loop_logic(UFunc op, const DType* in, DType* out) {
  constexpr Family kFamily = Family::Logic;
  switch (op) {
    NF_FOR_EACH_UFUNC(NF_FAMILY_CASE_)
    default:
      return nullptr;
  }
}

}  // namespace nf::cpu::detail
