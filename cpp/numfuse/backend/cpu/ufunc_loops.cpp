// The ufunc loop registry: each op's loops live in the file of its family (ufunc_loop_impl.h).
#include "numfuse/backend/cpu/ufunc_loops.h"

#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu {

UFuncLoop find_ufunc_loop(UFunc op, const DType* in_dtypes, DType* out_dtypes) {
  using detail::Family;
  switch (detail::family_of(op)) {
    case Family::Arithmetic:
      return detail::find_loop_arithmetic(op, in_dtypes, out_dtypes);
    case Family::Logic:
      return detail::find_loop_logic(op, in_dtypes, out_dtypes);
    case Family::Transcendental:
      return detail::find_loop_transcendental(op, in_dtypes, out_dtypes);
    case Family::FloatMisc:
      return detail::find_loop_float_misc(op, in_dtypes, out_dtypes);
  }
  return nullptr;
}

}  // namespace nf::cpu
