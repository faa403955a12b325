#include "numfuse/backend/cuda/stream.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/core/error.h"
#include "numfuse/core/interrupt.h"

namespace nf::cuda {

namespace {
int resolve(int device) {
  int d = device < 0 ? current_device() : device;
  check_device(d);
  return d;
}
}  // namespace

void wait_interruptible(CUresult (*query)(void*), CUresult (*block)(void*), void* handle,
                        const char* call) {
  if (!interrupt_flag()) {
    check(block(handle), call);
    return;
  }
  // Short waits spin (a read of one element waits ~10 µs for its copy): the first sleep costs
  // the kernel's timer slack, ~60 µs, which made float(a[i, j]) of a GPU array 7x CuPy's.
  // Longer ones sleep, each pause a sixteenth of the time waited so far (20 µs to 1 ms), so that
  // a long kernel leaves the core to others and the wait ends at most ~6% (plus the slack) after
  // the work. Pauses that doubled overshot by up to the whole last pause: cholesky of 4096^2
  // (2 ms of work) saw its info codes read 1 ms late on the H100.
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto spin_until = start + std::chrono::microseconds(200);
  for (;;) {
    CUresult r = query(handle);
    if (r == CUDA_SUCCESS) return;
    if (r != CUDA_ERROR_NOT_READY) check(r, call);
    check_interrupt();
    const auto now = Clock::now();
    if (now < spin_until) {
      std::this_thread::yield();
      continue;
    }
    const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(now - start);
    std::this_thread::sleep_for(
        std::clamp(waited / 16, std::chrono::microseconds(20), std::chrono::microseconds(1000)));
  }
}

namespace {
CUresult query_stream(void* s) { return driver().StreamQuery(static_cast<CUstream>(s)); }
CUresult block_stream(void* s) { return driver().StreamSynchronize(static_cast<CUstream>(s)); }
CUresult query_event(void* e) { return driver().EventQuery(static_cast<CUevent>(e)); }
CUresult block_event(void* e) { return driver().EventSynchronize(static_cast<CUevent>(e)); }
}  // namespace

struct Stream::Impl {
  CUstream handle = nullptr;
  int device = 0;
  bool non_blocking = false;
  ~Impl() {
    // Errors are ignored: at process exit the driver may already be shut down.
    if (handle && cuda_available()) driver().StreamDestroy(handle);
  }
};

Stream Stream::null_stream(int device) {
  Stream s;
  s.null_device_ = device;
  return s;
}

Stream Stream::create(int device, bool non_blocking) {
  int d = resolve(device);
  activate(d);
  auto impl = std::make_shared<Impl>();
  impl->device = d;
  impl->non_blocking = non_blocking;
  check(driver().StreamCreate(&impl->handle, non_blocking ? CU_STREAM_NON_BLOCKING
                                                          : CU_STREAM_DEFAULT),
        "cuStreamCreate");
  Stream s;
  s.impl_ = std::move(impl);
  return s;
}

CUstream Stream::handle() const { return impl_ ? impl_->handle : nullptr; }

int Stream::device() const {
  if (impl_) return impl_->device;
  return null_device_ >= 0 ? null_device_ : current_device();
}

bool Stream::non_blocking() const { return impl_ && impl_->non_blocking; }

void Stream::synchronize() const {
  activate(resolve(device()));
  wait_interruptible(query_stream, block_stream, handle(), "cuStreamSynchronize");
}

bool Stream::done() const {
  activate(resolve(device()));
  CUresult r = driver().StreamQuery(handle());
  if (r == CUDA_ERROR_NOT_READY) return false;
  check(r, "cuStreamQuery");
  return true;
}

void Stream::wait(const Event& e) const {
  if (!e.valid()) return;
  activate(resolve(device()));
  check(driver().StreamWaitEvent(handle(), e.handle(), 0), "cuStreamWaitEvent");
}

struct Event::Impl {
  CUevent handle = nullptr;
  int device = 0;
  ~Impl() {
    if (handle && cuda_available()) driver().EventDestroy(handle);
  }
};

Event Event::create(int device, bool disable_timing, bool blocking) {
  int d = resolve(device);
  activate(d);
  auto impl = std::make_shared<Impl>();
  impl->device = d;
  unsigned flags = (disable_timing ? CU_EVENT_DISABLE_TIMING : 0u) |
                   (blocking ? CU_EVENT_BLOCKING_SYNC : 0u);
  check(driver().EventCreate(&impl->handle, flags), "cuEventCreate");
  Event e;
  e.impl_ = std::move(impl);
  return e;
}

CUevent Event::handle() const { return impl_ ? impl_->handle : nullptr; }
int Event::device() const { return impl_ ? impl_->device : current_device(); }

void Event::record(const Stream& s) {
  if (!impl_) throw ValueError("record() on an empty Event");
  if (s.device() != impl_->device) {
    throw ValueError("cannot record an event of cuda:" + std::to_string(impl_->device) +
                     " on a stream of cuda:" + std::to_string(s.device()));
  }
  activate(impl_->device);
  check(driver().EventRecord(impl_->handle, s.handle()), "cuEventRecord");
}

void Event::record() { record(current_stream(device())); }

void Event::synchronize() const {
  if (!impl_) return;
  wait_interruptible(query_event, block_event, impl_->handle, "cuEventSynchronize");
}

bool Event::done() const {
  if (!impl_) return true;
  CUresult r = driver().EventQuery(impl_->handle);
  if (r == CUDA_ERROR_NOT_READY) return false;
  check(r, "cuEventQuery");
  return true;
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  if (!start.valid() || !end.valid()) throw ValueError("elapsed time of an empty Event");
  float ms = 0;
  check(driver().EventElapsedTime(&ms, start.handle(), end.handle()), "cuEventElapsedTime");
  return ms;
}

namespace {
thread_local std::vector<Stream> t_stack;
}  // namespace

Stream current_stream(int device) {
  int d = device < 0 ? current_device() : device;
  for (auto it = t_stack.rbegin(); it != t_stack.rend(); ++it) {
    if (it->device() == d) return *it;
  }
  return Stream::null_stream(d);
}

void push_stream(const Stream& s) { t_stack.push_back(s); }

void pop_stream() {
  if (t_stack.empty()) throw ValueError("no stream to pop: the current-stream stack is empty");
  t_stack.pop_back();
}

void synchronize(int device) { device_synchronize(resolve(device)); }

}  // namespace nf::cuda
