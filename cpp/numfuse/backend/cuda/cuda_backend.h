// The CUDA backend: the driver, NVRTC, cuBLAS and the generated kernels of every node kind
// (nodes_cuda.h). Registered always; available() says whether a driver and a device are here.
#pragma once
#include <memory>

#include "numfuse/backend/backend.h"

namespace nf::cuda {

// The CUDA backend, with its node evaluations registered (backend/registry.cpp calls it once).
// Making it touches no driver: available() is asked later.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace nf::cuda
