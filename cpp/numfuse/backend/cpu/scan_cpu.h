// The CPU scan kernels (cumsum, cumprod): sequential along the axis as NumPy's accumulate, each
// step rounded to the output dtype; lines side by side in memory advance together (vectorised).
#pragma once
#include "numfuse/core/array.h"
#include "numfuse/ir/scan.h"

namespace nf::cpu {

// out[..., k, ...] = op(out[..., k-1, ...], in[..., k, ...]) along `axis`; in and out share dtype
// and shape, out is fresh and C-contiguous, in any strides.
void scan(ScanOp op, int axis, const Array& in, const Array& out);

}  // namespace nf::cpu
