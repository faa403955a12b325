#include "numfuse/backend/cuda/warmup.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/backend/cuda/driver.h"

namespace nf::cuda {

namespace {

struct WarmupState {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool started = false;
  bool running = false;
};

WarmupState& warm_state() {
  static auto* s = new WarmupState();  // never destroyed: waited on at exit
  return *s;
}

bool warmup_enabled() {
  const char* e = std::getenv("NUMFUSE_CUDA_WARMUP");
  return !(e && std::string(e) == "0");
}

void warm(int device) {
  // NVRTC is not loaded here: a process whose kernels all come from the disk cache never loads
  // it (kernel_cache.h), and its first compile follows the first context too closely to gain.
  // Each step on its own: one that fails does not stop the other.
  try {
    warm_cusolver(device);  // loads cuBLAS and cuBLASLt too (cuSOLVER links them)
  } catch (...) {
  }
  try {
    warm_cublas(device);
  } catch (...) {
  }
}

void finished() {
  WarmupState& s = warm_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.running = false;
  s.done_cv.notify_all();
}

}  // namespace

void start_warmup(int device) noexcept {
  WarmupState& s = warm_state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.started) return;
    s.started = true;
    if (!warmup_enabled()) return;
    s.running = true;
  }
  try {
    static std::once_flag handlers;
    std::call_once(handlers, [] {
      pthread_atfork([] { wait_warmup(); }, nullptr, nullptr);
      std::atexit([] { wait_warmup(); });
    });
    std::thread([device] {
      warm(device);
      finished();
    }).detach();
  } catch (...) {
    finished();  // no thread: nothing to wait for
  }
}

void wait_warmup() noexcept {
  WarmupState& s = warm_state();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.done_cv.wait(lock, [&] { return !s.running; });
}

bool warmup_running() noexcept {
  WarmupState& s = warm_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.running;
}

}  // namespace nf::cuda
