// CPU entry points of the elementwise nodes: a node alone is a fused group of one.
#include "numfuse/backend/cpu/fp_check_cpu.h"
#include "numfuse/backend/cpu/fused_cpu.h"
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/graph/group_program.h"
#include "numfuse/ops/nodes.h"

namespace nf {

std::string UFuncNode::name() const { return ufunc_name(ufunc); }

void UFuncNode::eval_cpu(const std::vector<Array>& outs) {
  const int64_t n = outs[0].size();
  bool direct = n <= 4096 && inputs.size() <= 2 && outs.size() <= 2;
  const void* in[2];
  int64_t step[2];
  void* out[2];
  for (size_t j = 0; direct && j < outs.size(); ++j) {
    direct = outs[j].dtype == out_loop[j] && outs[j].c_contiguous();
    out[j] = outs[j].data();
  }
  for (size_t k = 0; direct && k < inputs.size(); ++k) {
    const Array& a = inputs[k];
    direct = a.dtype == in_loop[k] && (a.ndim() == 0 || (a.shape == outs[0].shape && a.c_contiguous()));
    step[k] = a.ndim() == 0 ? 0 : 1;
    in[k] = a.data();
  }
  if (direct) {
    DType out_dtypes[2];
    if (cpu::UFuncLoop loop = cpu::find_ufunc_loop(ufunc, in_loop.data(), out_dtypes)) {
      if (n > 0) {
        fp_hw_take();  // flags left by earlier work on this thread are not this op's
        loop(in, step, out, n);
        if (uint8_t f = fp_hw_take()) {
          const ElementwiseOp o = op();
          cpu::record_step_flags(this, o, cpu::fp_justified_flags(o, in, step, out, n, f));
        }
      }
      return;
    }
  }
  ElementwiseNode::eval_cpu(outs);
}

void ElementwiseNode::eval_cpu(const std::vector<Array>& outs) {
  cpu::run_program(single_node_program(this, outs));
}

}  // namespace nf
