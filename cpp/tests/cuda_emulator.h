// Runs generated CUDA kernels on the CPU, to check their index arithmetic and synchronisation on a
// machine without a GPU: the body is compiled by the host C++ compiler together with the kernel
// prelude and a small emulation of the CUDA built-ins (threadIdx, __syncthreads, __shared__, the
// 64-bit atomics), and each block runs as a group of std::threads, one block after another.
//
// Opt-in, since it compiles at run time: NUMFUSE_EMULATE_CUDA=<repository root> (the folder holding
// cpp/); CXX names the compiler (default g++).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nf::test {

// The repository root from NUMFUSE_EMULATE_CUDA, or "" when emulation is not asked for.
std::string emulation_root();

// Launches `entry` of `body` (the generated part of a kernel source, whose kernels take one
// parameter struct named `params_type`, the bytes `params`) on `grid` blocks of `block` threads.
// `entries` lists every __global__ function of the body. Throws std::runtime_error when the body
// does not compile or the struct's size differs from params.size().
void emulate_launch(const std::string& body, const std::string& params_type, const std::vector<std::string>& entries,
                    const std::string& entry, unsigned grid, unsigned block, const std::vector<uint8_t>& params);

}  // namespace nf::test
