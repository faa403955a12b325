#include "numfuse/backend/cuda/user_kernels.h"

#include <sys/stat.h>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

std::string user_module_arch(int device) {
  // sm_90: the H100 the project measures on; NVRTC's checks do not depend much on the arch.
  if (!cuda_available()) return "sm_90";
  return device_arch(device < 0 ? current_device() : device);
}

namespace {

// CUDA 13 keeps CCCL (<cuda/std/complex>, <cub/...>, <thrust/...>) under include/cccl: users'
// sources include those headers as nvcc finds them, so the folder is on their include path.
std::vector<std::string> with_cccl_includes(std::vector<std::string> options) {
  for (const auto& dir : cuda_include_dirs()) {
    struct stat st {};
    const std::string cccl = dir + "/cccl";
    if (::stat(cccl.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) options.push_back("--include-path=" + cccl);
  }
  return options;
}

}  // namespace

UserModule::UserModule(std::string source, std::vector<std::string> name_expressions,
                       std::vector<std::string> options)
    : source_(std::move(source)), exprs_(std::move(name_expressions)), options_(std::move(options)) {
  for (const auto& e : exprs_) {
    if (e.empty() || e.find('\n') != std::string::npos) {
      throw ValueError("name expressions must be non-empty and on one line, got '" + e + "'");
    }
  }
}

std::shared_ptr<UserModule> UserModule::from_binary(std::string binary, bool is_ptx) {
  auto m = std::make_shared<UserModule>("", std::vector<std::string>{}, std::vector<std::string>{});
  auto k = std::make_shared<CompiledKernel>();
  k->binary = std::move(binary);
  if (is_ptx && (k->binary.empty() || k->binary.back() != '\0')) k->binary.push_back('\0');
  k->is_ptx = is_ptx;
  m->prebuilt_ = std::move(k);
  return m;
}

const CompiledKernel& UserModule::compile(const std::string& arch_in) {
  if (prebuilt_) return *prebuilt_;
  const std::string arch = arch_in.empty() ? user_module_arch() : arch_in;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_arch_.find(arch);
    if (it != by_arch_.end()) return *it->second;
  }
  // The name expressions travel one a line as the cache's kernel name (nvrtc.h).
  std::string names;
  for (size_t i = 0; i < exprs_.size(); ++i) (i ? names += '\n' : names) += exprs_[i];
  auto compiled = compiled_kernel(source_, names, arch, with_cccl_includes(options_));
  std::lock_guard<std::mutex> lock(mutex_);
  return *by_arch_.emplace(arch, std::move(compiled)).first->second;
}

std::string UserModule::lowered_name(const std::string& name, const std::string& arch) {
  size_t index = 0;
  while (index < exprs_.size() && exprs_[index] != name) ++index;
  if (index == exprs_.size()) return name;
  const std::string& all = compile(arch).lowered_name;
  size_t start = 0;
  for (size_t i = 0; i < index; ++i) start = all.find('\n', start) + 1;
  size_t end = all.find('\n', start);
  return all.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

CUfunction UserModule::function(const std::string& lowered, int device) {
  if (device < 0) device = current_device();
  check_device(device);
  const CompiledKernel& k = compile(device_arch(device));
  activate(device);
  const DriverApi& d = driver();
  CUmodule module = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = loaded_.find(device);
    if (it != loaded_.end()) {
      module = it->second;
    } else {
      check(d.ModuleLoadData(&module, k.binary.c_str()), "cuModuleLoadData");
      loaded_.emplace(device, module);
    }
  }
  CUfunction f = nullptr;
  CUresult r = d.ModuleGetFunction(&f, module, lowered.c_str());
  if (r != CUDA_SUCCESS) {
    throw CUDAError("the module has no kernel '" + lowered + "' (" + error_text(r) +
                    "): a C++ kernel needs extern \"C\" or a name expression");
  }
  return f;
}

void launch_user_kernel(CUfunction f, int device, Dim3 grid, Dim3 block, unsigned shared_mem,
                        const Stream* stream, void** params, bool cooperative) {
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) {
    throw ValueError("a kernel launch needs every grid and block extent >= 1, got grid (" +
                     std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ") and block (" + std::to_string(block.x) + ", " +
                     std::to_string(block.y) + ", " + std::to_string(block.z) + ")");
  }
  Stream s;
  if (stream) {
    // An explicit stream joins numfuse's ordering as the current one would.
    push_stream(*stream);
    try {
      s = enqueue_stream(stream->device());
    } catch (...) {
      pop_stream();
      throw;
    }
    pop_stream();
  } else {
    s = enqueue_stream(device);
  }
  const DriverApi& d = driver();
  CUresult r = cooperative
                   ? d.LaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                               shared_mem, s.handle(), params)
                   : d.LaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_mem,
                                    s.handle(), params, nullptr);
  if (r != CUDA_SUCCESS) {
    throw CUDAError(std::string(cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel") +
                    " failed with grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) +
                    ", " + std::to_string(grid.z) + "), block (" + std::to_string(block.x) + ", " +
                    std::to_string(block.y) + ", " + std::to_string(block.z) + "), shared_mem " +
                    std::to_string(shared_mem) + ": " + error_text(r));
  }
}

int function_attribute(CUfunction f, int attribute) {
  int v = 0;
  check(driver().FuncGetAttribute(&v, static_cast<CUfunction_attribute>(attribute), f),
        "cuFuncGetAttribute");
  return v;
}

void set_function_attribute(CUfunction f, int attribute, int value) {
  check(driver().FuncSetAttribute(f, static_cast<CUfunction_attribute>(attribute), value),
        "cuFuncSetAttribute");
}

}  // namespace nf::cuda
