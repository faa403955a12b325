// Launching generated kernels whose only parameter is one struct passed by value.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

// The kernel `name` of the generated source kKernelPrelude + body, compiled with `options` for
// `device`. Looked up by the (short) body first: hashing the ~100 KB prelude on every launch
// would dominate the host time of a small op.
CUfunction generated_kernel(const std::string& body, const std::string& name,
                            const std::vector<std::string>& options, int device);

// Enqueues `fn` on the current stream of `device` with the parameter struct `params`.
void launch(CUfunction fn, int device, unsigned grid, unsigned block, const std::vector<uint8_t>& params);

}  // namespace nf::cuda
