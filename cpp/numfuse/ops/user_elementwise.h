// numfuse.ElementwiseKernel's call: a user's CUDA C++ operation as a node of the lazy graph, fused
// with the element-wise ops around it (python/numfuse/_elementwise_kernel.py parses the
// parameters, resolves the type placeholders and casts the arguments).
#pragma once
#include <optional>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/user_elementwise.h"

namespace nf {

// The pending outputs (dtypes `out_dtypes`, shape `shape`) of `def` over `args` (one per
// def->args entry: arrays broadcastable to `shape`, 0-d host arrays for scalars). Where outs[j]
// is given, output j is written into it (NumPy's out= rules) and outs[j] is returned. Throws
// CUDAError when the arrays are not on a CUDA device (a CUDA C++ operation needs one), ValueError
// naming the parameter for a shape that does not broadcast.
std::vector<Array> user_elementwise(const UserElementwiseDef* def, const std::vector<Array>& args,
                                    const std::vector<DType>& out_dtypes, const Shape& shape,
                                    const std::vector<std::optional<Array>>& outs);

}  // namespace nf
