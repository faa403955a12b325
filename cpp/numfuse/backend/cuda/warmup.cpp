#include "numfuse/backend/cuda/warmup.h"

#include <dirent.h>
#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/nvrtc.h"

namespace nf::cuda {

namespace {

struct WarmupState {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool started = false;        // start_warmup was called
  bool nvrtc_started = false;  // start_nvrtc_warmup was called
  int running = 0;             // background tasks not yet finished
};

WarmupState& warm_state() {
  static auto* s = new WarmupState();  // never destroyed: waited on at exit
  return *s;
}

bool warmup_enabled() {
  const char* e = std::getenv("NUMFUSE_CUDA_WARMUP");
  return !(e && std::string(e) == "0");
}

int device_of(void* device_as_pointer) {
  return static_cast<int>(reinterpret_cast<intptr_t>(device_as_pointer));
}

void warm_libraries(void* device) {
  // Each step on its own: one that fails does not stop the other.
  try {
    warm_cusolver(device_of(device));  // loads cuBLAS and cuBLASLt too (cuSOLVER links them)
  } catch (...) {
  }
  try {
    warm_cublas(device_of(device));
  } catch (...) {
  }
}

void warm_nvrtc(void* device) {
  try {
    prepare_nvrtc(device_arch(device_of(device)));
  } catch (...) {
  }
}

// Whether the kernel cache directory holds compiled kernels (*.nfk). When it does not, this
// process will compile: NVRTC is started ahead. When it does, NVRTC is left alone: a process
// served by the disk cache never loads it (kernel_cache.h, issue 14).
bool cache_has_kernels() {
  const std::string dir = default_cache_dir();
  if (dir.empty()) return false;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = ::readdir(d)) {
    const size_t len = std::strlen(e->d_name);
    if (len > 4 && std::strcmp(e->d_name + len - 4, ".nfk") == 0) {
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

// Around a fork: the forking thread waits for the tasks and holds the state's mutex until the
// fork is over, so that no task starts in between (the child would count a thread it has not).
void before_fork() {
  WarmupState& s = warm_state();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.done_cv.wait(lock, [&] { return s.running == 0; });
  lock.release();  // unlocked by after_fork
}

void after_fork() { warm_state().mutex.unlock(); }

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
      pthread_atfork(before_fork, after_fork, after_fork);
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

void start_nvrtc_warmup() noexcept {
  WarmupState& s = warm_state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.nvrtc_started) return;
    s.nvrtc_started = true;
  }
  if (!warmup_enabled() || cache_has_kernels()) return;
  run_in_background(warm_nvrtc, nullptr);  // device 0's architecture
}

void start_warmup(int device) noexcept {
  WarmupState& s = warm_state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.started) return;
    s.started = true;
  }
  if (!warmup_enabled()) return;
  run_in_background(warm_libraries, reinterpret_cast<void*>(static_cast<intptr_t>(device)));
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
