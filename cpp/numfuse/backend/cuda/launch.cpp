#include "numfuse/backend/cuda/launch.h"

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/stream.h"

namespace nf::cuda {

void launch(CUfunction fn, int device, unsigned grid, unsigned block, const std::vector<uint8_t>& params) {
  if (grid == 0) return;
  activate(device);
  Stream s = current_stream(device);
  void* args[] = {const_cast<uint8_t*>(params.data())};
  check(driver().LaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, s.handle(), args, nullptr),
        "cuLaunchKernel");
}

}  // namespace nf::cuda
