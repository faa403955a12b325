// Cancellation of long work (Ctrl-C). Evaluation runs without the GIL, so Python cannot raise
// KeyboardInterrupt in it: the Python module arms a flag around long evaluations on the main
// thread (a SIGINT handler sets it), and the CPU kernels poll the flag between chunks and throw
// Interrupted, which the evaluation turns back into Python's own handling of the signal.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>

namespace nf {

// Recursive kernels poll the flag on ranges larger than this (a poll every ~100 us of work).
constexpr int64_t kInterruptCheckItems = int64_t(1) << 16;

// Thrown by work that saw its interrupt flag set; the evaluation's entry point catches it.
struct Interrupted : std::exception {
  const char* what() const noexcept override { return "numfuse evaluation interrupted"; }
};

// The flag the calling thread's work watches (null: the work cannot be interrupted). Set for
// the span of an evaluation; the thread pool hands it to the workers running a region.
const std::atomic<bool>*& interrupt_flag();

// Set by the SIGINT handler of the Python module (async-signal-safe: one atomic store).
std::atomic<bool>& sigint_flag();

inline bool interrupt_requested() {
  const std::atomic<bool>* f = interrupt_flag();
  return f && f->load(std::memory_order_relaxed);
}

// Throws Interrupted when the calling thread's flag is set.
inline void check_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

// A long evaluation lets other threads run (releases the GIL, arms Ctrl-C) before it runs its
// work, except where the backend says the work only enqueues device work and then waits for it
// (Backend::waits_for_device): there the evaluation installs a hook instead, and the backend calls
// device_wait_begins() between its launch and its wait, so that the launch does not wait for the
// release (issue 13: ~0.5 us of a small stack's inv on the H100 host). Without a hook it does
// nothing; the hook runs once.
void device_wait_begins();
// Sets the calling thread's hook (null: none) and returns the one it replaces, for the evaluation
// (graph/eval.cpp), which puts that back when its work is done.
using DeviceWaitHook = void (*)();
DeviceWaitHook set_device_wait_hook(DeviceWaitHook hook);

// Watches `flag` (may be null) until destroyed, then restores what was watched before.
class InterruptScope {
 public:
  explicit InterruptScope(const std::atomic<bool>* flag) : saved_(interrupt_flag()) {
    interrupt_flag() = flag;
  }
  ~InterruptScope() { interrupt_flag() = saved_; }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  const std::atomic<bool>* saved_;
};

}  // namespace nf
