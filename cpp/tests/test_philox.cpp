// Philox4x32-10 known answers, the numfuse stream model, and sanity of the distributions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "numfuse/kernels/philox.h"

namespace {

using nf::uint32x4;

void expect_block(uint32x4 got, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  EXPECT_EQ(got.x, x);
  EXPECT_EQ(got.y, y);
  EXPECT_EQ(got.z, z);
  EXPECT_EQ(got.w, w);
}

// Random123 tests/kat_vectors, the three "philox4x32 10" lines: ctr[4] key[2] -> out[4].
TEST(Philox, KnownAnswerZeros) {
  const uint32_t ctr[4] = {0, 0, 0, 0};
  const uint32_t key[2] = {0, 0};
  expect_block(nf::philox4x32_10(ctr, key), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u);
}

TEST(Philox, KnownAnswerOnes) {
  const uint32_t ctr[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
  const uint32_t key[2] = {0xffffffffu, 0xffffffffu};
  expect_block(nf::philox4x32_10(ctr, key), 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
}

TEST(Philox, KnownAnswerPi) {
  const uint32_t ctr[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
  const uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
  expect_block(nf::philox4x32_10(ctr, key), 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

// curand's host Philox generator with seed 0x0123456789abcdef emits, as its first four words,
// the block of subsequence 0 at counter 0 (checked once against libcurand when this was written):
// it uses the same key = {lo32(seed), hi32(seed)} and the same counter layout.
TEST(Philox, MatchesCurandLayout) {
  expect_block(nf::rng::philox_block(0x0123456789abcdefull, 0, 0, 0), 0xb850222eu, 0xc58cb04bu,
               0x14a7a020u, 0x7a84fff9u);
}

TEST(Philox, StreamModelCounterLayout) {
  const uint64_t seed = 0xfedcba9876543210ull, stream = 0x1122334455667788ull;
  const uint64_t offset = 0x00000001fffffffeull;
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t n = offset + i;
    const uint32_t ctr[4] = {uint32_t(n), uint32_t(n >> 32), 0x55667788u, 0x11223344u};
    const uint32_t key[2] = {0x76543210u, 0xfedcba98u};
    const uint32x4 want = nf::philox4x32_10(ctr, key);
    const uint32x4 got = nf::rng::philox_block(seed, stream, offset, i);
    expect_block(got, want.x, want.y, want.z, want.w);
  }
}

TEST(Philox, DrawsAreContiguousAndAdvanceTheOffset) {
  nf::rng::PhiloxState st{42, 7, 0};
  const uint64_t a = st.draw(10);
  const uint64_t b = st.draw(5);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 10u);
  EXPECT_EQ(st.offset, 15u);
  // Element 3 of the second draw is element 13 of one draw of 15.
  const uint32x4 p = st.block(b, 3), q = nf::rng::philox_block(42, 7, 0, 13);
  expect_block(p, q.x, q.y, q.z, q.w);
  // Streams and seeds give different blocks.
  const uint32x4 r = nf::rng::philox_block(42, 8, 0, 13), s = nf::rng::philox_block(43, 7, 0, 13);
  EXPECT_NE(p.x, r.x);
  EXPECT_NE(p.x, s.x);
}

TEST(PhiloxDist, UniformEndpoints) {
  const uint32x4 zero{0, 0, 0, 0}, ones{~0u, ~0u, ~0u, ~0u};
  EXPECT_EQ(nf::rng::uniform_double(zero), 0.0);
  EXPECT_EQ(nf::rng::uniform_double(ones), 1.0 - std::ldexp(1.0, -53));
  EXPECT_EQ(nf::rng::uniform_float(zero), 0.0f);
  EXPECT_EQ(nf::rng::uniform_float(ones), 1.0f - std::ldexp(1.0f, -24));
  // The largest normal comes from u1 = 2^-53: sqrt(106 ln 2), finite.
  const double zmax = nf::rng::normal_double(uint32x4{0, 0, 0, 0});
  EXPECT_NEAR(zmax, std::sqrt(106.0 * std::log(2.0)), 1e-12);
  EXPECT_TRUE(std::isfinite(nf::rng::normal_float(uint32x4{0, 0, 0, 0})));
  EXPECT_EQ(nf::rng::normal_double(ones), 0.0);  // u1 = 1: radius 0
}

TEST(PhiloxDist, UniformRangeAndMoments) {
  const int n = 1000000;
  double s = 0, s2 = 0, fs = 0;
  double lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const uint32x4 b = nf::rng::philox_block(1234, 0, 0, i);
    const double u = nf::rng::uniform_double(b);
    const float f = nf::rng::uniform_float(b);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
    const double v = nf::rng::uniform_double(b, -3.0, 5.0);
    ASSERT_GE(v, -3.0);
    ASSERT_LT(v, 5.0);
    const float w = nf::rng::uniform_float(b, 2.0f, 2.5f);
    ASSERT_GE(w, 2.0f);
    ASSERT_LE(w, 2.5f);
    s += u;
    s2 += u * u;
    fs += f;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 1e-3);
  EXPECT_NEAR(fs / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_LT(lo, 1e-4);
  EXPECT_GT(hi, 1 - 1e-4);
}

template <class F>
void check_normal_moments(F normal) {
  const int n = 1000000;
  double s = 0, s2 = 0, s3 = 0, s4 = 0;
  int within1 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = normal(nf::rng::philox_block(99, 3, 1000, i));
    ASSERT_TRUE(std::isfinite(z));
    s += z;
    s2 += z * z;
    s3 += z * z * z;
    s4 += z * z * z * z;
    within1 += std::fabs(z) < 1.0;
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(double(n)));
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s3 / n, 0.0, 5 * std::sqrt(15.0 / n));       // skewness
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n));       // kurtosis
  EXPECT_NEAR(double(within1) / n, 0.6826894921370859, 5 * std::sqrt(0.22 / n));
}

