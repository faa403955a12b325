// MatmulNode on a CUDA device. float16/32/64 and complex go to cuBLAS with the operand handling of
// the CPU path (backend/cpu/matmul_cpu.cpp): each operand is passed with its own strides when one
// of its two last dims is contiguous (a transpose flag and a leading dimension say how) and copied
// to C order on the device only when neither is; batch dims broadcast through strided-batched
// calls, and when b is shared by the whole batch and a's rows lie evenly spaced the batch folds
// into one tall product. Integers and bool go to a generated tiled kernel that reads any strides.
#include <algorithm>
#include <climits>

#include "numfuse/backend/cuda/codegen_matmul.h"
#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/linalg.h"

namespace nf {

namespace {

// As the CPU's gemm_layout, with cuBLAS's int limit on the leading dimension: how gemm reads a
// rows x cols matrix whose element (r, c) lies r*rs + c*cs elements from the first.
bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) {
    *trans = false;
    *ld = rows <= 1 ? std::max<int64_t>(1, cols) : rs;
    return *ld <= INT_MAX;
  }
  if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) {
    *trans = true;
    *ld = cols <= 1 ? std::max<int64_t>(1, rows) : cs;
    return *ld <= INT_MAX;
  }
  return false;
}

// One operand seen as a stack of matrices broadcast over the output's batch dims.
struct MatrixStack {
  Array array;       // the input, or its C-order copy on the device
  Strides bstrides;  // per output batch dim, in elements (0 where broadcast)
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  bool trans = false;
  int64_t ld = 1;

  // A 1-D left operand is one row (k) -> (1, k); a 1-D right operand one column (k) -> (k, 1).
  void describe(bool left, const Shape& out_batch) {
    const Array& x = array;
    const int nd = x.ndim();
    if (nd == 1) {
      rows = left ? 1 : x.shape[0];
      cols = left ? x.shape[0] : 1;
      rs = left ? 0 : x.strides[0];
      cs = left ? x.strides[0] : 0;
      bstrides.assign(out_batch.size(), 0);
      return;
    }
    rows = x.shape[nd - 2];
    cols = x.shape[nd - 1];
    rs = x.strides[nd - 2];
    cs = x.strides[nd - 1];
    const Shape bshape(x.shape.begin(), x.shape.end() - 2);
    const Strides bstr(x.strides.begin(), x.strides.end() - 2);
    bstrides = broadcast_strides(bshape, bstr, out_batch);
  }

  void prepare(bool left, const Shape& out_batch) {
    describe(left, out_batch);
    if (gemm_layout(rows, cols, rs, cs, &trans, &ld)) return;
    // Neither of the last two dims is contiguous (or a leading dimension is negative or past
    // cuBLAS's int): one C-order copy of the whole operand, on the device, on the same stream.
    Array c = Array::empty(array.shape, array.dtype, array.device());
    cuda::copy_on_device(array, c);
    array = c;
    describe(left, out_batch);
    gemm_layout(rows, cols, rs, cs, &trans, &ld);
  }
};

// A run of (size, stride) dims, outermost first, as one (size, stride) dim if evenly spaced with
// a stride cuBLAS takes (>= 0).
bool collapse(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n, int64_t* stride) {
  int64_t total = 1, inner_stride = 0, expect = 0;
  bool have = false;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->first == 1) continue;
    if (!have) {
      inner_stride = it->second;
      have = true;
    } else if (it->second != expect) {
      return false;
    }
    total *= it->first;
    expect = it->second * it->first;
  }
  *n = total;
  *stride = have ? inner_stride : 0;
  return *stride >= 0;
}

