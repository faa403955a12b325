// MatmulNode on the CPU, as backend/matmul_plan.h plans it: each operand is passed to gemm with
// its own strides when one of its two last dims is contiguous, and copied to C order only when
// neither is; batch dims broadcast through per-matrix offsets; when b is shared by the whole batch
// and a's batch rows lie evenly spaced, the batch folds into one tall product. Products whose a has
// one row or b one column (A @ x, x @ A, vector . vector) go to BLAS gemv or dot instead, as
// NumPy's matmul does: gemm with one column packs what gemv reads once.
#include <algorithm>
#include <type_traits>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/matmul_plan.h"
#include "numfuse/ir/matmul.h"

namespace nf {

namespace {

// One operand: the input, or its C-order copy, and how the planner sees it. The input is read
// through a pointer, not copied: a copy's two counted references cost ~10% of a small product's
// host time (`out[i] = v @ M[:, i:i+64]` in a loop).
struct Operand {
  const Array* array;
  MatrixStack m;
  bool left = true;
  Array c_order;  // the copy, when made
  Operand(const Array& input, bool is_left) : array(&input), left(is_left) {}
  Operand(const Operand&) = delete;  // `array` may point at its own c_order
  void describe(const Shape& out_batch) {
    m = describe_operand(*array, left, out_batch, blas_limits());
  }
  // Neither of the last two dims is contiguous (or a leading dimension is negative or too small
  // for BLAS): one C-order copy of the whole operand.
  void to_c_order(const Shape& out_batch) {
    c_order = Array::empty(array->shape, array->dtype, Device::cpu());
    cpu::copy_cast(*array, c_order);
    array = &c_order;
    describe(out_batch);
  }
};

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
bool matvec(const Array& out, Operand& A, Operand& B, const Shape& out_batch) {
  const DType dt = out.dtype;
  const int64_t es = static_cast<int64_t>(itemsize(dt));
  MatvecPlan mp;
  MatvecVerdict v = plan_matvec(A.m, B.m, out_batch, &mp);
  if (v == MatvecVerdict::CopyMatrix) {
    (mp.mat_is_a ? A : B).to_c_order(out_batch);  // its rows are then contiguous
    v = plan_matvec(A.m, B.m, out_batch, &mp);
  }
  if (v != MatvecVerdict::Planned) return false;
  const Operand& mat = mp.mat_is_a ? A : B;
  const Operand& vec = mp.mat_is_a ? B : A;
  const GemvPlan& p = mp.gemv;
  const int64_t K = A.m.cols;
  const char* v0 = vec.array->data();
  const char* m0 = mat.array->data();
  char* c0 = out.data();
  auto call = [&](const char* m, const char* x, char* y) {
    if (p.dot)
      return cpu::dot(dt, K, m + p.mat_shift * es, p.mat_inc, x + p.vec_shift * es, p.incx, y);
    return cpu::gemv(dt, p.trans, p.stored_rows, p.stored_cols, m + p.mat_shift * es, p.ld,
                     x + p.vec_shift * es, p.incx, y + p.y_shift * es, p.incy);
  };
  if (mp.folded) return call(m0, v0, c0);
  // Every call has the same sizes and strides, so the first answers for all.
  const int64_t ny = mp.ny;
  if (!call(m0 + mp.mat_off[0] * es, v0 + mp.vec_off[0] * es, c0)) return false;
  for_each_product(
      static_cast<int64_t>(mp.mat_off.size()) - 1, static_cast<double>(ny) * K, [&](int64_t i) {
        call(m0 + mp.mat_off[i + 1] * es, v0 + mp.vec_off[i + 1] * es, c0 + (i + 1) * ny * es);
      });
  return true;
}

}  // namespace

void cpu::eval_matmul(MatmulNode& node, const std::vector<Array>& outs) {
  const NodeVector<Array>& inputs = node.inputs;
  const Array& out = outs[0];
  const DType dt = out.dtype;
  const int64_t es = static_cast<int64_t>(itemsize(dt));
  const Shape out_batch = matmul_out_batch(out.shape, inputs[0].ndim(), inputs[1].ndim());
  const int64_t batch = numel(out_batch);
  if (batch == 0 || out.size() == 0) return;

  Operand A(inputs[0], true), B(inputs[1], false);
  A.describe(out_batch);
  B.describe(out_batch);
  // Tiny products read the operands by their raw strides: no copies, no folding.
  const bool tiny = A.m.rows * A.m.cols * B.m.cols <= kTinyFlops;
  if (!tiny && is_matvec(A.m, B.m) && matvec(out, A, B, out_batch)) return;
  if (!tiny) {
    if (!A.m.usable) A.to_c_order(out_batch);
    if (!B.m.usable) B.to_c_order(out_batch);
  }
  const MatmulPlan plan = plan_matmul(A.m, B.m, out_batch, blas_limits(), !tiny);
  const int64_t M = A.m.rows, K = A.m.cols, N = B.m.cols;
  const char* a0 = A.array->data();
  const char* b0 = B.array->data();
  char* c0 = out.data();
  if (plan.folded) {
    const GemmCall& c = plan.calls[0];
    cpu::gemm(dt, false, plan.trans_b, c.M, N, K, a0, c.lda, b0, plan.ldb, c0, plan.ldc);
    return;
  }
  // Product i is the (i % count)-th of call i / count: the calls split the batch evenly (one
  // call, the usual case, needs no division: tiny products cost little more than one).
  const int64_t count = plan.calls.empty() ? 1 : plan.calls[0].count;
  const bool one_call = plan.calls.size() == 1;
  auto one = [&](int64_t i) {
    const GemmCall& c = one_call ? plan.calls[0] : plan.calls[i / count];
    const int64_t j = one_call ? i : i % count;
    const int64_t oa = c.a_off + j * c.stride_a, ob = c.b_off + j * c.stride_b;
    char* y = c0 + (c.c_off + j * c.stride_c) * es;
    if (tiny) {
      NF_DISPATCH(dt, "matmul", {
        tiny_matmul<scalar_t>(M, N, K, reinterpret_cast<const scalar_t*>(a0) + oa, A.m.rs, A.m.cs,
                              reinterpret_cast<const scalar_t*>(b0) + ob, B.m.rs, B.m.cs,
                              reinterpret_cast<scalar_t*>(y));
      });
      return;
    }
    cpu::gemm(dt, plan.trans_a, plan.trans_b, M, N, K, a0 + oa * es, c.lda, b0 + ob * es, plan.ldb,
              y, plan.ldc);
  };
  for_each_product(batch, static_cast<double>(M) * N * K, one);
}

}  // namespace nf
