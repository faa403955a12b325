// ReduceNode on a CUDA device: a generated kernel (codegen_reduce.h), one or two passes.
#include <algorithm>
#include <cstring>

#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/backend/cuda/reduce_cuda.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/ir/reduce.h"

namespace nf {

void cuda::eval_reduce(ReduceNode& node, const std::vector<Array>& outs) {
  const NodeVector<Array>& inputs = node.inputs;
  const Device device = node.device;
  const ReduceSpec& spec = node.spec;
  const Array& in = inputs[0];
  const int dev = device.index;
  const int sms = cuda::device_properties(dev).multiprocessor_count;
  cuda::ReducePlan plan = cuda::plan_reduce(spec, in, sms);
  cuda::ReduceKernel k = cuda::generate_reduce(spec, in, plan, node.fp_state);
  std::shared_ptr<Buffer> partials;
  if (k.partial_bytes) partials = cuda::allocate_device_buffer(k.partial_bytes, dev);
  cuda::set_reduce_pointers(k, in.data(), outs[0].data(), partials ? partials->data() : nullptr);
  if (unsigned* words = cuda::fp_words_for_launch(dev, k.fp)) {
    std::memcpy(k.params.data() + k.fp_param_offset, &words, sizeof words);
  }
  cuda::CUfunction main_fn = cuda::generated_kernel(k.body, "nf_reduce_main", {"-std=c++17", "--fmad=false"}, dev);
  // One launch (or pair) for `nout` outputs of the parameters as they stand.
  auto run = [&](int64_t nout) {
    if (plan.warp_per_output) {
      cuda::launch(main_fn, dev, static_cast<unsigned>((nout * 32 + 255) / 256), 256, k.params);
      return;
    }
    if (plan.thread_per_output) {
      int64_t blocks = std::min<int64_t>((nout + 255) / 256, int64_t(sms) * 32);
      cuda::launch(main_fn, dev, static_cast<unsigned>(blocks), 256, k.params);
      return;
    }
    cuda::launch(main_fn, dev, static_cast<unsigned>(nout * plan.blocks_per_output), 256, k.params);
    if (plan.blocks_per_output > 1) {
      cuda::CUfunction second =
          cuda::generated_kernel(k.body, "nf_reduce_partials", {"-std=c++17", "--fmad=false"}, dev);
      cuda::launch(second, dev, static_cast<unsigned>(nout), 256, k.params);
    }
  };
  if (plan.rows_per_piece == 0) {
    run(plan.nout);
    return;
  }
  // A space past 32-bit indices: pieces of the outermost kept dim, one after another on the
  // stream (they share the partials' scratch).
  for (int64_t row0 = 0; row0 < plan.kept_shape[0]; row0 += plan.rows_per_piece) {
    const int64_t rows = std::min(plan.rows_per_piece, plan.kept_shape[0] - row0);
    run(cuda::set_reduce_piece(k, plan, in, outs[0], row0, rows));
  }
}

}  // namespace nf

namespace nf::cuda {

void run_reduction_program_cuda(const ReduceSpec& spec, const GroupProgram& prologue, const Array& out,
                                const GroupProgram* epilogue, const Storage* result, FpState state) {
  const int dev = prologue.device.index;
  const int sms = device_properties(dev).multiprocessor_count;
  FusedReduceKernel k = generate_reduce_fused(spec, prologue, sms, epilogue, result, state);
  std::shared_ptr<Buffer> partials;
  if (k.partial_bytes) partials = allocate_device_buffer(k.partial_bytes, dev);
  set_fused_reduce_pointers(k, out.data(), partials ? partials->data() : nullptr);
  if (unsigned* words = fp_words_for_launch(dev, k.fp)) {
    std::memcpy(k.params.data() + k.fp_param_offset, &words, sizeof words);
  }
  const std::vector<std::string> opts = {"-std=c++17", "--fmad=false"};
  CUfunction main_fn = generated_kernel(k.body, "nf_reduce_main", opts, dev);
  const ReducePlan& plan = k.plan;
  auto run = [&](int64_t nout) {
    if (plan.warp_per_output) {
      launch(main_fn, dev, static_cast<unsigned>((nout * 32 + 255) / 256), 256, k.params);
      return;
    }
    if (plan.thread_per_output) {
      int64_t blocks = std::min<int64_t>((nout + 255) / 256, int64_t(sms) * 32);
      launch(main_fn, dev, static_cast<unsigned>(blocks), 256, k.params);
      return;
    }
    launch(main_fn, dev, static_cast<unsigned>(nout * plan.blocks_per_output), 256, k.params);
    if (plan.blocks_per_output > 1) {
      launch(generated_kernel(k.body, "nf_reduce_partials", opts, dev), dev, static_cast<unsigned>(nout),
             256, k.params);
    }
  };
  if (plan.rows_per_piece == 0) {
    run(plan.nout);
    return;
  }
  // Past 32-bit indices: pieces of rows of the outermost kept dim, in order on the stream.
  for (int64_t row0 = 0; row0 < plan.kept_shape[0]; row0 += plan.rows_per_piece) {
    run(set_fused_reduce_piece(k, out, row0, std::min(plan.rows_per_piece, plan.kept_shape[0] - row0)));
  }
}

}  // namespace nf::cuda
