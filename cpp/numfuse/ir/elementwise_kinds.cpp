#include "numfuse/ir/elementwise_kinds.h"

#include "numfuse/core/type_resolution.h"

namespace nf {

std::string UFuncNode::name() const { return ufunc_name(ufunc); }

}  // namespace nf
