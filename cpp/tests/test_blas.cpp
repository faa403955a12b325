// nf::cpu::gemm against a naive triple loop, for every dtype, transpose and awkward size.
//
// NumPy is not loaded into this test binary, so the BLAS search finds a system library, or the
// one named by NUMFUSE_BLAS_LIBRARY (e.g. NumPy's wheel copy:
//   NUMFUSE_BLAS_LIBRARY=$(ls .venv/lib/python3*/site-packages/numpy.libs/libscipy_openblas64_*.so)
// ), or none (NUMFUSE_BLAS_LIBRARY=none forces that); the tests pass in each case, and check the built-in loop on its own as well.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/core/error.h"

namespace {

using nf::DType;

template <class T>
struct is_cplx : std::false_type {};
template <class R>
struct is_cplx<nf::complex<R>> : std::true_type {};

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    return (rng() % 16) == 0;  // sparse, so an OR of ANDs is not always true
  } else if constexpr (std::is_same_v<T, nf::half>) {
    return nf::half(std::uniform_real_distribution<float>(-2.f, 2.f)(rng));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(rng());  // full range: products and sums wrap
  } else if constexpr (is_cplx<T>::value) {
    using R = decltype(T{}.re);
    std::uniform_real_distribution<R> d(-1, 1);
    const R re = d(rng);
    return T(re, d(rng));
  } else {
    return std::uniform_real_distribution<T>(-1, 1)(rng);
  }
}

// A plain array of T (std::vector<bool> packs bits and has no data()).
template <class T>
struct Buf {
  std::vector<T> v;
  Buf() = default;
  Buf(size_t n) : v(n) {}
  template <class It>
  Buf(It b, It e) : v(b, e) {}
  T* data() { return v.data(); }
  const T* data() const { return v.data(); }
  T& operator[](size_t i) { return v[i]; }
  const T& operator[](size_t i) const { return v[i]; }
  void resize(size_t n) { v.resize(n); }
  size_t size() const { return v.size(); }
  T* begin() { return v.data(); }
  T* end() { return v.data() + v.size(); }
  const T* begin() const { return v.data(); }
  const T* end() const { return v.data() + v.size(); }
};
struct Bool8 {  // stands in for bool inside Buf, same layout
  bool b;
};
template <>
struct Buf<bool> {
  std::vector<Bool8> v;
  Buf() = default;
  Buf(size_t n) : v(n) {}
  Buf(const bool* b, const bool* e) {
    for (; b != e; ++b) v.push_back({*b});
  }
  bool* data() { return reinterpret_cast<bool*>(v.data()); }
  const bool* data() const { return reinterpret_cast<const bool*>(v.data()); }
  bool& operator[](size_t i) { return v[i].b; }
  const bool& operator[](size_t i) const { return v[i].b; }
  void resize(size_t n) { v.resize(n); }
  size_t size() const { return v.size(); }
  bool* begin() { return data(); }
  bool* end() { return data() + v.size(); }
  const bool* begin() const { return data(); }
  const bool* end() const { return data() + v.size(); }
};

template <class T>
struct Matrices {
  int64_t M, N, K, lda, ldb, ldc;
  bool ta, tb;
  Buf<T> A, B, C;
  T a(int64_t i, int64_t k) const { return ta ? A[k * lda + i] : A[i * lda + k]; }
  T b(int64_t k, int64_t j) const { return tb ? B[j * ldb + k] : B[k * ldb + j]; }
};

template <class T>
Matrices<T> make(int64_t M, int64_t N, int64_t K, bool ta, bool tb, int64_t pad, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Matrices<T> m{M, N, K, (ta ? M : K) + pad, (tb ? K : N) + pad, N + pad, ta, tb, {}, {}, {}};
  const int64_t arows = ta ? K : M, brows = tb ? N : K;
  m.A.resize(std::max<int64_t>(1, arows * m.lda));
  m.B.resize(std::max<int64_t>(1, brows * m.ldb));
  m.C.resize(std::max<int64_t>(1, M * m.ldc));
  for (auto& v : m.A) v = random_value<T>(rng);
  for (auto& v : m.B) v = random_value<T>(rng);
  for (auto& v : m.C) v = random_value<T>(rng);  // garbage the product must overwrite
  return m;
}

