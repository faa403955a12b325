// Scans: cumsum and cumprod (ufunc.accumulate for add and multiply). Validation and NumPy's
// dtype rules happen here, eagerly; the result is a pending Array produced by a ScanNode
// (ir/scan.h), which only describes the work; backend/cpu/scan_cpu.h and
// backend/cuda/scan_cuda.cpp compute it.
#pragma once
#include <optional>

#include "numfuse/ir/scan.h"

namespace nf {

// np.cumsum / np.cumprod: axis nullopt flattens first (and so does a 0-d input). The dtype rules
// are sum's and prod's (small ints -> int64, small uints -> uint64). Returns `out` when given.
Array scan(ScanOp op, const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype = {},
           const std::optional<Array>& out = {});

}  // namespace nf
