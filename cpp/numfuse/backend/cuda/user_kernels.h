// Kernels written by users in CUDA C++ (RawKernel, RawModule, SourceModule, and the sources the
// Python translator emits): compiled by NVRTC through the process kernel cache (memory and disk,
// as generated kernels), loaded once per device, and launched with the caller's grid, block,
// dynamic shared memory and stream, ordered with numfuse's own work on that device.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/backend/cuda/nvrtc.h"
#include "numfuse/backend/cuda/stream.h"

namespace nf::cuda {

// The architecture a user module is compiled for: the device's when CUDA is usable, else sm_90
// (so that compile errors, name expressions and lowered names are found without a GPU).
std::string user_module_arch(int device = -1);

// A user's CUDA C++ source with its name expressions (template instances, C++ names): compiled
// at most once per architecture, its module loaded at most once per device.
class UserModule {
 public:
  UserModule(std::string source, std::vector<std::string> name_expressions,
             std::vector<std::string> options);

  // A module of an already compiled cubin or PTX (RawModule(path=...), a translator's binary):
  // its kernels are found by their symbol names.
  static std::shared_ptr<UserModule> from_binary(std::string binary, bool is_ptx);

  // Compiles for `arch` ("" = user_module_arch()) unless done; throws CompileError with NVRTC's
  // log and the numbered source.
  const CompiledKernel& compile(const std::string& arch = "");
  // The symbol of `name`: its lowered name when it is one of the name expressions (compiling
  // first), else `name` itself (an extern "C" kernel).
  std::string lowered_name(const std::string& name, const std::string& arch = "");
  // The loaded function `lowered` on `device` (-1: current), loading the module there once.
  CUfunction function(const std::string& lowered, int device = -1);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& name_expressions() const { return exprs_; }
  const std::vector<std::string>& options() const { return options_; }

 private:
  std::string source_;
  std::vector<std::string> exprs_;
  std::vector<std::string> options_;
  std::shared_ptr<const CompiledKernel> prebuilt_;  // set by from_binary
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> by_arch_;
  std::unordered_map<int, CUmodule> loaded_;  // per device; unloaded never (functions escape)
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Enqueues `f` on `stream` (nullptr: the current stream of `device`), after numfuse's earlier
// work on the device (enqueue_stream's ordering). `params` is cuLaunchKernel's array of pointers
// to each argument. Throws ValueError for a grid or block with a zero extent, CUDAError when the
// launch fails (naming the grid, block and shared memory).
void launch_user_kernel(CUfunction f, int device, Dim3 grid, Dim3 block, unsigned shared_mem,
                        const Stream* stream, void** params, bool cooperative = false);

// cuFuncGetAttribute / cuFuncSetAttribute.
int function_attribute(CUfunction f, int attribute);
void set_function_attribute(CUfunction f, int attribute, int value);

}  // namespace nf::cuda
