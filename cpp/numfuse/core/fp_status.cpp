#include "numfuse/core/fp_status.h"

#include <utility>

namespace nf {

namespace {
FpStateHook g_state_hook = nullptr;
FpReportHook g_report_hook = nullptr;
thread_local std::vector<FpEvent> t_events;
thread_local int t_evaluations = 0;
}  // namespace

void fp_enter_evaluation() { ++t_evaluations; }
void fp_leave_evaluation(bool failed) {
  if (--t_evaluations == 0 && failed) t_events.clear();
}
void fp_report_if_outermost() {
  if (t_evaluations == 0 && !t_events.empty()) report_fp_events();
}

void set_fp_state_hook(FpStateHook hook) { g_state_hook = hook; }
FpState current_fp_state() { return g_state_hook ? g_state_hook() : kFpDefaultState; }

void record_fp_event(std::string op, uint8_t flags, FpState state) {
  if (flags) t_events.push_back({std::move(op), flags, state});
}

bool fp_events_pending() { return !t_events.empty(); }

std::vector<FpEvent> take_fp_events() {
  std::vector<FpEvent> out;
  out.swap(t_events);
  return out;
}

void set_fp_report_hook(FpReportHook hook) { g_report_hook = hook; }

void report_fp_events() {
  if (t_events.empty()) return;
  std::vector<FpEvent> events = take_fp_events();
  if (g_report_hook) g_report_hook(events);
}

void fp_hw_raise(uint8_t flags) {
#if defined(__x86_64__)
  // Into MXCSR, where fp_hw_test looks: glibc's feraiseexcept sets overflow and underflow in
  // the x87 status word instead.
  unsigned bits = 0;
  if (flags & kFpDivide) bits |= 0x4;
  if (flags & kFpOverflow) bits |= 0x8;
  if (flags & kFpUnderflow) bits |= 0x10;
  if (flags & kFpInvalid) bits |= 0x1;
  _mm_setcsr(_mm_getcsr() | bits);
  return;
#endif
  int e = 0;
  if (flags & kFpDivide) e |= FE_DIVBYZERO;
  if (flags & kFpOverflow) e |= FE_OVERFLOW;
  if (flags & kFpUnderflow) e |= FE_UNDERFLOW;
  if (flags & kFpInvalid) e |= FE_INVALID;
  feraiseexcept(e);
}

}  // namespace nf
