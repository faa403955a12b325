// The GPU matmul of the dtypes cuBLAS does not take (integers and bool): a generated NVRTC kernel,
// 16x16 output tiles staged through shared memory, any operand strides, batch dims broadcast by
// strides. Correct rather than fast. Each element is computed as NumPy does: integers wrap (the
// sum runs in an unsigned type of at least 32 bits, whose low bits are the wrapped result), bool
// is an OR of ANDs.
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/core/dtype.h"

namespace nf::cuda {

constexpr int kIntGemmTile = 16;
constexpr int kIntGemmMaxBatchDims = 8;

// The kernel's one by-value parameter. The same text is compiled into the kernel source
// (NF_INT_GEMM_PARAMS_BODY is stringified there), so host and device layouts agree by definition.
// Strides are in elements; C is contiguous (batch, M, N).
#define NF_INT_GEMM_PARAMS_BODY                                  \
  {                                                              \
    const void* a;                                               \
    const void* b;                                               \
    void* c;                                                     \
    long long M, N, K, batch;                                    \
    long long ars, acs, brs, bcs;                                \
    long long nbatch;                                            \
    long long bshape[8];                                         \
    long long abstride[8];                                       \
    long long bbstride[8];                                       \
  }
struct IntGemmParams NF_INT_GEMM_PARAMS_BODY;

// The generated body of the kernel "nf_int_gemm" for an integer or bool dtype (the NVRTC source is
// kKernelPrelude + body; launch.h's generated_kernel compiles it). Depends on the dtype only.
std::string int_gemm_kernel_body(DType dt);

}  // namespace nf::cuda
