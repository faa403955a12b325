// MatmulNode on the CPU: each operand is passed to gemm with its own strides when one of its two
// last dims is contiguous (a transpose flag and a leading dimension say how), and copied to C order
// only when neither is. Batch dims broadcast through per-matrix offsets; when b is shared by the
// whole batch and a's batch rows lie evenly spaced, the batch folds into one tall product.
// Products whose a has one row or b one column (A @ x, x @ A, vector . vector) go to BLAS gemv or
// dot instead, as NumPy's matmul does: gemm with one column packs what gemv reads once.
#include <algorithm>
#include <type_traits>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/gemv_plan.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/gemm_layout.h"
#include "numfuse/ir/matmul.h"

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

// Per-matrix offsets (in elements) of a and b, walking the output's batch in C order.
void batch_offsets(const Shape& out_batch, const Strides& sa, const Strides& sb,
                   std::vector<int64_t>* off_a, std::vector<int64_t>* off_b) {
  const int64_t batch = numel(out_batch);
  off_a->resize(batch);
  off_b->resize(batch);
  const int nb = static_cast<int>(out_batch.size());
  std::vector<int64_t> idx(nb, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < batch; ++i) {
    (*off_a)[i] = oa;
    (*off_b)[i] = ob;
    for (int d = nb - 1; d >= 0; --d) {
      if (++idx[d] < out_batch[d]) {
        oa += sa[d];
        ob += sb[d];
        break;
      }
      oa -= sa[d] * (out_batch[d] - 1);
      ob -= sb[d] * (out_batch[d] - 1);
      idx[d] = 0;
    }
  }
}

// Runs `one(i)` for each of `batch` products of M*N*K multiply-adds. Small products: BLAS would
// run each on one thread anyway, so the batch is spread over the pool instead.
template <class F>
void for_each_product(int64_t batch, double flops, const F& one) {
  if (batch > 1 && flops < 262144.0) {
    const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(65536.0 / (flops + 1)));
    cpu::parallel_for(batch, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < batch; ++i) one(i);
  }
}

// y = Mat v for each product of the batch, where Mat is a (b has one column) or b transposed (a
// has one row), through gemv, or dot when both are vectors. False, with nothing written, when BLAS
// cannot take it (no library, a dtype BLAS lacks, a broadcast vector): the caller uses gemm.
// Mat is copied to C order only when neither of its dims has a unit stride.
bool matvec(const Array& out, MatrixStack& A, MatrixStack& B, const Shape& out_batch) {
  const DType dt = out.dtype;
  const int64_t es = static_cast<int64_t>(itemsize(dt));
  const int64_t M = A.rows, K = A.cols, N = B.cols;
  const bool mat_is_a = N == 1;  // else M == 1: y = B^T a
  MatrixStack& mat = mat_is_a ? A : B;
  MatrixStack& vec = mat_is_a ? B : A;
  auto plan = [&](int64_t rows, int64_t rs, int64_t cs, int64_t vs, cpu::GemvPlan* p) {
    return cpu::plan_gemv(rows, K, rs, cs, vs, p);
  };
  auto plan_batch = [&](cpu::GemvPlan* p) {
    return mat_is_a ? plan(M, A.rs, A.cs, B.rs, p) : plan(N, B.cs, B.rs, A.cs, p);
  };
  cpu::GemvPlan p;
  if (!plan_batch(&p)) {
    const int64_t vs = mat_is_a ? B.rs : A.cs;
    if (K > 1 && vs == 0) return false;
    mat.prepare(mat_is_a, out_batch);  // a C-order copy: its rows are then contiguous
    if (!plan_batch(&p)) return false;
  }
  const char* v0 = vec.array.data();
  const char* m0 = mat.array.data();
  char* c0 = out.data();
  const int64_t ny = mat_is_a ? M : N;
  auto call = [&](const char* m, const char* v, char* y) {
    if (p.dot)
      return cpu::dot(dt, K, m + p.mat_shift * es, p.mat_inc, v + p.vec_shift * es, p.incx, y);
    return cpu::gemv(dt, p.trans, p.stored_rows, p.stored_cols, m + p.mat_shift * es, p.ld,
                     v + p.vec_shift * es, p.incx, y + p.y_shift * es, p.incy);
  };

  // One vector for the whole batch and the matrices' rows evenly spaced: one tall gemv.
  const bool vec_shared =
      std::all_of(vec.bstrides.begin(), vec.bstrides.end(), [](int64_t s) { return s == 0; });
  if (vec_shared && mat_is_a && numel(out_batch) > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (size_t d = 0; d < out_batch.size(); ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.rs});
    int64_t rows = 0, rstride = 0;
    cpu::GemvPlan tall;
    if (collapse(dims, &rows, &rstride) && plan(rows, rstride, A.cs, B.rs, &tall) && !tall.dot) {
      std::swap(p, tall);
      return call(m0, v0, c0);
    }
  }

  std::vector<int64_t> off_m, off_v;
  batch_offsets(out_batch, mat.bstrides, vec.bstrides, &off_m, &off_v);
  // Every call has the same sizes and strides, so the first answers for all.
  if (!call(m0 + off_m[0] * es, v0 + off_v[0] * es, c0)) return false;
  for_each_product(static_cast<int64_t>(off_m.size()) - 1, static_cast<double>(ny) * K,
                   [&](int64_t i) {
                     call(m0 + off_m[i + 1] * es, v0 + off_v[i + 1] * es, c0 + (i + 1) * ny * es);
                   });
  return true;
}

}  // namespace

void cpu::eval_matmul(MatmulNode& node, const std::vector<Array>& outs) {
  const NodeVector<Array>& inputs = node.inputs;
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
  if (!tiny && (A.rows == 1 || B.cols == 1) && matvec(out, A, B, out_batch)) return;
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

  std::vector<int64_t> off_a, off_b;
  batch_offsets(out_batch, A.bstrides, B.bstrides, &off_a, &off_b);
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
  for_each_product(batch, static_cast<double>(M) * N * K, one);
}

}  // namespace nf
