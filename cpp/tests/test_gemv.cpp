// nf::plan_gemv + gemv/dot against a naive sum, over seeded random sizes and strides of
// either sign (the matrix transposed or not, reversed rows or columns, stepped vectors). Without a
// BLAS library (NUMFUSE_BLAS_LIBRARY=none) gemv and dot must refuse, writing nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/matmul_plan.h"
#include "numfuse/core/array.h"
#include "numfuse/core/dtype.h"
#include "numfuse/ops/linalg.h"

namespace {

using nf::DType;

template <class T>
struct Traits;
template <>
struct Traits<double> {
  static constexpr DType dt = DType::Float64;
  static double re(double v) { return v; }
  static double im(double) { return 0; }
  static double make(double re, double) { return re; }
};
template <>
struct Traits<nf::complex64> {
  static constexpr DType dt = DType::Complex64;
  static double re(nf::complex64 v) { return v.re; }
  static double im(nf::complex64 v) { return v.im; }
  static nf::complex64 make(double re, double im) {
    return nf::complex64(static_cast<float>(re), static_cast<float>(im));
  }
};

// One random case: y (rows) = Mat (rows x cols, strides rs, cs) v (cols, stride vs), all views
// of dense buffers whose first logical element sits wherever the strides need it.
template <class T>
void run_case(std::mt19937_64& rng, double tol) {
  using Tr = Traits<T>;
  std::uniform_int_distribution<int64_t> size(1, 70);
  const int64_t rows = size(rng), cols = size(rng);
  const int64_t pad = rng() % 3;
  const bool col_major = rng() % 2;
  const int64_t rsign = rng() % 2 ? -1 : 1, csign = rng() % 2 ? -1 : 1;
  const int64_t rs = rsign * (col_major ? 1 : cols + pad);
  const int64_t cs = csign * (col_major ? rows + pad : 1);
  const int64_t vs = std::vector<int64_t>{1, -1, 2, -3}[rng() % 4];
  // Buffers big enough for the extents; the base is moved past the negative strides.
  const int64_t mext = (rows - 1) * std::abs(rs) + (cols - 1) * std::abs(cs) + 1;
  const int64_t vext = (cols - 1) * std::abs(vs) + 1;
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> mbuf(mext), vbuf(vext);
  for (auto& e : mbuf) e = Tr::make(d(rng), d(rng));
  for (auto& e : vbuf) e = Tr::make(d(rng), d(rng));
  const int64_t m0 = (rs < 0 ? (rows - 1) * -rs : 0) + (cs < 0 ? (cols - 1) * -cs : 0);
  const int64_t v0 = vs < 0 ? (cols - 1) * -vs : 0;
  const std::string what = "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
                           " rs=" + std::to_string(rs) + " cs=" + std::to_string(cs) +
                           " vs=" + std::to_string(vs);
  SCOPED_TRACE(what);

  nf::GemvPlan p;
  ASSERT_TRUE(nf::plan_gemv(rows, cols, rs, cs, vs, &p));
  ASSERT_EQ(p.dot, rows == 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<T> y(rows, Tr::make(nan, nan));  // garbage the product must overwrite
  const T* mat = mbuf.data() + m0 + p.mat_shift;
  const T* vec = vbuf.data() + v0 + p.vec_shift;
  const bool ran = p.dot ? nf::cpu::dot(Tr::dt, cols, mat, p.mat_inc, vec, p.incx, y.data())
                         : nf::cpu::gemv(Tr::dt, p.trans, p.stored_rows, p.stored_cols, mat, p.ld,
                                         vec, p.incx, y.data() + p.y_shift, p.incy);
  ASSERT_EQ(ran, nf::cpu::blas_available());
  if (!ran) {
    for (const T& e : y) ASSERT_TRUE(std::isnan(Tr::re(e)));  // nothing written
    return;
  }
  for (int64_t i = 0; i < rows; ++i) {
    long double re = 0, im = 0, mag = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const T a = mbuf[m0 + i * rs + k * cs], b = vbuf[v0 + k * vs];
      re += (long double)Tr::re(a) * Tr::re(b) - (long double)Tr::im(a) * Tr::im(b);
      im += (long double)Tr::re(a) * Tr::im(b) + (long double)Tr::im(a) * Tr::re(b);
      mag += (std::fabs(Tr::re(a)) + std::fabs(Tr::im(a))) *
             (std::fabs(Tr::re(b)) + std::fabs(Tr::im(b)));
    }
    SCOPED_TRACE("row " + std::to_string(i));
    ASSERT_NEAR(Tr::re(y[i]), static_cast<double>(re), tol * static_cast<double>(mag) + 1e-300);
    ASSERT_NEAR(Tr::im(y[i]), static_cast<double>(im), tol * static_cast<double>(mag) + 1e-300);
  }
}

TEST(Gemv, RandomStridesMatchNaiveSum) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {
    run_case<double>(rng, 1e-14);
    run_case<nf::complex64>(rng, 1e-5);
  }
}

