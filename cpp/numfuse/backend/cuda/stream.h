// Streams and events of one device, and the calling thread's current stream (a stack, for
// `with numfuse.cuda.Stream():`). Every op enqueues on current_stream().
#pragma once
#include <memory>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

class Event;

// Waits until `query()` says the work it asks about is done (CUDA_SUCCESS; CUDA_ERROR_NOT_READY
// while it runs). While the calling thread's interrupt flag is armed (core/interrupt.h) it polls,
// sleeping a little longer each time up to 1 ms, and throws Interrupted when Ctrl-C comes: the
// GPU's work goes on, and the caller must not yet have enqueued anything that writes host memory
// it gives up on. Unarmed, it calls `block()` (a blocking synchronisation).
void wait_interruptible(CUresult (*query)(void*), CUresult (*block)(void*), void* handle,
                        const char* call);

class Stream {
 public:
  Stream() = default;  // the legacy null stream of the current device
  // The null stream of `device` (-1: whichever device is current when it is used).
  static Stream null_stream(int device = -1);
  // A new stream on `device` (-1: current); non_blocking streams do not wait for the null stream.
  static Stream create(int device = -1, bool non_blocking = false);

  CUstream handle() const;
  // The device; for the device-less null stream, the calling thread's current device.
  int device() const;
  bool is_null() const { return handle() == nullptr; }
  bool non_blocking() const;
  // Blocks until everything enqueued so far has finished.
  void synchronize() const;
  // True when everything enqueued so far has finished.
  bool done() const;
  // Later work on this stream waits for `e`.
  void wait(const Event& e) const;
  bool operator==(const Stream& o) const { return handle() == o.handle() && device() == o.device(); }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;  // null for a null stream of the current device
  int null_device_ = -1;
};

class Event {
 public:
  // A new event on `device` (-1: current). Timing is on unless disable_timing.
  static Event create(int device = -1, bool disable_timing = false, bool blocking = false);
  Event() = default;  // no event yet (valid() is false)

  bool valid() const { return impl_ != nullptr; }
  CUevent handle() const;
  int device() const;
  // Records the event on `s` (the current stream by default).
  void record(const Stream& s);
  void record();
  void synchronize() const;
  // True when the work it records has finished (or it was never recorded).
  bool done() const;
  // Milliseconds between two recorded, completed events (both timing-enabled).
  static float elapsed_ms(const Event& start, const Event& end);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// The calling thread's current stream for `device` (-1: current device): the innermost pushed
// stream of that device, else its null stream.
Stream current_stream(int device = -1);
void push_stream(const Stream& s);
// Pops the innermost pushed stream; throws ValueError when none is pushed.
void pop_stream();

// Waits for everything on `device` (-1: current device).
void synchronize(int device = -1);

}  // namespace nf::cuda
