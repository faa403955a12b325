#include "numfuse/backend/cuda/launch.h"

#include <mutex>
#include <unordered_map>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/stream.h"

namespace nf::cuda {

extern const char* const kKernelPrelude;

CUfunction generated_kernel(const std::string& body, const std::string& name,
                            const std::vector<std::string>& options, int device) {
  static std::mutex m;
  static std::unordered_map<std::string, CUfunction> known;
  std::string key = name;
  key += '\0';
  key += std::to_string(device);
  for (const auto& o : options) (key += '\0') += o;
  (key += '\0') += body;
  {
    std::lock_guard<std::mutex> lock(m);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  CUfunction f = get_kernel(std::string(kKernelPrelude) + body, name, options, device);
  std::lock_guard<std::mutex> lock(m);
  known.emplace(std::move(key), f);
  return f;
}

void launch(CUfunction fn, int device, unsigned grid, unsigned block, const std::vector<uint8_t>& params) {
  if (grid == 0) return;
  activate(device);
  Stream s = current_stream(device);
  void* args[] = {const_cast<uint8_t*>(params.data())};
  check(driver().LaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, s.handle(), args, nullptr),
        "cuLaunchKernel");
}

}  // namespace nf::cuda
