// The unique node kind (ops/unique.h builds it): np.unique's values of a 1-D array, sorted.
// It describes the work only; the backends' unique files compute it.
#pragma once
#include <string>

#include "numfuse/ir/node.h"

namespace nf {

// The distinct values of the 1-D inputs[0] (not complex), in NumPy's order (NaNs last). Outputs,
// in this order: values, of the input's shape, whose first `count` elements are the distinct
// values (the rest is unspecified); count, a 0-d int64; with `counts`, int64 of the input's shape
// whose first `count` elements say how often each value occurs. -0.0 equals 0.0; with equal_nan
// every NaN is one value, else each NaN is its own.
struct UniqueNode : Node {
  bool equal_nan = true;
  bool counts = false;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "unique"; }
};

}  // namespace nf
