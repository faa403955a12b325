#include "numfuse/core/interrupt.h"

namespace nf {

const std::atomic<bool>*& interrupt_flag() {
  thread_local const std::atomic<bool>* flag = nullptr;
  return flag;
}

namespace {
thread_local DeviceWaitHook t_device_wait_hook = nullptr;
}  // namespace

void device_wait_begins() {
  if (DeviceWaitHook hook = t_device_wait_hook) {
    t_device_wait_hook = nullptr;
    hook();
  }
}

DeviceWaitHook set_device_wait_hook(DeviceWaitHook hook) {
  const DeviceWaitHook previous = t_device_wait_hook;
  t_device_wait_hook = hook;
  return previous;
}

std::atomic<bool>& sigint_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace nf
