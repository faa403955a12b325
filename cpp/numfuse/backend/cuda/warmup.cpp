#include "numfuse/backend/cuda/warmup.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdint>
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
  bool started = false;  // start_warmup was called
  int running = 0;       // background tasks not yet finished
};

WarmupState& warm_state() {
  static auto* s = new WarmupState();  // never destroyed: waited on at exit
  return *s;
}

bool warmup_enabled() {
  const char* e = std::getenv("NUMFUSE_CUDA_WARMUP");
  return !(e && std::string(e) == "0");
}

void warm(void* device_as_pointer) {
  const int device = static_cast<int>(reinterpret_cast<intptr_t>(device_as_pointer));
  // NVRTC is not loaded here: a process whose kernels all come from the disk cache never loads
  // it (kernel_cache.h); its prelude's PCH is built in the background by the first compile.
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
  --s.running;
  s.done_cv.notify_all();
}

}  // namespace

bool run_in_background(void (*task)(void*), void* arg) noexcept {
  WarmupState& s = warm_state();
  try {
    static std::once_flag handlers;
    std::call_once(handlers, [] {
      pthread_atfork([] { wait_warmup(); }, nullptr, nullptr);
      std::atexit([] { wait_warmup(); });
    });
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      ++s.running;
    }
    try {
      std::thread([task, arg] {
        task(arg);
        finished();
      }).detach();
    } catch (...) {
      finished();
      return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

void start_warmup(int device) noexcept {
  WarmupState& s = warm_state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.started) return;
    s.started = true;
  }
  if (!warmup_enabled()) return;
  run_in_background(warm, reinterpret_cast<void*>(static_cast<intptr_t>(device)));
}

void wait_warmup() noexcept {
  WarmupState& s = warm_state();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.done_cv.wait(lock, [&] { return s.running == 0; });
}

bool warmup_running() noexcept {
  WarmupState& s = warm_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.running > 0;
}

}  // namespace nf::cuda
