// CPU loops of the arithmetic, maximum/minimum, divmod and the unary arithmetic ops.
#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu::detail {

UFuncLoop find_loop_arithmetic(UFunc op, const DType* in, DType* out) {
  constexpr Family kFamily = Family::Arithmetic;
  switch (op) {
    NF_FOR_EACH_UFUNC(NF_FAMILY_CASE_)
    default:
      return nullptr;
  }
}

}  // namespace nf::cpu::detail
