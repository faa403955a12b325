// The CUDA backend: the driver, NVRTC, cuBLAS and the generated kernels of every node kind
// (nodes_cuda.h). Registered always; available() says whether a driver and a device are here.
#pragma once
#include <memory>

#include "numfuse/backend/backend.h"

namespace nf::cuda {

std::unique_ptr<Backend> make_cuda_backend();

}  // namespace nf::cuda
