// device_wait_begins (core/interrupt.h): where a long evaluation lets other threads run when its
// backend launches and then only waits (Backend::waits_for_device, CUDA's small-stack linalg).
#include <gtest/gtest.h>

#include "numfuse/core/interrupt.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/elementwise.h"

using namespace nf;

namespace {
int g_hook_runs = 0;
void count_hook() { ++g_hook_runs; }
int g_begins = 0, g_ends = 0;
int g_token = 0;
void* counting_begin() {
  ++g_begins;
  return &g_token;
}
void counting_end(void*) { ++g_ends; }
}  // namespace

TEST(DeviceWaitHook, RunsOnceAndHandsBackThePrevious) {
  device_wait_begins();  // no hook: nothing happens
  g_hook_runs = 0;
  EXPECT_EQ(set_device_wait_hook(&count_hook), nullptr);
  device_wait_begins();
  device_wait_begins();  // cleared by the first call
  EXPECT_EQ(g_hook_runs, 1);
  EXPECT_EQ(set_device_wait_hook(&count_hook), nullptr);
  EXPECT_EQ(set_device_wait_hook(nullptr), &count_hook);
  device_wait_begins();
  EXPECT_EQ(g_hook_runs, 1);
}

// The CPU backend computes on the host (waits_for_device is false): a long evaluation lets other
// threads run before its work, once, as before, and leaves no hook behind.
TEST(DeviceWaitHook, HostWorkBlocksBeforeItRuns) {
  EvalHooks hooks;
  hooks.begin_blocking = counting_begin;
  hooks.end_blocking = counting_end;
  set_eval_hooks(hooks);
  g_begins = g_ends = 0;
  Array a = zeros(Shape{1 << 18}, DType::Float64, Device::cpu());
  Array b = ufunc2(UFunc::Add, Operand::of(a), Operand::of(a));
  eval(b, FlushReason::Explicit);
  set_eval_hooks(EvalHooks{});
  EXPECT_EQ(g_begins, 1);
  EXPECT_EQ(g_ends, 1);
  g_hook_runs = 0;
  EXPECT_EQ(set_device_wait_hook(nullptr), nullptr);
}
