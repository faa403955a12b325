// CUDA entry points of the elementwise nodes: a node alone is a fused group of one, compiled
// into one kernel (the same code generator as fused groups).
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/graph/group_program.h"
#include "numfuse/ops/nodes.h"

namespace nf {

void ElementwiseNode::eval_cuda(const std::vector<Array>& outs) {
  cuda::run_program_cuda(single_node_program(this, outs));
}

}  // namespace nf
