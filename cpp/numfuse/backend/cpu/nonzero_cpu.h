// CPU kernels of numpy.count_nonzero and numpy.nonzero: one pass over the values where they are
// (the CUDA backend composes them from a reduction and a scan instead, ops/advanced_indexing.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "numfuse/core/array.h"

namespace nf::cpu {

// The number of nonzero elements of a materialised host array (NumPy's truth: complex values
// with either part nonzero, NaN included).
int64_t count_nonzero(const Array& a);

// numpy.nonzero(a) for a materialised host array of ndim >= 1 holding n nonzero elements
// (count_nonzero(a)): ndim int64 arrays of n, in C order.
std::vector<Array> nonzero(const Array& a, int64_t n);

}  // namespace nf::cpu
