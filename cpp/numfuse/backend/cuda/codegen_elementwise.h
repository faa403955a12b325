// CUDA source for a fused elementwise group (graph/group_program.h): one kernel per program
// structure. Shapes, strides, pointers and scalar values are kernel parameters, never part of
// the source, so the same structure with other shapes or scalars reuses the compiled kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/graph/group_program.h"

namespace nf::cuda {

// The kernel headers (nf_types.h, scalar_math.h, complex_math.h, scalar_ops.h, philox.h) as
// text, embedded at build time.
extern const char* const kKernelPrelude;

constexpr int kMaxKernelRank = 8;       // coalesced dims of the strided variant
constexpr int kMaxKernelOperands = 48;  // outputs + array leaves

struct ElementwiseKernel {
  std::string body;              // the generated part; the NVRTC source is kKernelPrelude + body
  std::string entry;             // the __global__ function's name
  std::vector<uint8_t> params;   // the bytes of the kernel's single by-value parameter struct
  int64_t n = 0;                 // elements (threads needed = ceil(n / vec))
  int vec = 1;                   // elements per thread in the contiguous variant
};

// Builds the kernel of a program whose leaves and outputs live on the device (0-d host arrays
// become scalar parameters). `device_ptr(i)` is not needed: operand pointers are taken from the
// arrays' data(). Throws NotImplementedError past kMaxKernelRank / kMaxKernelOperands.
ElementwiseKernel generate_elementwise(const GroupProgram& program);

// C++ spelling of a dtype in kernel source: storage ("nf::half") and compute ("float") types.
const char* cuda_storage_type(DType d);
const char* cuda_compute_type(DType d);

}  // namespace nf::cuda