template <class T>
void check(const Matrices<T>& m, const Buf<T>& C, const std::string& what) {
  for (int64_t i = 0; i < m.M; ++i) {
    for (int64_t j = 0; j < m.N; ++j) {
      const T got = C[i * m.ldc + j];
      SCOPED_TRACE(what + " at (" + std::to_string(i) + "," + std::to_string(j) + ")");
      if constexpr (std::is_same_v<T, bool>) {
        bool want = false;
        for (int64_t k = 0; k < m.K; ++k) want = want || (m.a(i, k) && m.b(k, j));
        ASSERT_EQ(got, want);
      } else if constexpr (std::is_same_v<T, nf::half>) {
        float sum = 0;  // NumPy's HALF_matmul: float32 sum in ascending k, one rounding
        for (int64_t k = 0; k < m.K; ++k) {
          const float p = static_cast<float>(m.a(i, k)) * static_cast<float>(m.b(k, j));
          sum = sum + p;
        }
        ASSERT_EQ(got.bits, nf::half(sum).bits);
      } else if constexpr (std::is_integral_v<T>) {
        uint64_t sum = 0;  // modular arithmetic: the low bits are NumPy's wrapped result
        for (int64_t k = 0; k < m.K; ++k)
          sum += static_cast<uint64_t>(m.a(i, k)) * static_cast<uint64_t>(m.b(k, j));
        ASSERT_EQ(got, static_cast<T>(sum));
      } else if constexpr (is_cplx<T>::value) {
        using R = decltype(T{}.re);
        long double re = 0, im = 0, mag = 0;
        for (int64_t k = 0; k < m.K; ++k) {
          const T x = m.a(i, k), y = m.b(k, j);
          re += (long double)x.re * y.re - (long double)x.im * y.im;
          im += (long double)x.re * y.im + (long double)x.im * y.re;
          mag += (std::fabs((long double)x.re) + std::fabs((long double)x.im)) *
                 (std::fabs((long double)y.re) + std::fabs((long double)y.im));
        }
        const long double tol = 4 * (m.K + 2) * std::numeric_limits<R>::epsilon() * mag + 1e-30L;
        ASSERT_LE(std::fabs(got.re - re), tol);
        ASSERT_LE(std::fabs(got.im - im), tol);
      } else {
        long double sum = 0, mag = 0;
        for (int64_t k = 0; k < m.K; ++k) {
          sum += (long double)m.a(i, k) * m.b(k, j);
          mag += std::fabs((long double)m.a(i, k) * m.b(k, j));
        }
        const long double tol = 2 * (m.K + 2) * std::numeric_limits<T>::epsilon() * mag + 1e-30L;
        ASSERT_LE(std::fabs(got - sum), tol);
      }
    }
  }
}

struct Shape {
  int64_t M, N, K, pad;
};
const Shape kShapes[] = {
    {1, 1, 1, 0},   {0, 3, 4, 0},   {3, 0, 4, 0},  {3, 4, 0, 0},   {1, 7, 5, 0},
    {7, 1, 5, 0},   {5, 7, 1, 0},   {1, 1, 9, 0},  {2, 3, 4, 3},   {17, 33, 65, 0},
    {33, 17, 65, 5}, {67, 70, 300, 1}, {130, 45, 20, 0}, {9, 600, 3, 0},
};

template <class T>
class GemmTyped : public ::testing::Test {};
using AllTypes = ::testing::Types<bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                                  int64_t, uint64_t, nf::half, float, double, nf::complex64,
                                  nf::complex128>;
TYPED_TEST_SUITE(GemmTyped, AllTypes);

template <class T, class F>
void run_all(F&& fn, const char* name) {
  const DType dt = nf::dtype_of<T>::value;
  uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      Matrices<T> m = make<T>(s.M, s.N, s.K, ta, tb, s.pad, seed++);
      Buf<T> C = m.C;
      fn(dt, ta, tb, s.M, s.N, s.K, m.A.data(), m.lda, m.B.data(), m.ldb, C.data(), m.ldc);
      const std::string what = std::string(name) + " M=" + std::to_string(s.M) +
                               " N=" + std::to_string(s.N) + " K=" + std::to_string(s.K) +
                               " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
      check(m, C, what);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(GemmTyped, Gemm) { run_all<TypeParam>(nf::cpu::gemm, "gemm"); }
TYPED_TEST(GemmTyped, Builtin) { run_all<TypeParam>(nf::cpu::gemm_builtin, "builtin"); }

TYPED_TEST(GemmTyped, StridedBatched) {
  using T = TypeParam;
  const DType dt = nf::dtype_of<T>::value;
  const int64_t M = 5, N = 6, K = 7, batch = 3;
  std::mt19937_64 rng(77);
  Buf<T> A(batch * M * K), B(K * N), C(batch * M * N);
  for (auto& v : A) v = random_value<T>(rng);
  for (auto& v : B) v = random_value<T>(rng);
  // B broadcast over the batch (stride 0).
  nf::cpu::gemm_strided_batched(dt, false, false, M, N, K, A.data(), K, M * K, B.data(), N, 0,
                                C.data(), N, M * N, batch);
  for (int64_t b = 0; b < batch; ++b) {
    Matrices<T> m{M, N, K, K, N, N, false, false,
                  Buf<T>(A.begin() + b * M * K, A.begin() + (b + 1) * M * K), B, {}};
    Buf<T> Cb(C.begin() + b * M * N, C.begin() + (b + 1) * M * N);
    check(m, Cb, "batch " + std::to_string(b));
  }
}

// Rows of A that overlap (lda = 0, a broadcast row) cannot go to BLAS; gemm must still be right.
TEST(Gemm, BroadcastRowsFallBack) {
  const int64_t M = 4, N = 3, K = 5;
  std::vector<double> a(K), B(K * N), C(M * N, -1.0);
  for (int64_t k = 0; k < K; ++k) a[k] = k + 1;
  for (int64_t i = 0; i < K * N; ++i) B[i] = 0.5 * i;
  nf::cpu::gemm(DType::Float64, false, false, M, N, K, a.data(), 0, B.data(), N, C.data(), N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k) want += a[k] * B[k * N + j];
      EXPECT_DOUBLE_EQ(C[i * N + j], want);
    }
  }
}

