// cuFFT's side of numfuse.fft without a GPU: the declarations of cufft_abi.h against the toolkit's
// cufft.h, and the plan cache's limits (CuPy's semantics) with a fake plan factory. The transforms
// themselves run in tests/test_fft.py on the cuda device.
#include <gtest/gtest.h>

#include <type_traits>

#include "numfuse/backend/cuda/cufft_abi.h"
#include "numfuse/backend/cuda/fft_cuda.h"
#include "numfuse/backend/cuda/fft_plan_cache.h"
#include "numfuse/core/error.h"

#ifdef NUMFUSE_TEST_NVRTC
#include <cufft.h>
#endif

using namespace nf;
using namespace nf::cuda;

namespace {

FftPlanKey key_of(int64_t n, int64_t batch = 1, int device = 0) {
  FftPlanKey k;
  k.device = device;
  k.type = cufft_abi::CUFFT_C2C;
  k.n[0] = n;
  k.batch = batch;
  return k;
}

// A factory counting the plans it makes and those destroyed; each plan's work area is n bytes.
struct FakeFactory {
  int made = 0;
  std::shared_ptr<int> destroyed = std::make_shared<int>(0);
  FftPlanCache::Factory get() {
    return [this](const FftPlanKey& k) {
      auto p = std::make_shared<FftPlan>();
      p->handle = made++;
      p->work_bytes = size_t(k.n[0]);
      auto d = destroyed;
      p->destroy = [d](int) { ++*d; };
      return p;
    };
  }
};

}  // namespace

TEST(FftPlanCache, ReusesPlansByKey) {
  FakeFactory f;
  FftPlanCache cache(f.get());
  auto a = cache.get(key_of(8));
  auto b = cache.get(key_of(8));
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(f.made, 1);
  auto c = cache.get(key_of(8, 2));     // another batch: another plan
  auto d = cache.get(key_of(8, 1, 1));  // another device: another plan
  EXPECT_NE(a.get(), c.get());
  EXPECT_NE(a.get(), d.get());
  EXPECT_EQ(f.made, 3);
  const FftPlanCacheInfo i = cache.info();
  EXPECT_EQ(i.size, 16);
  EXPECT_EQ(i.memsize, -1);
  EXPECT_EQ(i.curr_size, 3);
  EXPECT_EQ(i.curr_memsize, 24);
}

TEST(FftPlanCache, EvictsLeastRecentlyUsedWithinSizeAndMemsize) {
  FakeFactory f;
  FftPlanCache cache(f.get());
  cache.set_limits(2, std::nullopt);
  cache.get(key_of(4));
  cache.get(key_of(5));
  cache.get(key_of(4));  // 4 is now the most recent: 5 goes next
  cache.get(key_of(6));
  EXPECT_EQ(cache.info().curr_size, 2);
  EXPECT_EQ(*f.destroyed, 1);
  cache.get(key_of(4));
  EXPECT_EQ(f.made, 3);  // 4 was kept
  cache.get(key_of(5));
  EXPECT_EQ(f.made, 4);      // 5 was not
  cache.set_limits(-1, 10);  // 5 + 4 bytes fit, 6 more do not
  EXPECT_LE(cache.info().curr_memsize, 10);
  cache.get(key_of(100));  // larger than memsize: made, used, never cached
  EXPECT_LE(cache.info().curr_memsize, 10);
  cache.clear();
  EXPECT_EQ(cache.info().curr_size, 0);
  EXPECT_EQ(cache.info().curr_memsize, 0);
  EXPECT_EQ(*f.destroyed, f.made);  // every plan made was destroyed once, none twice
}

TEST(FftPlanCache, SizeZeroDisablesCachingAndHeldPlansOutliveEviction) {
  FakeFactory f;
  FftPlanCache cache(f.get());
  auto held = cache.get(key_of(8));
  cache.set_limits(0, std::nullopt);
  EXPECT_EQ(cache.info().curr_size, 0);
  EXPECT_EQ(*f.destroyed, 0);  // still held by the caller
  held.reset();
  EXPECT_EQ(*f.destroyed, 1);
  cache.get(key_of(8));
  cache.get(key_of(8));
  EXPECT_EQ(f.made, 3);
  EXPECT_THROW(cache.set_limits(-2, std::nullopt), ValueError);
  EXPECT_THROW(cache.set_limits(std::nullopt, -5), ValueError);
}

