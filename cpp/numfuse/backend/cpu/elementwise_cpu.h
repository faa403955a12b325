// Eager strided copies on the CPU (writes, transfers): dst[...] = src with broadcasting and a
// dtype conversion. Pending elementwise work runs through fused_cpu.h instead.
#pragma once
#include "numfuse/core/array.h"

namespace nf::cpu {

// dst[...] = src (broadcast to dst's shape), converting dtype as astype(casting='unsafe') does.
// src and dst must not overlap in memory unless identical (callers copy through a temporary).
void copy_cast(const Array& src, const Array& dst);

}  // namespace nf::cpu
