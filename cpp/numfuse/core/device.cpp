#include "numfuse/core/device.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"

namespace nf {

namespace {

struct DefaultDevice {
  std::once_flag once;
  Device device;
  std::string error;  // why NUMFUSE_DEVICE cannot be used ("" when it can)
  bool explicit_set = false;
};
DefaultDevice& state() {
  static DefaultDevice s;
  return s;
}

// Whether the backend of CUDA devices is registered and usable here. Never throws.
bool cuda_usable() {
  const Backend* b = find_backend(Device::Kind::CUDA);
  return b && b->available();
}

// NUMFUSE_DEVICE when set (checked: an unusable CUDA device is an error at first use), else
// cuda:0 when CUDA is usable, else the CPU. Never throws: import must work without a GPU.
void init_default(DefaultDevice& s) {
  const char* v = std::getenv("NUMFUSE_DEVICE");
  if (!v || !*v) {
    s.device = cuda_usable() ? Device::cuda(0) : Device::cpu();
    return;
  }
  try {
    s.device = parse_device(v);
    if (!s.device.is_cpu()) check_device_usable(s.device);
  } catch (const std::exception& e) {
    s.error = std::string("NUMFUSE_DEVICE=") + v + ": " + e.what();
    s.device = Device::cpu();
  }
}

}  // namespace

namespace {
thread_local std::vector<Device> t_devices;  // pushed by `with numfuse.cuda.Device(i):`
std::atomic<bool> g_default_trapped{false};  // set_default_device_trap
}  // namespace

void set_default_device_trap(bool on) { g_default_trapped.store(on); }

void push_thread_device(Device d) {
  check_device_usable(d);
  t_devices.push_back(d);
}

void pop_thread_device() {
  if (t_devices.empty()) throw ValueError("no device to pop: the thread's device stack is empty");
  t_devices.pop_back();
}

Device default_device() {
  if (!t_devices.empty()) return t_devices.back();  // chosen by the caller: never trapped
  if (g_default_trapped.load(std::memory_order_relaxed)) {
    throw Error(
        "the default device was asked for while numfuse._core.set_default_device_trap is "
        "on: a function of arrays must create its temporaries and result on its operands' "
        "device");
  }
  DefaultDevice& s = state();
  std::call_once(s.once, [&] { init_default(s); });
  if (!s.error.empty() && !s.explicit_set) throw ValueError(s.error);
  return s.device;
}

void set_default_device(Device d) {
  DefaultDevice& s = state();
  std::call_once(s.once, [&] { init_default(s); });
  if (!d.is_cpu()) check_device_usable(d);
  s.device = d;
  s.explicit_set = true;
}

void check_device_usable(Device d) {
  if (d.is_cpu()) return;
  const Backend* b = find_backend(d.kind);
  if (!b || !b->available()) {
    throw CUDAError("device " + d.str() + " is not available: " +
                    (b ? b->unavailable_reason() : std::string("no backend for it in this build")));
  }
  const int n = b->device_count();
  if (d.index >= n) {
    throw ValueError("device " + d.str() + " does not exist: " + std::to_string(n) +
                     " CUDA device" + (n == 1 ? "" : "s") + " found");
  }
}

Device parse_device(const std::string& s) {
  if (s == "cpu") return Device::cpu();
  if (s == "cuda" || s == "gpu") return Device::cuda(0);
  if (s.rfind("cuda:", 0) == 0) {
    try {
      size_t used = 0;
      int i = std::stoi(s.substr(5), &used);
      if (used == s.size() - 5 && i >= 0) return Device::cuda(i);
    } catch (...) {
    }
  }
  throw ValueError("unknown device '" + s + "': expected 'cpu', 'cuda' or 'cuda:N'");
}

}  // namespace nf
