// The matrix product node kind (ops/linalg.h builds it with numpy.matmul's rules; BLAS on the CPU
// and cuBLAS or a generated kernel on CUDA compute it).
#pragma once
#include <string>

#include "numfuse/ir/node.h"

namespace nf {

// out = a @ b. inputs = {a, b}, both of the output dtype; a has ndim >= 1 and b ndim >= 1 with
// the shapes checked by matmul_shape. The output shape is matmul_shape(a, b).
struct MatmulNode : Node {
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "matmul"; }
  // BLAS, cuBLAS and the integer kernels write a C-contiguous `out` through out.data().
  bool writes_contiguous_view() const override { return true; }
};

}  // namespace nf
