#include "numfuse/backend/cuda/fft_plan_cache.h"

#include <string>

#include "numfuse/core/error.h"

namespace nf::cuda {

bool FftPlanKey::operator==(const FftPlanKey& o) const {
  return device == o.device && type == o.type && rank == o.rank && n == o.n &&
         inembed == o.inembed && onembed == o.onembed && istride == o.istride && idist == o.idist &&
         ostride == o.ostride && odist == o.odist && batch == o.batch;
}

FftPlan::~FftPlan() {
  if (destroy && handle >= 0) destroy(handle);
}

std::shared_ptr<FftPlan> FftPlanCache::get(const FftPlanKey& key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = plans_.begin(); it != plans_.end(); ++it) {
      if (it->first == key) {
        plans_.splice(plans_.begin(), plans_, it);  // now the most recently used
        return plans_.front().second;
      }
    }
  }
  // Made outside the lock: planning can take milliseconds, and other keys need not wait.
  std::shared_ptr<FftPlan> plan = make_(key);
  std::lock_guard<std::mutex> lock(mutex_);
  const bool fits = size_ != 0 && (memsize_ < 0 || int64_t(plan->work_bytes) <= memsize_);
  if (fits) {
    plans_.emplace_front(key, plan);
    bytes_ += int64_t(plan->work_bytes);
    trim_locked();
  }
  return plan;
}

void FftPlanCache::trim_locked() {
  while (!plans_.empty() &&
         ((size_ >= 0 && int64_t(plans_.size()) > size_) || (memsize_ >= 0 && bytes_ > memsize_))) {
    bytes_ -= int64_t(plans_.back().second->work_bytes);
    plans_.pop_back();
  }
}

void FftPlanCache::set_limits(std::optional<int64_t> size, std::optional<int64_t> memsize) {
  if (size && *size < -1)
    throw ValueError("plan cache size must be >= -1, got " + std::to_string(*size));
  if (memsize && *memsize < -1) {
    throw ValueError("plan cache memsize must be >= -1, got " + std::to_string(*memsize));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (size) size_ = *size;
  if (memsize) memsize_ = *memsize;
  trim_locked();
}

void FftPlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.clear();
  bytes_ = 0;
}

FftPlanCacheInfo FftPlanCache::info() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {size_, memsize_, int64_t(plans_.size()), bytes_};
}

}  // namespace nf::cuda