TEST(FftPlanCache, DeviceCachesAreSeparateAndBounded) {
  EXPECT_NE(&fft_plan_cache(0), &fft_plan_cache(1));
  EXPECT_EQ(&fft_plan_cache(1), &fft_plan_cache(1));
  EXPECT_THROW(fft_plan_cache(64), ValueError);
  EXPECT_THROW(fft_plan_cache(-1), ValueError);
}

TEST(Cufft, ResultTextNamesTheStatus) {
  EXPECT_EQ(cufft_result_text(2), "CUFFT_ALLOC_FAILED");
  EXPECT_EQ(cufft_result_text(8), "CUFFT_INVALID_SIZE");
  EXPECT_EQ(cufft_result_text(0xE), "CUFFT_NOT_IMPLEMENTED");
  EXPECT_EQ(cufft_result_text(99), "cufftResult 99");
}

// ---- cuFFT declarations against the toolkit's header -------------------------------------------

#ifdef NUMFUSE_TEST_NVRTC
namespace {
template <class T>
using abi_arg = std::conditional_t<std::is_pointer_v<T>, const void*,
                                   std::conditional_t<std::is_enum_v<T>, int, T>>;
template <class R, class... A>
struct AbiSig {
  using type = abi_arg<R> (*)(abi_arg<A>...);
};
template <class R, class... A>
AbiSig<R, A...> abi_sig(R (*)(A...));
#define NF_FFT_ABI(f) decltype(abi_sig(f))::type
#define NF_SAME_FFT_ABI(real, ours) \
  static_assert(std::is_same_v<NF_FFT_ABI(&real), NF_FFT_ABI(cufft_abi::ours{})>, #real)
NF_SAME_FFT_ABI(cufftCreate, CreateFn);
NF_SAME_FFT_ABI(cufftDestroy, DestroyFn);
NF_SAME_FFT_ABI(cufftMakePlanMany64, MakePlanMany64Fn);
NF_SAME_FFT_ABI(cufftSetStream, SetStreamFn);
NF_SAME_FFT_ABI(cufftGetVersion, GetVersionFn);
NF_SAME_FFT_ABI(cufftExecC2C, ExecComplexFn);
NF_SAME_FFT_ABI(cufftExecZ2Z, ExecComplexFn);
NF_SAME_FFT_ABI(cufftExecR2C, ExecRealFn);
NF_SAME_FFT_ABI(cufftExecD2Z, ExecRealFn);
NF_SAME_FFT_ABI(cufftExecC2R, ExecRealFn);
NF_SAME_FFT_ABI(cufftExecZ2D, ExecRealFn);
static_assert(cufft_abi::CUFFT_SUCCESS == ::CUFFT_SUCCESS);
static_assert(cufft_abi::CUFFT_ALLOC_FAILED == ::CUFFT_ALLOC_FAILED);
static_assert(cufft_abi::kCufftForward == CUFFT_FORWARD);
static_assert(cufft_abi::kCufftInverse == CUFFT_INVERSE);
static_assert(cufft_abi::CUFFT_R2C == ::CUFFT_R2C && cufft_abi::CUFFT_C2R == ::CUFFT_C2R &&
              cufft_abi::CUFFT_C2C == ::CUFFT_C2C && cufft_abi::CUFFT_D2Z == ::CUFFT_D2Z &&
              cufft_abi::CUFFT_Z2D == ::CUFFT_Z2D && cufft_abi::CUFFT_Z2Z == ::CUFFT_Z2Z);
static_assert(sizeof(cufftHandle) == sizeof(cufft_abi::cufftHandle));
}  // namespace
#endif
