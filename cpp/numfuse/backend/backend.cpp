#include "numfuse/backend/backend.h"

#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/core/error.h"

namespace nf::backend {

void copy_into(const Array& src, const Array& dst) {
  if (src.device().is_cpu() && dst.device().is_cpu()) {
    cpu::copy_cast(src, dst);
    return;
  }
  throw NotImplementedError("copy between " + src.device().str() + " and " + dst.device().str());
}

}  // namespace nf::backend
