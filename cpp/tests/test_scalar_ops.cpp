// nf::sop functors and nf::convert against values checked with NumPy 2.4 (x86-64).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "numfuse/kernels/scalar_ops.h"

namespace {
using namespace nf;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Same value, NaN equal to NaN, and the sign of zero must match.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}
bool close_tol(double a, double b, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b) || a == 0 || b == 0) return same(a, b);
  return std::fabs(a - b) <= rtol * std::fabs(b);
}
bool close(double a, double b) { return close_tol(a, b, 1e-13); }
bool close_f(double a, double b) { return close_tol(a, b, 1e-6); }  // float32 results
#define EXPECT_SAME(a, b) EXPECT_PRED2(same, double(a), double(b))
#define EXPECT_CPLX(z, RE, IM)               \
  do {                                       \
    const auto z_ = (z);                     \
    EXPECT_PRED2(close, z_.re, double(RE));  \
    EXPECT_PRED2(close, z_.im, double(IM));  \
  } while (0)

TEST(ScalarOps, IntegerFloorDivideAndRemainderArePythonStyle) {
  // np.divmod(int8([5, -5, -128, 7]), int8([0, 3, -1, -2])) == ([0, -2, -128, -4], [0, 1, 0, -1])
  const int8_t a[] = {5, -5, -128, 7}, b[] = {0, 3, -1, -2};
  const int8_t q[] = {0, -2, -128, -4}, r[] = {0, 1, 0, -1}, f[] = {0, -2, 0, 1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(sop::FloorDivide{}(a[i], b[i]), q[i]) << i;
    EXPECT_EQ(sop::Remainder{}(a[i], b[i]), r[i]) << i;
    EXPECT_EQ(sop::Fmod{}(a[i], b[i]), f[i]) << i;
    auto d = sop::Divmod{}(a[i], b[i]);
    EXPECT_EQ(d.first, q[i]);
    EXPECT_EQ(d.second, r[i]);
  }
  EXPECT_EQ(sop::FloorDivide{}(std::numeric_limits<int64_t>::min(), int64_t(-1)),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(sop::FloorDivide{}(uint32_t(7), uint32_t(0)), 0u);
  EXPECT_EQ(sop::Remainder{}(uint64_t(7), uint64_t(0)), 0u);
}

TEST(ScalarOps, FloatFloorDivideAndRemainder) {
  // np.floor_divide([1,-1,1,-1,0,-0,inf,5,nan,0], [inf,inf,-inf,-inf,-3,3,2,0,1,0])
  const double a[] = {1, -1, 1, -1, 0, -0.0, kInf, 5, kNan, 0};
  const double b[] = {kInf, kInf, -kInf, -kInf, -3, 3, 2, 0, 1, 0};
  const double q[] = {0, -1, -1, 0, -0.0, -0.0, kNan, kInf, kNan, kNan};
  for (int i = 0; i < 10; ++i) EXPECT_SAME(sop::FloorDivide{}(a[i], b[i]), q[i]) << i;
  // np.remainder([1,-1,1,-1,0,-0,inf,5,5,-5], [inf,inf,-inf,-inf,-3,3,2,0,-0,3])
  const double ra[] = {1, -1, 1, -1, 0, -0.0, kInf, 5, 5, -5};
  const double rb[] = {kInf, kInf, -kInf, -kInf, -3, 3, 2, 0, -0.0, 3};
  const double r[] = {1, kInf, -kInf, -1, -0.0, 0, kNan, kNan, kNan, 1};
  for (int i = 0; i < 10; ++i) EXPECT_SAME(sop::Remainder{}(ra[i], rb[i]), r[i]) << i;
  auto d = sop::Divmod{}(5.0, 0.0);  // (inf, nan)
  EXPECT_SAME(d.first, kInf);
  EXPECT_SAME(d.second, kNan);
  auto e = sop::Divmod{}(7.5f, -2.0f);  // (-4, -0.5)
  EXPECT_SAME(e.first, -4.0);
  EXPECT_SAME(e.second, -0.5);
}

TEST(ScalarOps, IntegerWrapAroundAndPower) {
  EXPECT_EQ(sop::Add{}(int8_t(100), int8_t(100)), int8_t(-56));
  EXPECT_EQ(sop::Multiply{}(uint16_t(65535), uint16_t(65535)), uint16_t(1));
  EXPECT_EQ(sop::Negative{}(uint8_t(1)), uint8_t(255));
  EXPECT_EQ(sop::Absolute{}(int8_t(-128)), int8_t(-128));
  EXPECT_EQ(sop::Square{}(int8_t(100)), int8_t(16));
  EXPECT_EQ(sop::Power{}(int32_t(3), int32_t(40)), int32_t(689956897));
  EXPECT_EQ(sop::Power{}(int32_t(3), int32_t(0)), 1);
  EXPECT_EQ(sop::Power{}(int32_t(3), int32_t(-1)), 0);
  EXPECT_EQ(sop::Sign{}(int16_t(-7)), int16_t(-1));
  EXPECT_EQ(sop::Sign{}(uint16_t(7)), uint16_t(1));
  // np.reciprocal(int32([0, 1, 2, -1])) == [INT_MIN, 1, 0, -1]; int8/uint8 give 0 for 0.
  EXPECT_EQ(sop::Reciprocal{}(int32_t(0)), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(sop::Reciprocal{}(int32_t(-1)), -1);
  EXPECT_EQ(sop::Reciprocal{}(int32_t(2)), 0);
  EXPECT_EQ(sop::Reciprocal{}(int8_t(0)), 0);
  EXPECT_EQ(sop::Reciprocal{}(uint64_t(0)), 0u);
}

TEST(ScalarOps, Shifts) {
  // np.left_shift(int8(1), [7, 8, -1, 100]) == [-128, 0, 0, 0]
  EXPECT_EQ(sop::LeftShift{}(int8_t(1), int8_t(7)), int8_t(-128));
  EXPECT_EQ(sop::LeftShift{}(int8_t(1), int8_t(8)), 0);
  EXPECT_EQ(sop::LeftShift{}(int8_t(1), int8_t(-1)), 0);
  EXPECT_EQ(sop::LeftShift{}(int8_t(1), int8_t(100)), 0);
  EXPECT_EQ(sop::LeftShift{}(uint8_t(255), uint8_t(1)), 254);
  // np.right_shift(int8(-5), [1, 8, -1]) == [-3, -1, -1]
  EXPECT_EQ(sop::RightShift{}(int8_t(-5), int8_t(1)), -3);
  EXPECT_EQ(sop::RightShift{}(int8_t(-5), int8_t(8)), -1);
  EXPECT_EQ(sop::RightShift{}(int8_t(-5), int8_t(-1)), -1);
  EXPECT_EQ(sop::RightShift{}(int64_t(5), int64_t(64)), 0);
  EXPECT_EQ(sop::RightShift{}(uint32_t(0x80000000u), uint32_t(31)), 1u);
}

TEST(ScalarOps, BoolLoops) {
  EXPECT_TRUE(sop::Add{}(true, true));
  EXPECT_FALSE(sop::Multiply{}(true, false));
  EXPECT_FALSE(sop::Invert{}(true));
  EXPECT_TRUE(sop::Maximum{}(false, true));
  EXPECT_TRUE(sop::BitwiseXor{}(true, false));
}

TEST(ScalarOps, MaximumMinimumNaNAndSignedZeros) {
  EXPECT_SAME(sop::Maximum{}(kNan, 1.0), kNan);
  EXPECT_SAME(sop::Maximum{}(1.0, kNan), kNan);
  EXPECT_SAME(sop::Fmax{}(kNan, 1.0), 1.0);
  EXPECT_SAME(sop::Fmin{}(1.0, kNan), 1.0);
  // np.maximum(-0.0, 0.0) == 0.0, np.maximum(0.0, -0.0) == -0.0 (the second operand on ties)
  EXPECT_SAME(sop::Maximum{}(-0.0, 0.0), 0.0);
  EXPECT_SAME(sop::Maximum{}(0.0, -0.0), -0.0);
  EXPECT_SAME(sop::Minimum{}(-0.0, 0.0), 0.0);
  // complex: np.maximum([1+nanj, nan+1j, 1+2j, 1+1j], [0, 0, 1+1j, 1+nanj])
  //   == [1+nanj, nan+1j, 1+2j, 1+nanj]; fmax == [0, 0, 1+2j, 1+1j]
  const complex128 a[] = {{1, kNan}, {kNan, 1}, {1, 2}, {1, 1}};
  const complex128 b[] = {{0, 0}, {0, 0}, {1, 1}, {1, kNan}};
  const complex128 mx[] = {{1, kNan}, {kNan, 1}, {1, 2}, {1, kNan}};
  const complex128 fm[] = {{0, 0}, {0, 0}, {1, 2}, {1, 1}};
  const bool gt[] = {false, false, true, false};
  for (int i = 0; i < 4; ++i) {
    const complex128 m = sop::Maximum{}(a[i], b[i]), f = sop::Fmax{}(a[i], b[i]);
    EXPECT_SAME(m.re, mx[i].re);
    EXPECT_SAME(m.im, mx[i].im);
    EXPECT_SAME(f.re, fm[i].re);
    EXPECT_SAME(f.im, fm[i].im);
    EXPECT_EQ(sop::Greater{}(a[i], b[i]), gt[i]) << i;
    EXPECT_FALSE(sop::Less{}(a[i], b[i])) << i;
  }
}

TEST(ScalarOps, FloatFunctions) {
  EXPECT_SAME(sop::Sign{}(-0.0), 0.0);
  EXPECT_SAME(sop::Sign{}(kNan), kNan);
  EXPECT_SAME(sop::Rint{}(0.5), 0.0);
  EXPECT_SAME(sop::Rint{}(2.5), 2.0);
  EXPECT_SAME(sop::Rint{}(-0.5), -0.0);
  EXPECT_SAME(sop::Heaviside{}(kNan, 0.5), kNan);
  EXPECT_SAME(sop::Heaviside{}(0.0, 0.5), 0.5);
  EXPECT_SAME(sop::Heaviside{}(-2.0, 0.5), 0.0);
  EXPECT_SAME(sop::Logaddexp{}(kInf, kInf), kInf);
  EXPECT_SAME(sop::Logaddexp{}(-kInf, -kInf), -kInf);
  EXPECT_PRED2(close, sop::Logaddexp{}(1.0, 2.0), 2.3132616875182228);
  EXPECT_PRED2(close, sop::Logaddexp{}(1000.0, 1000.0), 1000.6931471805599);
  EXPECT_PRED2(close, sop::Logaddexp2{}(3.0, 3.0), 4.0);
  EXPECT_SAME(sop::Ldexp{}(1.5, int64_t(1) << 40), kInf);
  EXPECT_SAME(sop::Ldexp{}(1.5, -(int64_t(1) << 40)), 0.0);
  EXPECT_SAME(sop::Ldexp{}(1.5f, int32_t(2)), 6.0);
  EXPECT_SAME(sop::Nextafter{}(0.0, -1.0), -4.9406564584124654e-324);
  EXPECT_SAME(sop::Nextafter{}(1.0f, 2.0f), 1.00000011920928955);
  EXPECT_PRED2(close, sop::Deg2rad{}(180.0), M_PI);
  EXPECT_TRUE(sop::Signbit{}(-0.0f));
  auto fr = sop::Frexp{}(-3.0);  // (-0.75, 2)
  EXPECT_SAME(fr.first, -0.75);
  EXPECT_EQ(fr.second, 2);
  auto fi = sop::Frexp{}(kInf);  // (inf, 0)
  EXPECT_SAME(fi.first, kInf);
  EXPECT_EQ(fi.second, 0);
  auto mf = sop::Modf{}(-2.5);  // (-0.5, -2)
  EXPECT_SAME(mf.first, -0.5);
  EXPECT_SAME(mf.second, -2.0);
  auto mi = sop::Modf{}(kInf);  // (0, inf)
  EXPECT_SAME(mi.first, 0.0);
  EXPECT_SAME(mi.second, kInf);
}

TEST(ScalarOps, Classification) {
  EXPECT_TRUE(sop::Isnan{}(complex128(1, kNan)));
  EXPECT_TRUE(sop::Isinf{}(complex64(-INFINITY, 0)));
  EXPECT_FALSE(sop::Isfinite{}(kNan));
  EXPECT_TRUE(sop::Isfinite{}(int32_t(5)));
  EXPECT_FALSE(sop::Isnan{}(true));
  EXPECT_TRUE(sop::LogicalAnd{}(complex128(0, 1), 2.0 == 2.0 ? complex128(3, 0) : complex128(0)));
  EXPECT_TRUE(sop::LogicalNot{}(complex128(0, -0.0)));
  EXPECT_TRUE(sop::LogicalXor{}(int16_t(0), int16_t(-3)));
  EXPECT_TRUE(sop::LogicalOr{}(kNan, 0.0));  // NaN is truthy
}

TEST(ComplexMath, SpecialPointsMatchNumPy) {
  // Values from numpy 2.4 (glibc's complex functions).
  EXPECT_CPLX(sop::Sqrt{}(complex128(-4, 0)), 0, 2);
  EXPECT_CPLX(sop::Sqrt{}(complex128(-4, -0.0)), 0, -2);
  EXPECT_CPLX(sop::Sqrt{}(complex128(-kInf, kNan)), kNan, kInf);
  EXPECT_CPLX(sop::Log{}(complex128(-0.0, 0)), -kInf, M_PI);
  EXPECT_CPLX(sop::Log{}(complex128(1, 1)), 0.34657359027997264, 0.78539816339744828);
  EXPECT_CPLX(sop::Exp{}(complex128(kInf, kNan)), kInf, kNan);
  EXPECT_CPLX(sop::Exp{}(complex128(800, 0.5)), kInf, kInf);
  EXPECT_CPLX(sop::Exp{}(complex128(1, 2)), -1.1312043837568135, 2.4717266720048188);
  EXPECT_CPLX(sop::Arctanh{}(complex128(1, 0)), kInf, 0);
  EXPECT_CPLX(sop::Arctanh{}(complex128(2, 0)), 0.54930614433405489, 1.5707963267948966);
  EXPECT_CPLX(sop::Arctanh{}(complex128(2, -0.0)), 0.54930614433405489, -1.5707963267948966);
  EXPECT_CPLX(sop::Arcsin{}(complex128(2, 0)), 1.5707963267948966, 1.3169578969248166);
  EXPECT_CPLX(sop::Arccos{}(complex128(0.5, -0.5)), 1.1185178796437059, 0.53063753095251787);
  EXPECT_CPLX(sop::Arccosh{}(complex128(-2, 0)), 1.3169578969248166, 3.1415926535897931);
  EXPECT_CPLX(sop::Arcsinh{}(complex128(kInf, kInf)), kInf, 0.78539816339744828);
  EXPECT_CPLX(sop::Tanh{}(complex128(1000, 1)), 1, 0);
  EXPECT_CPLX(sop::Tan{}(complex128(1, 1)), 0.2717525853195118, 1.0839233273386946);
  EXPECT_CPLX(sop::Cos{}(complex128(0, 1e300)), kInf, -0.0);
  EXPECT_CPLX(sop::Sign{}(complex128(3, 4)), 0.6, 0.8);
  EXPECT_CPLX(sop::Sign{}(complex128(kInf, kNan)), 1, 0);
  EXPECT_CPLX(sop::Reciprocal{}(complex128(0, 2)), 0, -0.5);
  EXPECT_CPLX(sop::Power{}(complex128(1, 1), complex128(-3, 0)), -0.25, -0.25);
  EXPECT_CPLX(sop::Power{}(complex128(0, 0), complex128(2.5, 0.5)), 0, 0);
  EXPECT_CPLX(sop::Power{}(complex128(0, 0), complex128(-1, 0)), kNan, kNan);
  EXPECT_CPLX(sop::Power{}(complex128(kInf, kNan), complex128(2.5, 0.5)), kInf, kNan);
  EXPECT_CPLX(sop::FloatPower{}(complex128(2, 1), complex128(0.5, 0.25)), 1.208786251938855,
              0.5587751496134741);
  EXPECT_CPLX(sop::Expm1{}(complex128(1e-10, 1e-10)), 1e-10, 1.0000000001000001e-10);
  EXPECT_PRED2(close, sop::Absolute{}(complex64(3, 4)), 5.0);
  const complex64 e = sop::Exp{}(complex64(1, 2));
  EXPECT_PRED2(close_f, e.re, -1.1312043837568135);
  EXPECT_PRED2(close_f, e.im, 2.4717266720048188);
}

TEST(Convert, FloatToIntAsNumPyOnX86) {
  // np.array([nan, inf, -inf, 1e20, -1, 3e9, -3e9, 300.7, -129.5]).astype(...)
  const double x[] = {kNan, kInf, -kInf, 1e20, -1.0, 3e9, -3e9, 300.7, -129.5};
  const int8_t i8[] = {0, 0, 0, 0, -1, 0, 0, 44, 127};
  const uint16_t u16[] = {0, 0, 0, 0, 65535, 0, 0, 300, 65407};
  const int32_t i32[] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, -1, INT32_MIN, INT32_MIN,
                         300, -129};
  const uint32_t u32[] = {2147483648u, 0, 2147483648u, 0, 4294967295u, 3000000000u, 2147483648u,
                          300, 4294967167u};
  const int64_t i64[] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, -1, 3000000000, -3000000000,
                         300, -129};
  const uint64_t u64[] = {9223372036854775808ull, 0, 9223372036854775808ull, 0,
                          18446744073709551615ull, 3000000000ull, 18446744070709551616ull, 300,
                          18446744073709551487ull};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(convert<int8_t>(x[i]), i8[i]) << i;
    EXPECT_EQ(convert<uint16_t>(x[i]), u16[i]) << i;
    EXPECT_EQ(convert<int32_t>(x[i]), i32[i]) << i;
    EXPECT_EQ(convert<uint32_t>(x[i]), u32[i]) << i;
    EXPECT_EQ(convert<int64_t>(x[i]), i64[i]) << i;
    EXPECT_EQ(convert<uint64_t>(x[i]), u64[i]) << i;
    EXPECT_EQ(convert<int32_t>(float(x[i])), convert<int32_t>(double(float(x[i])))) << i;
  }
  EXPECT_EQ(convert<uint64_t>(18446744073709551616.0), 0u);
}

