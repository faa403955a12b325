// CPU loops of the the float-only binary functions (arctan2 ... logaddexp2), deg2rad/rad2deg, frexp, modf.
#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu::detail {

UFuncLoop find_loop_float_misc(UFunc op, const DType* in, DType* out) {
  constexpr Family kFamily = Family::FloatMisc;
  switch (op) {
    NF_FOR_EACH_UFUNC(NF_FAMILY_CASE_)
    default:
      return nullptr;
  }
}

}  // namespace nf::cpu::detail
