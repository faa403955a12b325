// CPU kernels of boolean-mask indexing with a mask over the leading dims of a C-contiguous array:
// one pass over the mask, no index arrays (a[mask] and a[mask] = v in a loop, issue 11). Blocks of
// eight mask bytes that are all False cost one load, so sparse masks touch little of `a`.
#pragma once
#include "numfuse/core/array.h"

namespace nf::cpu {

// out = a[mask]: a and mask materialised and C-contiguous, mask.shape a prefix of a.shape; out
// C-contiguous of shape (count of Trues,) + a.shape[mask.ndim():], a's dtype. Nonzero mask bytes
// are True, as NumPy reads them.
void mask_select(const Array& a, const Array& mask, const Array& out);

// a[mask] = v: a and mask as above; v C-contiguous of a's dtype, holding one block of
// a.shape[mask.ndim():] that every True receives (per_true=false), or one block per True in C
// order (per_true=true; the caller checked their count). v must not share a's memory.
void mask_store(const Array& a, const Array& mask, const Array& v, bool per_true);

}  // namespace nf::cpu
