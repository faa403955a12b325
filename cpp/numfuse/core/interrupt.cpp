#include "numfuse/core/interrupt.h"

namespace nf {

const std::atomic<bool>*& interrupt_flag() {
  thread_local const std::atomic<bool>* flag = nullptr;
  return flag;
}

std::atomic<bool>& sigint_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace nf
