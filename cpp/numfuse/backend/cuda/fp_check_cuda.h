// numpy.errstate on CUDA devices: generated kernels judge each checked step's values
// (kernels/fp_check.h) and set the step's 4 bits in the launch's flag words only when a condition
// occurs; the host reads the words after a synchronisation it does anyway (a device -> host read
// of a result), and records an event per step under the op's NumPy name and the errstate its node
// captured, for the same reporter as the CPU's (core/fp_status.h).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/fp_status.h"
#include "numfuse/ir/group_program.h"

namespace nf::cuda {

// Whether generated kernels check (opt-in: NUMFUSE_GPU_FP_CHECKS=1 or set_fp_checks(true)).
bool fp_checks_enabled();
void set_fp_checks(bool on);

// A checked step: what its event is called and which errstate decides about it.
struct FpStepCheck {
  const char* op;      // NumPy's name ("divide", "cast")
  uint8_t reportable;  // the flags NumPy's loop of this op reports
  FpState state;       // as captured by the step's node
};

// The checked steps of the programs one launch runs (a reduction's prologue and epilogue): slot s
// has bits 4*(s % 8) .. of word s / 8. Empty when checks are off or nothing is watched.
struct FpCheckPlan {
  std::vector<std::vector<int>> slots;  // per program, per step: its slot, or -1
  std::vector<FpStepCheck> checks;      // per slot
  bool empty() const { return checks.empty(); }
  int words() const { return static_cast<int>((checks.size() + 7) / 8); }
  const std::vector<int>* slots_of(size_t program) const {
    return empty() ? nullptr : &slots[program];
  }
};
FpCheckPlan plan_fp_checks(std::initializer_list<const GroupProgram*> programs);

// A reduction's own accumulation (NumPy's "overflow/invalid value encountered in reduce"): one
// more slot in `plan`, after the steps of `programs` (which the plan was made from), when checks
// are on and `state` watches overflow or invalid. Returns the slot, or -1.
int add_accumulation_check(FpCheckPlan& plan, std::initializer_list<const GroupProgram*> programs,
                           FpState state);

// Whether step `st` of `p` can raise a condition that its errstate watches and NumPy reports.
bool fp_step_checked(const GroupProgram& p, size_t st);

// The statement checking step `st` of `p` after its values v<st>_<o> are computed: `raw` are its
// arguments' expressions as they are (the source of a cast), `args` as passed to the op; `word`
// the expression of the launch's first flag word (an `unsigned*`).
std::string fp_check_statement(const GroupProgram& p, size_t st,
                               const std::vector<std::string>& raw,
                               const std::vector<std::string>& args, int slot,
                               const std::string& word);

// Zeroed device words for one launch's checks (plan.words() of them), registered so that the next
// collect_fp_flags(device) reports what the launch found. nullptr for an empty plan.
unsigned* fp_words_for_launch(int device, const FpCheckPlan& plan);

// After a synchronisation that covers every launch so far on `device` (a device -> host read):
// reads the flag words of the launches since the last collection, records their events on this
// thread and clears the words. Does nothing (no driver call) when no checked launch is pending.
void collect_fp_flags(int device);

// Decodes one launch's words into events (collect_fp_flags' last step; host tests).
void record_fp_words(const std::vector<FpStepCheck>& checks, const unsigned* words);

}  // namespace nf::cuda