TEST(Gemv, PlanRefusesWhatOneCallCannotDo) {
  nf::GemvPlan p;
  EXPECT_FALSE(nf::plan_gemv(4, 5, 10, 2, 1, &p));  // no unit stride: copy first
  EXPECT_FALSE(nf::plan_gemv(4, 5, 5, 1, 0, &p));   // a broadcast vector
  EXPECT_TRUE(nf::plan_gemv(4, 1, 5, 7, 0, &p));    // one column: its stride is unused
  EXPECT_TRUE(nf::plan_gemv(1, 5, 0, 1, 3, &p));    // one row: a dot
  EXPECT_TRUE(p.dot);
}

TEST(Gemv, EmptyAndRejectedCalls) {
  double a[4] = {1, 2, 3, 4}, x[2] = {1, 1}, y[2] = {7, 7};
  const bool blas = nf::cpu::blas_available();
  // K == 0 writes zeros (OpenBLAS alone would return leaving y as it was).
  EXPECT_EQ(nf::cpu::gemv(DType::Float64, false, 2, 0, a, 1, x, 1, y, 1), blas);
  if (blas) EXPECT_EQ(y[0] + y[1], 0.0);
  // BLAS has no integer gemv, and rejects a zero increment or a short leading dimension.
  int32_t ia[4] = {1, 2, 3, 4}, ix[2] = {1, 1}, iy[2] = {0, 0};
  EXPECT_FALSE(nf::cpu::gemv(DType::Int32, false, 2, 2, ia, 2, ix, 1, iy, 1));
  EXPECT_FALSE(nf::cpu::gemv(DType::Float64, false, 2, 2, a, 2, x, 0, y, 1));
  EXPECT_FALSE(nf::cpu::gemv(DType::Float64, false, 2, 2, a, 1, x, 1, y, 1));
  double d = 5;
  EXPECT_EQ(nf::cpu::dot(DType::Float64, 0, a, 1, x, 1, &d), blas);
  if (blas) EXPECT_EQ(d, 0.0);
}

// The shared planner's verdicts for batched matrix-vector products (backend/matmul_plan.h).
TEST(MatvecPlan, FoldsCopiesOrDeclinesAsTheOperandsAllow) {
  using namespace nf;
  auto plan = [](const Shape& as, const Strides& ast, const Shape& bs, const Strides& bst,
                 MatvecPlan* mp) {
    const Array a = Array::empty(Shape{1024}, DType::Float64, Device::cpu()).view(as, ast, 0);
    const Array b = Array::empty(Shape{1024}, DType::Float64, Device::cpu()).view(bs, bst, 0);
    const Shape out_batch = matmul_out_batch(matmul_shape(as, bs), a.ndim(), b.ndim());
    const MatrixStack A = describe_operand(a, true, out_batch, blas_limits());
    const MatrixStack B = describe_operand(b, false, out_batch, blas_limits());
    EXPECT_TRUE(is_matvec(A, B));
    return plan_matvec(A, B, out_batch, mp);
  };
  MatvecPlan mp;
  // A stack of C-order matrices times one vector: one tall gemv over every row of the batch.
  ASSERT_EQ(plan({4, 3, 5}, {15, 5, 1}, {5}, {1}, &mp), MatvecVerdict::Planned);
  EXPECT_TRUE(mp.folded && mp.mat_is_a && !mp.gemv.dot);
  EXPECT_EQ(mp.gemv.stored_rows, 12);
  // A vector times a stack of matrices: y = B^T a per product, B read transposed in place.
  ASSERT_EQ(plan({5}, {1}, {4, 5, 3}, {15, 3, 1}, &mp), MatvecVerdict::Planned);
  EXPECT_FALSE(mp.folded || mp.mat_is_a);
  EXPECT_TRUE(mp.gemv.trans);
  EXPECT_EQ(std::vector<int64_t>(mp.mat_off.begin(), mp.mat_off.end()),
            (std::vector<int64_t>{0, 15, 30, 45}));
  EXPECT_EQ(std::vector<int64_t>(mp.vec_off.begin(), mp.vec_off.end()),
            (std::vector<int64_t>{0, 0, 0, 0}));
  // No unit stride in the matrix: copy it to C order first.
  EXPECT_EQ(plan({3, 5}, {10, 2}, {5}, {1}, &mp), MatvecVerdict::CopyMatrix);
  EXPECT_TRUE(mp.mat_is_a);
  // A broadcast vector (stride 0) is no BLAS vector: gemm instead.
  EXPECT_EQ(plan({3, 5}, {5, 1}, {5}, {0}, &mp), MatvecVerdict::UseGemm);
}

}  // namespace
