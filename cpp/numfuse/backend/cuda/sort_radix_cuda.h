// The CUDA sorts' radix paths (sort_radix_cuda.cpp): CUB's device radix sort and select, from
// libnumfuse_cub.so (cub_sort.cu, opened at first use), on keys in NumPy's order made by the
// NVRTC kernels of kernels/sort.cuh. sort_cuda.cpp and unique_cuda.cpp call them.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/core/array.h"
#include "numfuse/ir/sort.h"

namespace nf::cuda {

// The parameters of every sort kernel: nf_sort_params of kernels/sort.cuh, field for field
// (cpp/tests/test_sort_kernels.cpp checks the size on both sides).
struct SortParams {
  const void* in;
  void* vals_src;
  long long* idx_src;
  void* vals_dst;
  long long* idx_dst;
  void* out_values;
  long long* out_indices;
  long long n, lines, inner, width;
  unsigned* idx32_dst;
  const unsigned* idx32_src;
  long long* count;
  long long canonical;
  const long long* starts;
};

// libnumfuse_cub.so's entry points (cub_sort.cu); each returns a cudaError_t.
struct CubLibrary {
  using RadixSort = int (*)(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                            const long long* vin, long long* vout, long long n, int segments,
                            const long long* offsets, int end_bit, void* stream);
  using RadixSortV = int (*)(int key_bytes, int value_bytes, void* temp, size_t* temp_bytes, const void* kin,
                             void* kout, const void* vin, void* vout, long long n, int segments,
                             const long long* offsets, int end_bit, void* stream);
  using FloatSort = int (*)(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                            long long n, void* stream);
  using Unique = int (*)(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                         long long* starts, long long* count, long long n, int nan_distinct, void* stream);
  using FloatUnique = int (*)(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                              long long* starts, long long* count, long long n, int equal_nan, void* stream);
  using IntSort = int (*)(int key_bytes, int is_signed, void* temp, size_t* temp_bytes, const void* kin,
                          void* kout, long long n, int segments, const long long* offsets, void* stream);
  using ErrorString = const char* (*)(int err);
  RadixSort sort = nullptr;
  RadixSortV sort_v = nullptr;     // optional below: an older helper library lacks them
  FloatSort float_sort = nullptr;
  Unique unique = nullptr;
  FloatUnique float_unique = nullptr;
  IntSort int_sort = nullptr;
  ErrorString error_string = nullptr;
};

// The helper beside the module (NUMFUSE_CUB_LIBRARY names another file; "0" turns it off);
// every entry null when it is missing.
const CubLibrary& cub_library();

// The NVRTC source of the sort kernels for one dtype (kKernelPrelude is prepended by the launch).
std::string sort_body(DType d);
// The sort kernel `name` for dtype `d` on `device`, found by a short key (no hash of the source).
CUfunction sort_kernel(DType d, const char* name, int device);

// Whether the radix paths sort `in` (C-contiguous) along lines of n: not for complex128, nor
// for lines too many for CUB's segmented sort, nor without the helper library.
bool radix_sort_handles(const Array& in, int64_t lines);
// The node's outputs from a radix sort of the lines of the C-contiguous `in`.
void radix_sort(SortNode& node, const Array& in, const std::vector<Array>& outs, int64_t n, int64_t lines,
                int64_t inner);

// np.unique's values of the C-contiguous 1-D `in` (not complex): the unique values into the first
// *count elements of `values` (in's size), *count into the 0-d int64 `count`, and, when `counts`
// is not null, how many times each occurs into its first *count int64 elements. equal_nan: every
// NaN is one value.
void radix_unique(const Array& in, const Array& values, const Array& count, const Array* counts, bool equal_nan);

}  // namespace nf::cuda
