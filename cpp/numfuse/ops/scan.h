// Scans: cumsum and cumprod (ufunc.accumulate for add and multiply). Validation and NumPy's
// dtype rules happen here, eagerly; the result is a pending Array produced by a ScanNode, which
// only describes the work (backend-neutral); backend/cpu/scan_cpu.h and backend/cuda/scan_cuda.cpp
// compute it.
#pragma once
#include <optional>

#include "numfuse/graph/node.h"

namespace nf {

enum class ScanOp : uint8_t { CumSum, CumProd };

// An inclusive scan along one axis of an input already cast to the output dtype.
struct ScanNode : Node {
  ScanOp op = ScanOp::CumSum;
  int axis = 0;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return op == ScanOp::CumSum ? "cumsum" : "cumprod"; }
  void eval_cpu(const std::vector<Array>& outs) override;
  void eval_cuda(const std::vector<Array>& outs) override;  // backend/cuda/scan_cuda.cpp
};

// np.cumsum / np.cumprod: axis nullopt flattens first (and so does a 0-d input). The dtype rules
// are sum's and prod's (small ints -> int64, small uints -> uint64). Returns `out` when given.
Array scan(ScanOp op, const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype = {},
           const std::optional<Array>& out = {});

}  // namespace nf
