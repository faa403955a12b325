// The CPU backend: the fused-program interpreter on the thread pool, BLAS, and the CPU kernels of
// every node kind (nodes_cpu.h). Always registered: it is the embedded default.
#pragma once
#include <memory>

#include "numfuse/backend/backend.h"

namespace nf::cpu {

// The CPU backend, with its node evaluations registered (backend/registry.cpp calls it once).
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace nf::cpu
