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
#include "numfuse/backend/cuda/nvrtc.h"

namespace nf::cuda {

extern const char* const kKernelPrelude;

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
  // Each step on its own: one that fails (no cuSOLVER here) does not stop the others.
  try {
    // The first compile of a process loads NVRTC's builtins and, with the prelude, builds the
    // precompiled header later kernels load (nvrtc.cpp); the cubin itself is thrown away.
    if (nvrtc_available()) {
      compile_kernel(std::string(kKernelPrelude) + "extern \"C\" __global__ void nf_warmup() {}\n",
                     "nf_warmup", device_arch(device), {"-std=c++17"});
    }
  } catch (...) {
  }
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
