// NumPy's floating-point error state (numpy.errstate) in a lazy core.
//
// An op captures the error state current when it is recorded (FpState, from the front end's
// hook); the backend that computes it later finds the conditions (the CPU's hardware status
// flags, a flag word the CUDA kernels set) and records an FpEvent per op that raised a flag its
// state does not ignore; once the outermost evaluation of the thread is over, the events go to
// the front end's report hook, which warns, raises FloatingPointError, calls or logs as NumPy
// would. The warning therefore comes at the read that forces the value, naming the op.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <cfenv>

namespace nf {

// The conditions, with NumPy's bits (the `flag` argument of a seterrcall callback).
enum FpFlag : uint8_t {
  kFpDivide = 1,
  kFpOverflow = 2,
  kFpUnderflow = 4,
  kFpInvalid = 8,
  kFpAllFlags = 15,
};

// An errstate as captured by an op: the low 4 bits are the flags whose handling is not
// 'ignore' (backends check only those); the bits above are the front end's id for the rest
// (warn or raise, the callback). NumPy's default: divide, over and invalid warn.
using FpState = uint32_t;
constexpr FpState kFpDefaultState = kFpDivide | kFpOverflow | kFpInvalid;
inline uint8_t fp_watched(FpState s) { return static_cast<uint8_t>(s & kFpAllFlags); }

// The front end's reader of the current error state (called with the GIL held, once per op).
using FpStateHook = FpState (*)();
void set_fp_state_hook(FpStateHook hook);
FpState current_fp_state();  // the hook's answer, or kFpDefaultState without one

// One op's conditions in one evaluation.
struct FpEvent {
  std::string op;  // the name NumPy gives in "... encountered in <op>"
  uint8_t flags;   // FpFlag bits, already restricted to the watched ones
  FpState state;
};

// Called on the evaluating thread by the backends (after their parallel regions).
void record_fp_event(std::string op, uint8_t flags, FpState state);
// The events recorded on this thread since the last report.
bool fp_events_pending();
std::vector<FpEvent> take_fp_events();

// Evaluations in progress on this thread (eval.cpp's entry points count them). Events are handed
// to the front end only outside every evaluation, with the graph lock released: reporting runs
// Python code. An evaluation that fails drops its events.
void fp_enter_evaluation();
void fp_leave_evaluation(bool failed);
// Reports this thread's pending events unless an evaluation is in progress (may throw).
void fp_report_if_outermost();

// The front end's reporter: may throw (FloatingPointError, a warning made an error).
using FpReportHook = void (*)(const std::vector<FpEvent>& events);
void set_fp_report_hook(FpReportHook hook);
// Hands this thread's pending events to the report hook (dropped without one).
void report_fp_events();

// ---- the CPU's status flags ---------------------------------------------------------------
// NumPy reads the same flags after each loop. x86-64 does float and double arithmetic (libm
// and libmvec included) in SSE/AVX, whose flags live in MXCSR: reading it (stmxcsr, a few
// cycles) is cheap enough after every step of a run; clearing goes through fenv (both units).

inline uint8_t fp_flags_from_fenv(int e) {
  return static_cast<uint8_t>(
      ((e & FE_DIVBYZERO) ? kFpDivide : 0) | ((e & FE_OVERFLOW) ? kFpOverflow : 0) |
      ((e & FE_UNDERFLOW) ? kFpUnderflow : 0) | ((e & FE_INVALID) ? kFpInvalid : 0));
}

// The flags this thread raised since the last clear, as FpFlag bits.
inline uint8_t fp_hw_test() {
#if defined(__x86_64__)
  // MXCSR: IE=0x1, DE=0x2 (denormal operand, no IEEE flag), ZE=0x4, OE=0x8, UE=0x10
  const unsigned csr = _mm_getcsr();
  if (!(csr & 0x1d)) return 0;
  return static_cast<uint8_t>(((csr & 0x4) ? kFpDivide : 0) | ((csr & 0x8) ? kFpOverflow : 0) |
                              ((csr & 0x10) ? kFpUnderflow : 0) | ((csr & 0x1) ? kFpInvalid : 0));
#else
  return fp_flags_from_fenv(fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID));
#endif
}

// Clears this thread's status flags.
inline void fp_hw_clear() { feclearexcept(FE_ALL_EXCEPT); }

// Reads and clears: the flags raised since the last call.
inline uint8_t fp_hw_take() {
  const uint8_t f = fp_hw_test();
  if (f) fp_hw_clear();
  return f;
}

// Raises `flags` in this thread's status word: integer loops report a division by zero (or
// MIN // -1) this way, as NumPy's do, so that one path reads every condition.
void fp_hw_raise(uint8_t flags);

// Runs `copy`, a host copy that may cast (an assignment's), and records what it raised under
// NumPy's name for it ("cast") in the current errstate, as NumPy's astype does.
template <class Copy>
void run_checked_host_cast(Copy copy) {
  fp_hw_take();  // earlier work's flags are not this copy's
  copy();
  if (uint8_t f = fp_hw_take()) {
    const FpState state = current_fp_state();
    if (f & fp_watched(state)) record_fp_event("cast", f, state);
  }
}

}  // namespace nf
