// The sort family's C++ pieces: the CPU radix sort and the NumPy-ordered keys (against
// std::stable_sort with NumPy's comparator), and the CUDA sort kernels' NVRTC source, which must
// compile for every dtype (no GPU needed) with a parameter struct of the host's layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "numfuse/backend/cpu/radix_sort.h"
#include "numfuse/backend/cpu/sort_keys.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/sort_radix_cuda.h"
#include "nvrtc_check.h"

namespace nf::cuda {
extern const char* const kKernelPrelude;
}

using namespace nf;

namespace {

// NumPy's float order (npysort's FLOAT_LT): NaNs last.
bool numpy_less(double a, double b) { return a < b || (b != b && a == a); }

template <class T, int kParts>
void check_radix_argsort(const std::vector<T>& data) {
  using SK = cpu::SortKey<T>;
  using K = typename SK::K;
  const int64_t n = static_cast<int64_t>(data.size());
  std::vector<K> ka(n), kb(n);
  std::vector<int64_t> ia(n), ib(n), got(n);
  cpu::radix_sort<K, true>(
      n, kParts, [&](int64_t i) { return SK::key(data[i], true); },
      [&](int64_t pos, K, int64_t i) { got[pos] = i; }, ka.data(), kb.data(), ia.data(), ib.data());
  std::vector<int64_t> want(n);
  std::iota(want.begin(), want.end(), int64_t(0));
  std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
    return numpy_less(static_cast<double>(data[a]), static_cast<double>(data[b]));
  });
  EXPECT_EQ(got, want);
}

}  // namespace

TEST(SortKeys, FloatKeysOrderAsNumPy) {
  const double v[] = {-std::numeric_limits<double>::infinity(), -1e300, -1.0, -1e-310, -0.0, 0.0,
                      1e-310, 1.0, 1e300, std::numeric_limits<double>::infinity()};
  for (size_t i = 0; i + 1 < std::size(v); ++i) {
    EXPECT_LE(cpu::SortKey<double>::key(v[i]), cpu::SortKey<double>::key(v[i + 1])) << v[i];
    EXPECT_EQ(cpu::SortKey<double>::value(cpu::SortKey<double>::key(v[i])), v[i]);
  }
  const double nan = std::nan("");
  EXPECT_GT(cpu::SortKey<double>::key(-nan), cpu::SortKey<double>::key(v[std::size(v) - 1]));
  EXPECT_EQ(cpu::SortKey<double>::key(-0.0, true), cpu::SortKey<double>::key(0.0, true));
  EXPECT_TRUE(std::isnan(cpu::SortKey<double>::value(cpu::SortKey<double>::key(nan))));
}

TEST(SortKeys, IntegerKeysOrderAsValues) {
  EXPECT_LT(cpu::SortKey<int64_t>::key(-5), cpu::SortKey<int64_t>::key(3));
  EXPECT_LT(cpu::SortKey<int8_t>::key(-128), cpu::SortKey<int8_t>::key(127));
  EXPECT_EQ(cpu::SortKey<int32_t>::value(cpu::SortKey<int32_t>::key(-7)), -7);
}

TEST(RadixSort, StableArgsortWithNaNsAndDuplicates) {
  std::mt19937_64 rng(7);
  for (int64_t n : {1, 5, 4095, 20000, 100001}) {
    std::vector<double> d(n);
    for (auto& x : d) {
      const int r = static_cast<int>(rng() % 10);
      x = r == 0 ? std::nan("") : r == 1 ? -0.0 : r == 2 ? 0.0 : static_cast<double>(rng() % 50) - 25;
    }
    check_radix_argsort<double, 1>(d);
    check_radix_argsort<double, 3>(d);
    std::vector<float> f(d.begin(), d.end());
    check_radix_argsort<float, 2>(f);
    std::vector<int64_t> small(n);
    for (auto& x : small) x = static_cast<int64_t>(rng() % 7) - 3;  // one or two active digits
    std::vector<double> as_double(small.begin(), small.end());
    check_radix_argsort<int64_t, 2>(small);
  }
}

static_assert(sizeof(cuda::SortParams) == 128, "SortParams mirrors nf_sort_params");

TEST(SortKernels, EveryDTypeCompiles) {
  for (DType d : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32,
                  DType::UInt32, DType::Int64, DType::UInt64, DType::Float16, DType::Float32,
                  DType::Float64, DType::Complex64, DType::Complex128}) {
    // sort_body(d) is the source the backend compiles; the host's SortParams is 11 pointers and
    // 5 long longs (checked below), SearchParams 4 + 3.
    const std::string src = std::string(cuda::kKernelPrelude) + cuda::sort_body(d) +
                            "static_assert(sizeof(nf_sort_params) == 128, \"layout\");\n"
                            "static_assert(sizeof(nf_search_params) == 56, \"layout\");\n";
    expect_nvrtc_compiles(src, dtype_name(d));
  }
}
