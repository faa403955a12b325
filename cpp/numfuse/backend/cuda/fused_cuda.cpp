#include "numfuse/backend/cuda/fused_cuda.h"

#include <cstring>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

// No FMA contraction: NumPy rounds after every operation, and x*y + z contracted into one fma
// differed from it by an ulp (more after cancellation) on the H100.
const std::vector<std::string>& kernel_options() {
  static const std::vector<std::string> opts = {"-std=c++17", "--fmad=false"};
  return opts;
}

int device_of(const GroupProgram& p) {
  if (p.device.is_cpu()) throw ValueError("run_program_cuda: the program is on the CPU");
  return p.device.index;
}

// A one-step Copy program: src (broadcast, cast) -> dst.
GroupProgram copy_program(const Array& src, const Array& dst, FpState cast_state = 0) {
  GroupProgram p;
  p.shape = dst.shape;
  p.device = dst.device();
  p.leaves = {src};
  ElementwiseOp op{ElementwiseOp::Kind::Copy, UFunc::Add, {dst.dtype}, {dst.dtype}};
  p.steps.push_back({nullptr, op, {ProgramValue{0}}, cast_state});
  p.outputs.push_back({ProgramValue{-1, 0, 0}, dst});
  return p;
}

}  // namespace

void run_program_cuda(const GroupProgram& program) {
  const int device = device_of(program);
  if (numel(program.shape) == 0) return;
  for (const Array& leaf : program.leaves) {
    if (leaf.device().is_cpu() && leaf.ndim() != 0) {
      throw ValueError("arrays are on different devices: cpu and " + program.device.str());
    }
  }
  ElementwiseKernel k = plan_elementwise(program);
  if (k.n == 0) return;
  CUfunction f = keyed_kernel(k.key, "nf_fused", kernel_options(), device,
                              [&] { return elementwise_body(program, k); });
  unsigned* words = fp_words_for_launch(device, k.fp);
  if (words) std::memcpy(k.params.data() + k.fp_param_offset, &words, sizeof words);
  launch(f, device, grid_for((k.n + k.vec - 1) / k.vec, device), kLaunchThreads, k.params);
  // The further pieces of a space past 32-bit indices: the same kernel, one launch each.
  for (ElementwiseLaunch& piece : k.more) {
    if (words) std::memcpy(piece.params.data() + k.fp_param_offset, &words, sizeof words);
    launch(f, device, grid_for((piece.n + k.vec - 1) / k.vec, device), kLaunchThreads,
           piece.params);
  }
}

void copy_on_device(const Array& src, const Array& dst, FpState cast_state) {
  if (dst.size() == 0) return;
  const int device = dst.device().index;
  if (src.device() == dst.device() && src.dtype == dst.dtype && src.shape == dst.shape &&
      src.c_contiguous() && dst.c_contiguous()) {
    Stream s = enqueue_stream(device);
    check(driver().MemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst.data()),
                                   reinterpret_cast<CUdeviceptr>(src.data()), dst.nbytes(), s.handle()),
          "cuMemcpyDtoDAsync");
    return;
  }
  run_program_cuda(copy_program(src, dst, src.dtype == dst.dtype ? 0 : cast_state));
}

void fill(const Array& out, const void* value) {
  if (out.size() == 0) return;
  const int device = out.device().index;
  const size_t size = out.itemsize();
  bool zero = true;
  for (size_t i = 0; i < size; ++i) zero &= static_cast<const unsigned char*>(value)[i] == 0;
  if (zero && out.c_contiguous()) {
    Stream s = enqueue_stream(device);
    check(driver().MemsetD8Async(reinterpret_cast<CUdeviceptr>(out.data()), 0, out.nbytes(), s.handle()),
          "cuMemsetD8Async");
    return;
  }
  run_program_cuda(copy_program(Array::scalar(value, out.dtype), out));
}

}  // namespace nf::cuda
