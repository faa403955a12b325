// RandomNode on a CUDA device: one grid-stride launch of the generated kernel (codegen_random.h).
#include <algorithm>

#include "numfuse/backend/cuda/codegen_random.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/ops/random.h"

namespace nf {

void RandomNode::eval_cuda(const std::vector<Array>& outs) {
  const Array& o = outs[0];
  const int64_t n = o.size();
  if (n == 0) return;
  const int dev = device.index;
  // No FMA contraction, as for the elementwise kernels: philox.h rounds its uniforms'
  // multiply-add with explicit intrinsics, and the rest must not be fused either.
  static const std::vector<std::string> options = {"-std=c++17", "--fmad=false"};
  cuda::RandomParams p = cuda::random_params(spec, o.data(), n);
  constexpr int64_t kThreads = 256;
  const int64_t cap = int64_t(std::max(1, cuda::device_properties(dev).multiprocessor_count)) * 16;
  const unsigned grid = static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, cap));
  cuda::Stream s = cuda::enqueue_stream(dev);
  cuda::CUfunction f =
      cuda::generated_kernel(cuda::random_kernel_body(spec.dist, o.dtype), "nf_random", options, dev);
  void* args[] = {&p};
  cuda::check(cuda::driver().LaunchKernel(f, grid, 1, 1, kThreads, 1, 1, 0, s.handle(), args, nullptr),
              "cuLaunchKernel");
}

}  // namespace nf
