// The GPU kernel of a RandomNode: element i of the C-ordered output from Philox block
// (offset + i), through the same per-element functions as the CPU (kernels/philox.h, embedded in
// the kernel prelude), so both backends give the same numbers: integers and uniforms bit for bit,
// normals to the ulps of CUDA's log/cos against the host's. The source depends on the
// distribution and the dtype only; seed, stream, offset, parameters and size are kernel arguments.
#pragma once
#include <string>

#include "numfuse/core/dtype.h"
#include "numfuse/ops/random.h"

namespace nf::cuda {

// The kernel's one by-value parameter; the same text is compiled into the kernel source.
#define NF_RANDOM_PARAMS_BODY      \
  {                                \
    void* out;                     \
    long long n;                   \
    unsigned long long seed;       \
    unsigned long long stream;     \
    unsigned long long offset;     \
    double a;                      \
    double b;                      \
    unsigned long long low;        \
    unsigned long long range;      \
  }
struct RandomParams NF_RANDOM_PARAMS_BODY;

// The generated body of the kernel "nf_random" for one distribution and output dtype (the NVRTC
// source is kKernelPrelude + body). Throws TypeError for a dtype the distribution does not
// produce (as random() would have).
std::string random_kernel_body(RandomDist dist, DType dt);

// The kernel's arguments for a draw of n elements into `out` (a device address).
RandomParams random_params(const RandomSpec& spec, void* out, int64_t n);

}  // namespace nf::cuda