TEST(Gemm, NaNPropagatesThroughZeros) {
  // NumPy: 0 * nan = nan, so a zero row does not hide a NaN column.
  const double A[2] = {0.0, 0.0}, B[2] = {std::nan(""), 1.0};
  double C[1] = {0};
  nf::cpu::gemm_builtin(DType::Float64, false, false, 1, 1, 2, A, 2, B, 1, C, 1);
  EXPECT_TRUE(std::isnan(C[0]));
}

TEST(Gemm, LargeBuiltinMatchesBlasWithThreads) {
  const int64_t M = 200, N = 190, K = 513;
  std::mt19937_64 rng(5);
  std::vector<float> A(M * K), B(K * N), C1(M * N), C2(M * N);
  for (auto& v : A) v = random_value<float>(rng);
  for (auto& v : B) v = random_value<float>(rng);
  nf::cpu::set_blas_threads(2);
  EXPECT_EQ(nf::cpu::blas_threads(), 2);
  nf::cpu::gemm(DType::Float32, false, true, M, N, K, A.data(), K, B.data(), K, C1.data(), N);
  nf::cpu::gemm_builtin(DType::Float32, false, true, M, N, K, A.data(), K, B.data(), K, C2.data(), N);
  nf::cpu::set_blas_threads(0);
  for (int64_t i = 0; i < M * N; ++i) ASSERT_NEAR(C1[i], C2[i], 1e-4f * std::sqrt(float(K)));
}

TEST(Blas, LibraryDiscovery) {
  const std::string d = nf::cpu::blas_description();
  std::printf("BLAS: %s\n", d.c_str());
  EXPECT_FALSE(d.empty());
  if (nf::cpu::blas_available()) {
    EXPECT_NO_THROW(nf::cpu::blas_require());
  } else {
    EXPECT_THROW(nf::cpu::blas_require(), nf::Error);
  }
}

TEST(Blas, BadPathThrowsAndKeepsTheLibrary) {
  const std::string before = nf::cpu::blas_description();
  try {
    nf::cpu::blas_set_library_path("/nonexistent/libnotblas.so");
    FAIL() << "expected nf::Error";
  } catch (const nf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libnotblas.so"), std::string::npos);
  }
  // A real library without cblas symbols.
  EXPECT_THROW(nf::cpu::blas_set_library_path("libm.so.6"), nf::Error);
  EXPECT_EQ(nf::cpu::blas_description(), before);
}

// Counts the fallback warnings of the whole run: installed before any test multiplies.
int g_fallback_calls = 0;
std::string g_fallback_message;
struct CountFallbacks : ::testing::Environment {
  void SetUp() override {
    nf::cpu::set_blas_fallback_hook([](const std::string& msg) {
      ++g_fallback_calls;
      g_fallback_message = msg;
    });
  }
};
const auto* const kCountFallbacks = ::testing::AddGlobalTestEnvironment(new CountFallbacks);

TEST(Blas, FallbackHookIsCalledOnceWithoutBlas) {
  if (nf::cpu::blas_available()) GTEST_SKIP() << "a BLAS library is in use";
  const float A[1] = {2}, B[1] = {3};
  float C[1];
  nf::cpu::gemm(DType::Float32, false, false, 1, 1, 1, A, 1, B, 1, C, 1);
  nf::cpu::gemm(DType::Float32, false, false, 1, 1, 1, A, 1, B, 1, C, 1);
  EXPECT_EQ(C[0], 6.0f);
  EXPECT_EQ(g_fallback_calls, 1);
  EXPECT_NE(g_fallback_message.find("NUMFUSE_BLAS_LIBRARY"), std::string::npos);
}

}  // namespace

namespace {
// Without a tuned BLAS in reach, name the system's reference libblas.so.3 explicitly (if there
// is one), so that the BLAS call path (symbols, integer width, leading dimensions) is exercised.
// Runs last: it changes the process's library for good.
TEST(BlasZ, ExplicitLibraryPath) {
  if (!nf::cpu::blas_available()) {
    try {
      nf::cpu::blas_set_library_path("libblas.so.3");
    } catch (const nf::Error& e) {
      GTEST_SKIP() << "no BLAS to name: " << e.what();
    }
  }
  ASSERT_TRUE(nf::cpu::blas_available());
  std::printf("BLAS: %s\n", nf::cpu::blas_description().c_str());
  run_all<float>(nf::cpu::gemm, "gemm float32");
  run_all<double>(nf::cpu::gemm, "gemm float64");
  run_all<nf::complex64>(nf::cpu::gemm, "gemm complex64");
  run_all<nf::complex128>(nf::cpu::gemm, "gemm complex128");
}
}  // namespace
