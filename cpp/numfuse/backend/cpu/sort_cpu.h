// The CPU sort's hook for NumPy's own sort loops. NumPy's quicksort of numbers dispatches to its
// AVX-512 / AVX2 sorts (x86-simd-sort): long lines cut into buckets by a sample sort, a bucket sorted by it per task,
// beats any radix sort of ours on 64-bit keys (docs/decisions.md, "Sorting on the CPU"). The
// Python module registers NumPy's loops at import (python/src/bind_sort.cpp), as the BLAS of
// NumPy's wheel is found at run time (blas.cpp); without them (the C++ tests) the radix sort
// of radix_sort.h runs.
#pragma once
#include <cstdint>

#include "numfuse/core/dtype.h"

namespace nf::cpu {

// NumPy's PyArray_SortFunc: sorts n contiguous elements in place (NaNs last); the third
// argument (the array, for flexible dtypes) is unused for numbers and given as null.
using InPlaceSort = int (*)(void* data, intptr_t n, void* unused);

// Registers (or, with null, removes) the in-place sort of dtype d.
void set_inplace_sort(DType d, InPlaceSort f);
InPlaceSort inplace_sort(DType d);

}  // namespace nf::cpu
