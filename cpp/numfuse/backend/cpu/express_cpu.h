// The CPU's express lane: a lone ufunc over small materialised host operands of any strides,
// run in the caller's thread with no node (Backend::run_ufunc_now; docs/decisions.md, "express
// lane").
#pragma once
#include "numfuse/core/dtype.h"
#include "numfuse/core/shape.h"
#include "numfuse/ir/ufunc_list.h"

namespace nf::cpu {

// Backend::run_ufunc_now on the CPU: in[k] and out[j] advance by strides[k] and strides[nin + j]
// elements along the dims of shape (at most 8 dims: coalesced spaces have fewer). Outputs that
// are not fresh_outputs are written through a scratch buffer once every result is known. False,
// nothing stored, when there is no loop for these dtypes, the loop writes dtypes other than
// out_loop, or it raised a floating-point flag.
bool run_ufunc_express(UFunc op, const DType* in_loop, const DType* out_loop, const void* const* in,
                       void* const* out, const Shape& shape, const Strides* strides,
                       bool fresh_outputs);

}  // namespace nf::cpu
