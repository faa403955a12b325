// Boolean-mask indexing of CPU arrays at the call (issue 11): a lone mask over the leading dims
// of the array is applied in one pass over it by cpu/mask_cpu.h's kernels, with no nonzero()
// index arrays and no gather node. Each returns false, doing nothing, where the general path of
// advanced_indexing.cpp must run (other keys, devices, mismatched shapes: its errors are NumPy's).
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ops/advanced_indexing.h"

namespace nf {

// *out = a[key] when `key` is one boolean array matching a's leading dims and a is on the CPU.
bool mask_getitem_cpu(const Array& a, const std::vector<KeyItem>& key, Array* out);

// a[mask] = v on the CPU, at once: v (a's dtype, any device, checked by the caller) is one
// block of a.shape[mask.ndim():] that every True receives (per_true=false), or one block per
// True in C order. False where a is not on the CPU or not C-contiguous.
bool mask_store_cpu(const Array& a, const Array& mask, Array v, bool per_true);

}  // namespace nf
