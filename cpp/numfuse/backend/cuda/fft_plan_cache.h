// cuFFT's plan cache, under CuPy's names and limits (numfuse.fft.config.get_plan_cache()): plans
// keyed by their geometry (rank, lengths, layout, batch), type and device, kept most recently used
// first within a count (`size`, CuPy's default 16; 0 turns caching off) and a byte limit on the
// plans' work areas (`memsize`, -1: none). A plan in use is held by a shared_ptr, so evicting it
// only drops the cache's reference. The cache logic knows nothing of cuFFT: fft_cuda.cpp gives it
// the factory that makes plans (and the C++ tests a fake one).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>

namespace nf::cuda {

// What a plan is for: cufftMakePlanMany64's arguments, the type and the device.
struct FftPlanKey {
  int device = 0;
  int type = 0;  // cufftType
  int rank = 1;  // 1 to 3
  std::array<int64_t, 3> n{}, inembed{}, onembed{};
  int64_t istride = 1, idist = 0, ostride = 1, odist = 0, batch = 1;
  bool operator==(const FftPlanKey& o) const;
};

// A made plan: the cuFFT handle and its work area's size. `exec_mutex` pairs the binding of the
// plan's stream with the launches that use it, when two threads share a plan.
struct FftPlan {
  int handle = -1;
  size_t work_bytes = 0;
  std::mutex exec_mutex;
  std::function<void(int)> destroy;  // cufftDestroy; empty for the tests' fakes
  ~FftPlan();
};

struct FftPlanCacheInfo {
  int64_t size, memsize, curr_size, curr_memsize;
};

class FftPlanCache {
 public:
  using Factory = std::function<std::shared_ptr<FftPlan>(const FftPlanKey&)>;
  explicit FftPlanCache(Factory make) : make_(std::move(make)) {}

  // The cached plan for `key`, or a new one (cached when the limits let it be).
  std::shared_ptr<FftPlan> get(const FftPlanKey& key);
  // New limits (nullopt: unchanged); the least recently used plans go until they hold.
  void set_limits(std::optional<int64_t> size, std::optional<int64_t> memsize);
  void clear();
  FftPlanCacheInfo info() const;

 private:
  void trim_locked();
  Factory make_;
  mutable std::mutex mutex_;
  std::list<std::pair<FftPlanKey, std::shared_ptr<FftPlan>>> plans_;  // most recent first
  int64_t size_ = 16, memsize_ = -1, bytes_ = 0;
};

// The cache of cuFFT plans for `device` (0..63), made on first use with fft_cuda.cpp's factory.
FftPlanCache& fft_plan_cache(int device);

}  // namespace nf::cuda