TEST(PhiloxDist, NormalDoubleMoments) {
  check_normal_moments([](uint32x4 b) { return nf::rng::normal_double(b); });
}
TEST(PhiloxDist, NormalFloatMoments) {
  check_normal_moments([](uint32x4 b) { return double(nf::rng::normal_float(b)); });
}
TEST(PhiloxDist, NormalLocScale) {
  const uint32x4 b = nf::rng::philox_block(5, 0, 0, 0);
  EXPECT_EQ(nf::rng::normal_double(b, 10.0, 2.0), 10.0 + 2.0 * nf::rng::normal_double(b));
  EXPECT_EQ(nf::rng::normal_float(b, 1.0f, 0.5f), 1.0f + 0.5f * nf::rng::normal_float(b));
}

// floor(X * r / 2^128) computed with 32-bit limbs, independently of the header's carry trick.
uint64_t bounded_reference(uint32x4 b, uint64_t r) {
  // The header's X has high 64 bits (y << 32 | x) and low 64 bits (w << 32 | z).
  const uint32_t X[4] = {b.z, b.w, b.x, b.y};  // little-endian limbs
  const uint32_t R[2] = {uint32_t(r), uint32_t(r >> 32)};
  uint32_t P[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < 2; ++j) {
      const uint64_t t = uint64_t(X[i]) * R[j] + P[i + j] + carry;
      P[i + j] = uint32_t(t);
      carry = t >> 32;
    }
    for (int k = i + 2; carry && k < 6; ++k) {
      const uint64_t t = uint64_t(P[k]) + carry;
      P[k] = uint32_t(t);
      carry = t >> 32;
    }
  }
  return (uint64_t(P[5]) << 32) | P[4];
}

TEST(PhiloxDist, BoundedMatchesExactReference) {
  const uint64_t ranges[] = {1, 2, 3, 10, 1000003, 0xffffffffull, 0x100000000ull,
                             0x123456789abcdefull, 0x8000000000000000ull,
                             0xffffffffffffffffull};
  for (uint64_t r : ranges) {
    for (int i = 0; i < 20000; ++i) {
      const uint32x4 b = nf::rng::philox_block(7, 1, 0, i);
      const uint64_t v = nf::rng::bounded_uint64(b, r);
      ASSERT_LT(v, r);
      ASSERT_EQ(v, bounded_reference(b, r)) << "range " << r << " i " << i;
    }
  }
  // Edge blocks.
  const uint32x4 ones{~0u, ~0u, ~0u, ~0u};
  EXPECT_EQ(nf::rng::bounded_uint64(ones, 10), 9u);
  EXPECT_EQ(nf::rng::bounded_uint64(ones, 0xffffffffffffffffull), 0xfffffffffffffffeull);
  EXPECT_EQ(nf::rng::bounded_uint64(uint32x4{0, 0, 0, 0}, 10), 0u);
  // range 0 means 2^64: all 64 high bits.
  EXPECT_EQ(nf::rng::bounded_uint64(uint32x4{1, 2, 3, 4}, 0), 0x0000000200000001ull);
}

TEST(PhiloxDist, RandintBoundsAndCoverage) {
  struct R { int64_t lo, hi; };
  const R cases[] = {{0, 1}, {0, 2}, {-3, 7}, {-1000, -990}, {5, 6}, {0, 256}};
  for (const R& c : cases) {
    const int64_t span = c.hi - c.lo;
    std::vector<int64_t> count(span, 0);
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const int64_t v = nf::rng::randint(nf::rng::philox_block(11, 0, 0, i), c.lo, c.hi);
      ASSERT_GE(v, c.lo);
      ASSERT_LT(v, c.hi);
      ++count[v - c.lo];
    }
    for (int64_t k = 0; k < span; ++k) EXPECT_GT(count[k], 0) << "value " << c.lo + k << " never drawn";
  }
  EXPECT_EQ(nf::rng::randint(nf::rng::philox_block(1, 0, 0, 0), 17, 17), 17);
}

TEST(PhiloxDist, RandintUniformityChiSquare) {
  const int k = 10, n = 1000000;
  std::vector<double> count(k, 0);
  for (int i = 0; i < n; ++i) ++count[nf::rng::randint(nf::rng::philox_block(2024, 0, 0, i), 0, k)];
  double chi2 = 0;
  for (double c : count) chi2 += (c - n / k) * (c - n / k) / (n / k);
  EXPECT_LT(chi2, 33.7);  // 9 degrees of freedom, p = 1e-4
}

TEST(PhiloxDist, RandintExtremeRanges) {
  const int64_t mn = std::numeric_limits<int64_t>::min(), mx = std::numeric_limits<int64_t>::max();
  int neg = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const uint32x4 b = nf::rng::philox_block(3, 0, 0, i);
    const int64_t v = nf::rng::randint(b, mn, mx);
    ASSERT_LT(v, mx);
    neg += v < 0;
    const int64_t w = nf::rng::randint(b, mx - 3, mx);
    ASSERT_GE(w, mx - 3);
    ASSERT_LT(w, mx);
    const int64_t u = nf::rng::randint(b, mn, mn + 2);
    ASSERT_TRUE(u == mn || u == mn + 1);
  }
  EXPECT_NEAR(double(neg) / n, 0.5, 0.01);
}

}  // namespace
