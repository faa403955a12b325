// Interrupting evaluation (core/interrupt.h) and the thread pool's regions from several threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/reduction.h"

using namespace nf;

TEST(ThreadPool, RegionWhileAnotherHoldsThePoolRunsInline) {
  if (cpu::num_threads() < 2) GTEST_SKIP() << "one thread: no pool to hold";
  std::atomic<bool> release{false}, holding{false};
  std::thread holder([&] {
    cpu::parallel_for(1 << 20, 1 << 10, [&](int64_t, int64_t) {
      holding = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!holding) std::this_thread::yield();
  // The pool is busy with the region above, which cannot end until this one has: waiting for
  // the pool would deadlock, so this region must run on its own thread.
  std::vector<int> seen(100000, 0);
  cpu::parallel_for(int64_t(seen.size()), 64, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) ++seen[size_t(i)];
  });
  release = true;
  holder.join();
  for (int v : seen) ASSERT_EQ(v, 1);
}

TEST(ThreadPool, InterruptStopsARegionBetweenChunks) {
  std::atomic<bool> flag{false};
  InterruptScope watch(&flag);
  std::atomic<int64_t> done{0};
  const int64_t n = int64_t(1) << 24;
  EXPECT_THROW(cpu::parallel_for(n, 1024,
                                 [&](int64_t b, int64_t e) {
                                   done += e - b;
                                   flag = true;  // Ctrl-C after the first chunk
                                 }),
               Interrupted);
  EXPECT_LT(done.load(), n / 2);
  flag = false;
  done = 0;
  cpu::parallel_for(n, 1024, [&](int64_t b, int64_t e) { done += e - b; });
  EXPECT_EQ(done.load(), n);
}

TEST(ThreadPool, SetNumThreadsAfterUse) {
  const int before = cpu::num_threads();
  std::atomic<int64_t> total{0};
  cpu::parallel_for(1 << 20, 1024, [&](int64_t b, int64_t e) { total += e - b; });
  cpu::set_num_threads(3);
  cpu::parallel_for(1 << 20, 1024, [&](int64_t b, int64_t e) { total += e - b; });
  cpu::set_num_threads(before);
  cpu::parallel_for(1 << 20, 1024, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 3 << 20);
}

TEST(Interrupt, InterruptedEvaluationLeavesItsArrayPending) {
  const int64_t n = int64_t(1) << 20;  // long enough to be claimed and run without the lock
  Array x = arange(0, 1, n, DType::Float64, Device::cpu());
  Array y = ufunc2(UFunc::Multiply, Operand::of(x), Operand::py_float(2.0));
  Array s = reduce(ReduceOp::Sum, ufunc1(UFunc::Sqrt, Operand::of(y)));
  std::atomic<bool> flag{true};
  {
    InterruptScope watch(&flag);
    EXPECT_THROW(eval(s, FlushReason::HostRead), Interrupted);
  }
  EXPECT_TRUE(s.pending());
  EXPECT_TRUE(y.pending());
  eval(s, FlushReason::HostRead);
  double expected = 0;
  for (int64_t i = 0; i < n; ++i) expected += std::sqrt(2.0 * double(i));
  EXPECT_NEAR(*s.data_as<double>(), expected, 1e-9 * expected);
  eval(y, FlushReason::HostRead);
  EXPECT_EQ(y.data_as<double>()[n - 1], 2.0 * double(n - 1));
}
