// MatmulNode on a CUDA device: float16/32/64 and complex through cuBLAS as backend/matmul_plan.h
// plans it
// (operands copied to C order on the device only when neither of their last two dims is
// contiguous); integers and bool through a generated tiled kernel that reads any strides.
#include <algorithm>

#include "numfuse/backend/cuda/codegen_matmul.h"
#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/matmul_plan.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/matmul.h"

namespace nf {

namespace {

// Integer and bool products: one launch of the generated kernel over the whole batch.
void int_matmul(const Array& out, const Array& a, const Array& b, const MatrixStack& A,
                const MatrixStack& B, const Shape& out_batch, int64_t batch, int device) {
  cuda::IntGemmParams p{};
  p.a = a.data();
  p.b = b.data();
  p.c = out.data();
  p.M = A.rows;
  p.K = A.cols;
  p.N = B.cols;
  p.batch = batch;
  p.ars = A.rs;
  p.acs = A.cs;
  p.brs = B.rs;
  p.bcs = B.cs;
  int nb = 0;
  for (size_t d = 0; d < out_batch.size(); ++d) {
    if (out_batch[d] == 1) continue;  // unit dims add nothing to any offset
    if (nb == cuda::kIntGemmMaxBatchDims) {
      throw NotImplementedError("integer matmul on CUDA with more than " +
                                std::to_string(cuda::kIntGemmMaxBatchDims) + " batch dimensions");
    }
    p.bshape[nb] = out_batch[d];
    p.abstride[nb] = A.bstrides[d];
    p.bbstride[nb] = B.bstrides[d];
    ++nb;
  }
  p.nbatch = nb;
  const int64_t t = cuda::kIntGemmTile;
  const unsigned gx = static_cast<unsigned>(std::clamp<int64_t>((p.N + t - 1) / t, 1, 65535));
  const unsigned gy = static_cast<unsigned>(std::clamp<int64_t>((p.M + t - 1) / t, 1, 65535));
  const unsigned gz = static_cast<unsigned>(std::clamp<int64_t>(batch, 1, 65535));
  static const std::vector<std::string> options = {"-std=c++17"};
  cuda::Stream s = cuda::enqueue_stream(device);
  cuda::CUfunction f =
      cuda::generated_kernel(cuda::int_gemm_kernel_body(out.dtype), "nf_int_gemm", options, device);
  void* args[] = {&p};
  cuda::check(cuda::driver().LaunchKernel(f, gx, gy, gz, t, t, 1, 0, s.handle(), args, nullptr),
              "cuLaunchKernel");
}

// A C-order copy of x on its device, on the stream the products use.
Array c_order_copy(const Array& x) {
  Array c = Array::empty(x.shape, x.dtype, x.device());
  cuda::copy_on_device(x, c);
  return c;
}

}  // namespace

void cuda::eval_matmul(MatmulNode& node, const std::vector<Array>& outs) {
  const NodeVector<Array>& inputs = node.inputs;
  const Device device = node.device;
  const Array& out = outs[0];
  const DType dt = out.dtype;
  const int dev = device.index;
  const int64_t es = static_cast<int64_t>(itemsize(dt));
  Array a = inputs[0], b = inputs[1];
  const Shape out_batch = matmul_out_batch(out.shape, a.ndim(), b.ndim());
  const int64_t batch = numel(out_batch);
  if (batch == 0 || out.size() == 0) return;
  const GemmLimits lim = cublas_limits();
  MatrixStack A = describe_operand(a, true, out_batch, lim);
  MatrixStack B = describe_operand(b, false, out_batch, lim);
  if (A.cols == 0) {  // k == 0: a sum of nothing
    const unsigned char zero[16] = {};
    cuda::fill(out, zero);
    return;
  }
  if (!cuda::cublas_supports(dt)) {
    int_matmul(out, a, b, A, B, out_batch, batch, dev);
    return;
  }
  // The copies are freed on the stream they were made on, after the products enqueued there.
  if (!A.usable) A = describe_operand(a = c_order_copy(a), true, out_batch, lim);
  if (!B.usable) B = describe_operand(b = c_order_copy(b), false, out_batch, lim);
  const MatmulPlan plan = plan_matmul(A, B, out_batch, lim);
  const char* a0 = a.data();
  const char* b0 = b.data();
  char* c0 = out.data();
  for (const GemmCall& c : plan.calls) {
    cuda::gemm_strided_batched(dt, plan.trans_a, plan.trans_b, c.M, plan.N, plan.K, a0 + c.a_off * es,
                               c.lda, c.stride_a, b0 + c.b_off * es, plan.ldb, c.stride_b,
                               c0 + c.c_off * es, plan.ldc, c.stride_c, c.count, dev);
  }
}

}  // namespace nf