TEST(Convert, BoolComplexAndHalf) {
  EXPECT_TRUE(convert<bool>(kNan));
  EXPECT_FALSE(convert<bool>(-0.0));
  EXPECT_TRUE(convert<bool>(complex64(0, 1)));
  EXPECT_EQ(convert<double>(complex128(2.5, 7)), 2.5);
  EXPECT_EQ(convert<int16_t>(complex128(-3.9, 7)), -3);
  const complex64 c = convert<complex64>(true);
  EXPECT_EQ(c.re, 1.0f);
  EXPECT_EQ(c.im, 0.0f);
  EXPECT_EQ(convert<int8_t>(int32_t(300)), 44);
  EXPECT_EQ(convert<uint8_t>(int8_t(-1)), 255);
  EXPECT_EQ(convert<float>(uint64_t(18446744073709551615ull)), 18446744073709551616.0f);
  // float16: 65504 is the largest finite value; 65520 rounds to inf; 2049 rounds to even 2048.
  EXPECT_EQ(float(convert<half>(65504.0)), 65504.0f);
  EXPECT_TRUE(std::isinf(float(convert<half>(65520.0))));
  EXPECT_EQ(float(convert<half>(int32_t(2049))), 2048.0f);
  EXPECT_EQ(float(convert<half>(0.1f)), 0.0999755859375f);
  // Rounding once from double: 1 + 2^-11 + 2^-40 is above the half-way point of two halves.
  EXPECT_EQ(float(convert<half>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))), 1.0009765625f);
  EXPECT_EQ(convert<int32_t>(convert<half>(-3.75)), -3);
  EXPECT_EQ(convert<int64_t>(convert<half>(65520.0)), INT64_MIN);  // inf
  for (int i = -2048; i <= 2048; ++i) EXPECT_EQ(convert<int32_t>(convert<half>(int32_t(i))), i);
}

}  // namespace
