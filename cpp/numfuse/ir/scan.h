// The scan node kind: an inclusive cumsum or cumprod along one axis (ops/scan.h builds it).
#pragma once
#include <string>

#include "numfuse/ir/node.h"

namespace nf {

enum class ScanOp : uint8_t { CumSum, CumProd };

// An inclusive scan along one axis of an input already cast to the output dtype.
struct ScanNode : Node {
  ScanOp op = ScanOp::CumSum;
  int axis = 0;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return op == ScanOp::CumSum ? "cumsum" : "cumprod"; }
};

}  // namespace nf
