// MatmulNode and RandomNode through the C++ API: shapes/errors, strided operands against a naive
// loop, and that a random draw is a pure function of (seed, stream, offset, i).
#include <gtest/gtest.h>

#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/kernels/philox.h"
#include "numfuse/ops/linalg.h"
#include "numfuse/ops/random.h"
#include "numfuse/ops/views.h"

using namespace nf;

namespace {
Array iota_matrix(int64_t r, int64_t c, double scale) {
  Array a = Array::empty({r, c}, DType::Float64, Device::cpu());
  for (int64_t i = 0; i < r * c; ++i) a.data_as<double>()[i] = scale * double((i * 7) % 11) - 3;
  return a;
}
double elem(const Array& a, int64_t i, int64_t j) {
  return *reinterpret_cast<const double*>(a.data() + (i * a.strides[0] + j * a.strides[1]) * 8);
}
}  // namespace

TEST(Matmul, ShapesAndErrors) {
  EXPECT_EQ(matmul_shape({2, 3}, {3, 4}), (Shape{2, 4}));
  EXPECT_EQ(matmul_shape({3}, {3}), (Shape{}));
  EXPECT_EQ(matmul_shape({5, 1, 2, 3}, {4, 3, 6}), (Shape{5, 4, 2, 6}));
  EXPECT_EQ(matmul_shape({3}, {2, 3, 4}), (Shape{2, 4}));
  EXPECT_THROW(matmul_shape({}, {3}), ValueError);
  EXPECT_THROW(matmul_shape({2, 3}, {2, 3}), ValueError);
  EXPECT_THROW(matmul_shape({2, 2, 3}, {3, 3, 4}), ValueError);
}

TEST(Matmul, StridedOperandsMatchNaiveLoop) {
  // a: reversed rows and every other column; b: transposed (column-major) -> gemm flags, copies.
  Array abase = iota_matrix(5, 8, 0.5), bbase = iota_matrix(3, 4, 0.25);
  Array a = abase.view({5, 4}, {-8, 2}, 4 * 8 * 8);  // abase[::-1, ::2]
  Array b = transpose(bbase);                         // (4, 3), strides (1, 4)
  Array c = matmul(a, b);
  eval(c, FlushReason::Explicit);
  ASSERT_EQ(c.shape, (Shape{5, 3}));
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 4; ++k) s += elem(a, i, k) * elem(b, k, j);
      EXPECT_DOUBLE_EQ(elem(c, i, j), s) << i << "," << j;
    }
  }
}

TEST(Random, ElementIsPhiloxBlockOfOffsetPlusI) {
  RandomSpec spec;
  spec.dist = RandomDist::Integers;
  spec.seed = 0x1234567890ULL;
  spec.stream = 3;
  spec.offset = 100;
  spec.low = static_cast<uint64_t>(-5);
  spec.range = 11;
  Array r = random({64}, DType::Int64, spec, Device::cpu());
  eval(r, FlushReason::Explicit);
  for (int64_t i = 0; i < 64; ++i) {
    const auto b = rng::philox_block(spec.seed, spec.stream, spec.offset, uint64_t(i));
    EXPECT_EQ(r.data_as<int64_t>()[i], rng::randint(b, -5, 6));
  }
  EXPECT_THROW(random({2}, DType::Float32, spec, Device::cpu()), TypeError);
  spec.dist = RandomDist::Uniform;
  EXPECT_THROW(random({-1}, DType::Float64, spec, Device::cpu()), ValueError);
}
