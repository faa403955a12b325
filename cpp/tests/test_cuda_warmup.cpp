// The warm-up's bookkeeping (backend/cuda/warmup.h), on any machine: it starts once per process,
// wait_warmup returns when it is over, and a machine without a GPU (every step fails) ends it
// quietly. What it loads on a GPU is tested by tests/test_cuda_warmup.py there.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/warmup.h"

namespace nf::cuda {
namespace {

TEST(CudaWarmup, StartsOnceAndEndsQuietlyWithoutAGpu) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is here: tests/test_cuda_warmup.py covers it";
  start_warmup(0);  // no driver: each step throws inside the thread, which must swallow it
  wait_warmup();
  EXPECT_FALSE(warmup_running());
  start_warmup(0);  // once per process: no second thread
  EXPECT_FALSE(warmup_running());
  wait_warmup();
}

}  // namespace
}  // namespace nf::cuda
