// Launching generated kernels whose only parameter is one struct passed by value.
#pragma once
#include <cstdint>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

// Enqueues `fn` on the current stream of `device` with the parameter struct `params`.
void launch(CUfunction fn, int device, unsigned grid, unsigned block, const std::vector<uint8_t>& params);

}  // namespace nf::cuda
