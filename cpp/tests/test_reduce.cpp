// Pairwise summation: as accurate as NumPy's scheme (error O(log n), not O(n)), and the CPU
// reduction kernel agrees with it on large float32 arrays, whatever the threading split.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "numfuse/backend/cpu/reduce_cpu.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/reduction.h"

namespace {

double exact_sum(const std::vector<float>& v) {
  long double s = 0;
  for (float x : v) s += x;
  return double(s);
}

TEST(PairwiseSum, FloatErrorGrowsLogarithmically) {
  for (int64_t n : {7, 8, 127, 128, 129, 1000, 100003, 10000000}) {
    std::vector<float> v(n, 0.1f);
    const double exact = exact_sum(v);
    const double pw = nf::cpu::pairwise_sum<float>(v.data(), n);
    float naive = 0;
    for (float x : v) naive += x;
    // Pairwise: a few ulp times log2(n); the naive loop drifts by far more for large n.
    const double bound = 4 * std::log2(double(n) + 2) * 6e-8 * exact;
    EXPECT_LE(std::fabs(pw - exact), bound) << "n=" << n;
    if (n >= 100003) EXPECT_LT(std::fabs(pw - exact), std::fabs(naive - exact) / 10) << "n=" << n;
  }
}

TEST(PairwiseSum, StridedEqualsContiguous) {
  std::vector<double> v(2 * 1001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i)) * 1e3;
  std::vector<double> packed(1001);
  for (size_t i = 0; i < packed.size(); ++i) packed[i] = v[2 * i];
  EXPECT_EQ(nf::cpu::pairwise_sum<double>(v.data(), 1001, 2),
            nf::cpu::pairwise_sum<double>(packed.data(), 1001, 1));
}

TEST(ReduceKernel, LargeFloat32SumMatchesPairwise) {
  const int64_t n = 3000001;
  nf::Array a = nf::Array::empty({n}, nf::DType::Float32, nf::Device::cpu());
  float* p = a.data_as<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = float(i % 1000) * 1e-3f + 0.1f;
  nf::Array s = nf::reduce(nf::ReduceOp::Sum, a);
  nf::eval(s, nf::FlushReason::Explicit);
  std::vector<float> v(p, p + n);
  const double exact = exact_sum(v);
  EXPECT_NEAR(double(*s.data_as<float>()), exact, exact * 2e-6);
}

TEST(ReduceKernel, MaxPropagatesNaNFromAnyPosition) {
  for (int64_t pos : {0, 17, 4095, 99999}) {
    nf::Array a = nf::Array::empty({100000}, nf::DType::Float64, nf::Device::cpu());
    double* p = a.data_as<double>();
    for (int64_t i = 0; i < 100000; ++i) p[i] = double(i);
    p[pos] = std::nan("");
    nf::Array m = nf::reduce(nf::ReduceOp::Max, a), f = nf::reduce(nf::ReduceOp::Fmax, a);
    nf::eval({m, f}, nf::FlushReason::Explicit);
    EXPECT_TRUE(std::isnan(*m.data_as<double>())) << pos;
    EXPECT_EQ(*f.data_as<double>(), pos == 99999 ? 99998.0 : 99999.0) << pos;
  }
}

}  // namespace
