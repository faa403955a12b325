// CPU entry points of the elementwise nodes: a node alone is a fused group of one.
#include "numfuse/backend/cpu/fused_cpu.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/graph/group_program.h"
#include "numfuse/ops/nodes.h"

namespace nf {

std::string UFuncNode::name() const { return ufunc_name(ufunc); }

void ElementwiseNode::eval_cpu(const std::vector<Array>& outs) {
  cpu::run_program(single_node_program(this, outs));
}

}  // namespace nf
