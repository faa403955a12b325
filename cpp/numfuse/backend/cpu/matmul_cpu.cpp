// MatmulNode on the CPU: each operand is passed to gemm with its own strides when one of its two
// last dims is contiguous (a transpose flag and a leading dimension say how), and copied to C order
// only when neither is. Batch dims broadcast through per-matrix offsets; when b is shared by the
// whole batch and a's batch rows lie evenly spaced, the batch folds into one tall product.
#include <algorithm>
#include <type_traits>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/gemm_layout.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/ops/linalg.h"

namespace nf {

namespace {

// One operand seen as a stack of matrices broadcast over the output's batch dims.
struct MatrixStack {
  Array array;        // the input, or its C-order copy
  Strides bstrides;   // per output batch dim, in elements (0 where broadcast)
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  bool trans = false;
  int64_t ld = 1;

  // a 1-D left operand is one row (k) -> (1, k); a 1-D right operand one column (k) -> (k, 1).
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
    // Neither of the last two dims is contiguous (or a leading dimension is negative or too
    // small for BLAS): one C-order copy of the whole operand.
    Array c = Array::empty(array.shape, array.dtype, Device::cpu());
    cpu::copy_cast(array, c);
    array = c;
    describe(left, out_batch);
    gemm_layout(rows, cols, rs, cs, &trans, &ld);
  }
};

bool collapse(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n, int64_t* stride) {
  return collapse_dims(dims, n, stride);
}

// The accumulator of a tiny product: as in blas.cpp's built-in loop, float16 sums in float,
// integers wrap (unsigned arithmetic has the same low bits), bool is an OR of ANDs.
template <class T, class Enable = void>
struct Acc {
  using type = compute_t<T>;
};
template <class T>
struct Acc<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
};

// Matrices of a few elements: a direct loop over any strides beats a BLAS call's set-up
// (a batch of 10000 4x4 products took 3x NumPy's time through gemm).
template <class T>
void tiny_matmul(int64_t M, int64_t N, int64_t K, const T* a, int64_t ars, int64_t acs,
                 const T* b, int64_t brs, int64_t bcs, T* c) {
  using acc_t = typename Acc<T>::type;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      if constexpr (std::is_same_v<T, bool>) {
        bool v = false;
        for (int64_t k = 0; k < K && !v; ++k) v = a[i * ars + k * acs] && b[k * brs + j * bcs];
        c[i * N + j] = v;
      } else {
        acc_t v = acc_t(0);
        for (int64_t k = 0; k < K; ++k) {
          v = v + static_cast<acc_t>(a[i * ars + k * acs]) * static_cast<acc_t>(b[k * brs + j * bcs]);
        }
        c[i * N + j] = static_cast<T>(v);
      }
    }
  }
}

constexpr int64_t kTinyFlops = 512;  // M*N*K up to 8x8x8

}  // namespace

void MatmulNode::eval_cpu(const std::vector<Array>& outs) {
  const Array& out = outs[0];
  const DType dt = out.dtype;
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
  const bool tiny = A.rows * A.cols * B.cols <= kTinyFlops;
  if (!tiny) {
    A.prepare(true, out_batch);
    B.prepare(false, out_batch);
  }
  const int64_t M = A.rows, K = A.cols, N = B.cols;
  const char* a0 = A.array.data();
  const char* b0 = B.array.data();
  char* c0 = out.data();
  const int64_t ldc = std::max<int64_t>(1, N);

  // b shared by the whole batch and a's rows evenly spaced across it: one product of
  // (batch * M) x K by K x N, which the output's C order already lays out.
  const bool b_shared = !tiny && std::all_of(B.bstrides.begin(), B.bstrides.end(),
                                    [](int64_t s) { return s == 0; });
  if (b_shared && !A.trans && batch > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (size_t d = 0; d < out_batch.size(); ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.ld});
    int64_t rows = 0, rstride = 0;
    bool trans = false;
    int64_t ld = 0;
    if (collapse(dims, &rows, &rstride) && gemm_layout(rows, K, rstride, A.cs, &trans, &ld) &&
        !trans) {
      cpu::gemm(dt, false, B.trans, rows, N, K, a0, ld, b0, B.ld, c0, ldc);
      return;
    }
  }

  // Per-matrix offsets (in elements) of a and b, walking the batch in C order.
  std::vector<int64_t> off_a(batch), off_b(batch);
  {
    const int nb = static_cast<int>(out_batch.size());
    std::vector<int64_t> idx(nb, 0);
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < batch; ++i) {
      off_a[i] = oa;
      off_b[i] = ob;
      for (int d = nb - 1; d >= 0; --d) {
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
  auto one = [&](int64_t i) {
    if (tiny) {
      NF_DISPATCH(dt, "matmul", {
        tiny_matmul<scalar_t>(M, N, K, reinterpret_cast<const scalar_t*>(a0) + off_a[i], A.rs,
                              A.cs, reinterpret_cast<const scalar_t*>(b0) + off_b[i], B.rs, B.cs,
                              reinterpret_cast<scalar_t*>(c0) + i * M * N);
      });
      return;
    }
    cpu::gemm(dt, A.trans, B.trans, M, N, K, a0 + off_a[i] * es, A.ld, b0 + off_b[i] * es, B.ld,
              c0 + i * M * N * es, ldc);
  };
  // Small matrices: BLAS would run each on one thread anyway, so spread the batch instead.
  const double flops = static_cast<double>(M) * N * K;
  if (batch > 1 && flops < 262144.0) {
    const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(65536.0 / (flops + 1)));
    cpu::parallel_for(batch, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < batch; ++i) one(i);
  }
}

}  // namespace nf