// Integer and bool products: one launch of the generated kernel over the whole batch.
void int_matmul(const Array& out, const MatrixStack& A, const MatrixStack& B, const Shape& out_batch,
                int64_t batch, int device) {
  cuda::IntGemmParams p{};
  p.a = A.array.data();
  p.b = B.array.data();
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
      cuda::get_kernel(cuda::int_gemm_kernel_source(out.dtype), "nf_int_gemm", options, device);
  void* args[] = {&p};
  cuda::check(cuda::driver().LaunchKernel(f, gx, gy, gz, t, t, 1, 0, s.handle(), args, nullptr),
              "cuLaunchKernel");
}

}  // namespace

void MatmulNode::eval_cuda(const std::vector<Array>& outs) {
  const Array& out = outs[0];
  const DType dt = out.dtype;
  const int dev = device.index;
  const int64_t es = static_cast<int64_t>(itemsize(dt));
  const int core = (inputs[0].ndim() >= 2 ? 1 : 0) + (inputs[1].ndim() >= 2 ? 1 : 0);
  const Shape out_batch(out.shape.begin(), out.shape.end() - core);
  const int64_t batch = numel(out_batch);
  if (batch == 0 || out.size() == 0) return;

  MatrixStack A, B;
  A.array = inputs[0];
  B.array = inputs[1];
  A.describe(true, out_batch);
  B.describe(false, out_batch);
  if (A.cols == 0) {  // k == 0: a sum of nothing
    const unsigned char zero[16] = {};
    cuda::fill(out, zero);
    return;
  }
  if (!cuda::cublas_supports(dt)) {
    int_matmul(out, A, B, out_batch, batch, dev);
    return;
  }
  A.prepare(true, out_batch);
  B.prepare(false, out_batch);
  const int64_t M = A.rows, K = A.cols, N = B.cols;
  const char* a0 = A.array.data();
  const char* b0 = B.array.data();
  char* c0 = out.data();
  const int64_t ldc = std::max<int64_t>(1, N);
  const int nb = static_cast<int>(out_batch.size());

  // b shared by the whole batch and a's rows evenly spaced across it: one (batch*M) x K by K x N
  // product, which the output's C order already lays out.
  const bool b_shared = std::all_of(B.bstrides.begin(), B.bstrides.end(), [](int64_t s) { return s == 0; });
  if (b_shared && !A.trans && batch > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (int d = 0; d < nb; ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.ld});
    int64_t rows = 0, rstride = 0, ld = 0;
    bool trans = false;
    if (collapse(dims, &rows, &rstride) && gemm_layout(rows, K, rstride, A.cs, &trans, &ld) && !trans) {
      cuda::gemm(dt, false, B.trans, rows, N, K, a0, ld, b0, B.ld, c0, ldc, dev);
      return;
    }
  }

  // The longest run of trailing batch dims over which both a and b are evenly spaced goes to one
  // strided-batched call; the leading dims (rarely any) are walked here.
  int split = nb;
  int64_t count = 1, sa = 0, sb = 0;
  for (int s = 0; s <= nb; ++s) {
    std::vector<std::pair<int64_t, int64_t>> da, db;
    for (int d = s; d < nb; ++d) {
      da.push_back({out_batch[d], A.bstrides[d]});
      db.push_back({out_batch[d], B.bstrides[d]});
    }
    int64_t na = 0, nbb = 0;
    if (collapse(da, &na, &sa) && collapse(db, &nbb, &sb)) {
      split = s;
      count = na;
      break;
    }
  }
  const int64_t outer = batch / count;
  std::vector<int64_t> idx(split, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < outer; ++i) {
    cuda::gemm_strided_batched(dt, A.trans, B.trans, M, N, K, a0 + oa * es, A.ld, sa, b0 + ob * es,
                               B.ld, sb, c0 + i * count * M * N * es, ldc, M * N, count, dev);
    for (int d = split - 1; d >= 0; --d) {  // next leading index, in C order
      if (++idx[d] < out_batch[d]) {
        oa += A.bstrides[d];
        ob += B.bstrides[d];
        break;
      }
      oa -= A.bstrides[d] * (out_batch[d] - 1);
      ob -= B.bstrides[d] * (out_batch[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace nf
