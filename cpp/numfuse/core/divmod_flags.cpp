#include "numfuse/core/divmod_flags.h"

#include <atomic>
#include <cstring>

#include "numfuse/core/fp_status.h"

namespace nf {

namespace {
uint8_t g_table[kDivmodTableSize];
std::atomic<bool> g_installed{false};
}  // namespace

void set_divmod_nonfinite_flags(const uint8_t* table) {
  std::memcpy(g_table, table, sizeof g_table);
  g_installed.store(true, std::memory_order_release);
}

void clear_divmod_nonfinite_flags() { g_installed.store(false, std::memory_order_release); }

bool divmod_nonfinite_installed() { return g_installed.load(std::memory_order_acquire); }

uint8_t divmod_nonfinite_table(int op, int is_double, int class_a, int class_b) {
  return g_table[((op * 2 + is_double) * kDivmodClasses + class_a) * kDivmodClasses + class_b];
}

// kernels/scalar_ops.h's host hooks: the flags an element with a non-finite operand raised are
// replaced by NumPy's.
uint8_t divmod_nonfinite_enter() {
  return divmod_nonfinite_installed() ? uint8_t(fp_hw_take() | 0x80) : 0;
}

void divmod_nonfinite_leave(uint8_t saved, int op, int is_double, int class_a, int class_b) {
  fp_hw_take();  // what this element's arithmetic raised: NumPy's table says instead
  const uint8_t f = static_cast<uint8_t>((saved & 0x7f) |
                                         divmod_nonfinite_table(op, is_double, class_a, class_b));
  if (f) fp_hw_raise(f);
}

}  // namespace nf
