// CPU entry points of the elementwise nodes.
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/core/error.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/ops/nodes.h"

namespace nf {

std::string UFuncNode::name() const { return ufunc_name(op); }

void UFuncNode::eval_cpu(const std::vector<Array>& outs) {
  DType out_dtypes[2];
  cpu::UFuncLoop loop = cpu::find_ufunc_loop(op, in_loop.data(), out_dtypes);
  if (!loop) {
    std::string types;
    for (DType d : in_loop) types += std::string(types.empty() ? "" : ", ") + dtype_name(d);
    throw UFuncTypeError(std::string("ufunc '") + ufunc_name(op) + "' has no CPU loop for (" +
                         types + ")");
  }
  cpu::run_ufunc_loop(loop, in_loop, out_loop, inputs, outs);
}

namespace {
template <class T>
void select_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  const bool* c = static_cast<const bool*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  const T* y = static_cast<const T*>(in[2]);
  T* o = static_cast<T*>(out[0]);
  for (int64_t i = 0; i < n; ++i) o[i] = c[i * st[0]] ? x[i * st[1]] : y[i * st[2]];
}
struct Bytes16 {
  uint64_t lo, hi;
};
}  // namespace

void WhereNode::eval_cpu(const std::vector<Array>& outs) {
  // Selection moves bytes: one loop per item size serves every dtype.
  DType dt = outs[0].dtype;
  cpu::UFuncLoop loop = nullptr;
  switch (itemsize(dt)) {
    case 1: loop = select_loop<uint8_t>; break;
    case 2: loop = select_loop<uint16_t>; break;
    case 4: loop = select_loop<uint32_t>; break;
    case 8: loop = select_loop<uint64_t>; break;
    case 16: loop = select_loop<Bytes16>; break;
  }
  cpu::run_ufunc_loop(loop, {DType::Bool, dt, dt}, {dt}, inputs, outs);
}

void CopyNode::eval_cpu(const std::vector<Array>& outs) { cpu::copy_cast(inputs[0], outs[0]); }

}  // namespace nf
