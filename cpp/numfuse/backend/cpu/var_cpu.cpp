// ReduceOp::Var on the CPU: numfuse.var on CPU arrays keeps NumPy's two passes as graph ops (exact
// association); this node, built for the GPU's one-kernel var, runs here only when made directly.
// Per output: the kept dims first and the reduced dims last in one contiguous copy in the loop
// dtype, then the mean and the squared deviations of each row, in double.
#include <cmath>
#include <cstring>

#include "numfuse/backend/backend.h"
#include "numfuse/backend/cpu/reduce_cpu.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

void variance(const ReduceSpec& spec, const Array& in, const Array& out) {
  Shape shape;
  Strides strides;
  int64_t rows = 1, len = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int d = 0; d < in.ndim(); ++d) {
      if (spec.axes[d] != (pass == 1)) continue;
      shape.push_back(in.shape[d]);
      strides.push_back(in.strides[d]);
      (pass == 0 ? rows : len) *= in.shape[d];
    }
  }
  Array rowwise = Array::empty(shape, DType::Float64, Device::cpu());
  backend::copy_into(in.view(shape, strides, in.byte_offset), rowwise);
  double ddof = 0;
  if (spec.has_initial) {
    Array d = Array::empty({}, DType::Float64, Device::cpu());
    backend::copy_into(Array::scalar(spec.initial, spec.loop), d);
    ddof = *d.data_as<double>();
  }
  Array result = Array::empty({rows}, DType::Float64, Device::cpu());
  const double* x = rowwise.data_as<double>();
  double* r = result.data_as<double>();
  for (int64_t i = 0; i < rows; ++i) {
    const double* row = x + i * len;
    double mean = 0, m2 = 0;
    for (int64_t k = 0; k < len; ++k) mean += row[k];
    mean /= static_cast<double>(len);
    for (int64_t k = 0; k < len; ++k) m2 += (row[k] - mean) * (row[k] - mean);
    const double dof = static_cast<double>(len) - ddof;
    r[i] = len == 0 ? std::nan("") : m2 / (dof > 0 ? dof : 0.0);
  }
  backend::copy_into(result.view(out.shape, contiguous_strides(out.shape), 0), out);
}

}  // namespace nf::cpu
