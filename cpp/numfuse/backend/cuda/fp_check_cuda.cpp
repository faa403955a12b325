#include "numfuse/backend/cuda/fp_check_cuda.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "numfuse/backend/cpu/fp_check_cpu.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/core/buffer.h"
#include "numfuse/core/divmod_flags.h"

namespace nf::cuda {

namespace {

// The conditions GPU kernels judge: underflow is not checked (NumPy ignores it by default, and
// telling a flushed subnormal from an exact zero needs the operands' magnitudes).
constexpr uint8_t kGpuChecked = kFpDivide | kFpOverflow | kFpInvalid;

std::atomic<int>& checks_flag() {
  static std::atomic<int> on{[] {
    const char* env = std::getenv("NUMFUSE_GPU_FP_CHECKS");
    // Off unless asked for: on the H100 they cost sqrt(sum(x**2, -1)) 77% and sin+cos 4%
    // (bench/fp_flags_probe.py, docs/decisions.md).
    return env && env[0] == '1' && env[1] == '\0' ? 1 : 0;
  }()};
  return on;
}

enum class StepKind { None, FloatToInt, FloatResult, IntFloorDivide, IntRemainder, IntReciprocal };

StepKind step_kind(const GroupProgram& p, const ProgramStep& step) {
  const ElementwiseOp& op = step.op;
  switch (op.kind) {
    case ElementwiseOp::Kind::Select:
    case ElementwiseOp::Kind::Generate:
    case ElementwiseOp::Kind::User:  // a user's code: what it computes is its own business
      return StepKind::None;
    case ElementwiseOp::Kind::Copy: {
      const DType from = p.dtype_of(step.args[0]), to = op.out[0];
      if (is_floating(from) && is_integer(to)) return StepKind::FloatToInt;
      // f64 -> f32/f16, f32 -> f16 and integers past 65504 -> f16 overflow
      if (is_floating(to) && is_floating(from) && itemsize(to) < itemsize(from))
        return StepKind::FloatResult;
      if (to == DType::Float16 && is_integer(from) && itemsize(from) > 1)
        return StepKind::FloatResult;
      return StepKind::None;
    }
    case ElementwiseOp::Kind::UFunc:
      break;
  }
  for (DType d : op.out) {
    if (is_inexact(d)) return StepKind::FloatResult;
  }
  if (op.in.empty() || !is_integer(op.in[0])) return StepKind::None;
  switch (op.ufunc) {
    case UFunc::FloorDivide:
    case UFunc::Divmod:
      return StepKind::IntFloorDivide;
    case UFunc::Remainder:
    case UFunc::Fmod:
      return StepKind::IntRemainder;
    case UFunc::Reciprocal:
      return StepKind::IntReciprocal;
    default:
      return StepKind::None;
  }
}

const char* judge_function(const ElementwiseOp& op) {
  if (op.kind != ElementwiseOp::Kind::UFunc) return "nf::fpc::judge";
  switch (op.ufunc) {
    case UFunc::Arctanh:
    case UFunc::Log1p:
      return "nf::fpc::judge_pole";
    case UFunc::Power:
    case UFunc::FloatPower:
      return "nf::fpc::judge_power";
    default:
      return "nf::fpc::judge";
  }
}

// floor_divide (0), remainder (1), divmod (2) of real floats when NumPy's flags for NaN and
// infinite operands and zero divisors are installed (core/divmod_flags.h); -1 otherwise.
int divmod_table_op(const ElementwiseOp& op) {
  if (op.kind != ElementwiseOp::Kind::UFunc || op.in.size() != 2 || !is_floating(op.in[0]) ||
      !divmod_nonfinite_installed()) {
    return -1;
  }
  switch (op.ufunc) {
    case UFunc::FloorDivide: return kDivmodFloorDivide;
    case UFunc::Remainder: return kDivmodRemainder;
    case UFunc::Divmod: return kDivmodDivmod;
    default: return -1;
  }
}

// The table's 49 entries of the step as a C array initialiser, the flags the GPU checks only.
std::string divmod_table_source(int op, bool is_double) {
  std::string t = "{";
  for (int a = 0; a < kDivmodClasses; ++a) {
    for (int b = 0; b < kDivmodClasses; ++b) {
      t += std::to_string(divmod_nonfinite_table(op, is_double, a, b) & kGpuChecked) + ",";
    }
  }
  return t + "}";
}

}  // namespace

bool fp_checks_enabled() { return checks_flag().load(std::memory_order_relaxed) != 0; }
void set_fp_checks(bool on) { checks_flag().store(on ? 1 : 0, std::memory_order_relaxed); }

namespace {
// Steps without a node are the backend's own copies: an assignment's cast carries the errstate of
// its call, the other copies (fill, making an operand dense) none.
FpState state_of(const ProgramStep& step) { return step.node ? step.node->fp_state : step.own_fp_state; }
}  // namespace

bool fp_step_checked(const GroupProgram& p, size_t st) {
  const ProgramStep& step = p.steps[st];
  if (!(fp_watched(state_of(step)) & cpu::fp_reportable(step.op) & kGpuChecked)) return false;
  return step_kind(p, step) != StepKind::None;
}

FpCheckPlan plan_fp_checks(std::initializer_list<const GroupProgram*> programs) {
  FpCheckPlan plan;
  if (!fp_checks_enabled()) return plan;
  for (const GroupProgram* p : programs) {
    std::vector<int> slots(p ? p->steps.size() : 0, -1);
    for (size_t st = 0; st < slots.size(); ++st) {
      if (!fp_step_checked(*p, st)) continue;
      slots[st] = static_cast<int>(plan.checks.size());
      const ProgramStep& step = p->steps[st];
      plan.checks.push_back(
          {cpu::fp_op_name(step.op), cpu::fp_reportable(step.op), state_of(step)});
    }
    plan.slots.push_back(std::move(slots));
  }
  if (plan.checks.empty()) plan.slots.clear();
  return plan;
}

int add_accumulation_check(FpCheckPlan& plan, std::initializer_list<const GroupProgram*> programs,
                           FpState state) {
  constexpr uint8_t kAccumulation = kFpOverflow | kFpInvalid;
  if (!fp_checks_enabled() || !(fp_watched(state) & kAccumulation)) return -1;
  if (plan.checks.empty()) {  // plan_fp_checks left no slots: every step unchecked
    plan.slots.clear();
    for (const GroupProgram* p : programs)
      plan.slots.emplace_back(p ? p->steps.size() : 0, -1);
  }
  plan.checks.push_back({"reduce", kAccumulation, state});
  return static_cast<int>(plan.checks.size()) - 1;
}

std::string fp_check_statement(const GroupProgram& p, size_t st,
                               const std::vector<std::string>& raw,
                               const std::vector<std::string>& args, int slot,
                               const std::string& word) {
  const ProgramStep& step = p.steps[st];
  const std::string w = word + " + " + std::to_string(slot / 8);
  const std::string shift = " << " + std::to_string(4 * (slot % 8));
  const std::string v = "v" + std::to_string(st) + "_";
  switch (step_kind(p, step)) {
    case StepKind::None:
      return "";
    case StepKind::FloatToInt:
      return "if (nf::detail::float_to_int_invalid<" +
             std::string(cuda_storage_type(step.op.out[0])) + ">(double(" + raw[0] +
             "))) nf::fpc::note(" + w + ", nf::fpc::kInvalid" + shift + ");";
    case StepKind::IntFloorDivide:
    case StepKind::IntRemainder: {
      const char* floor = step_kind(p, step) == StepKind::IntFloorDivide ? "true" : "false";
      return "nf::fpc::note(" + w + ", nf::fpc::int_division(" + args[0] + ", " + args[1] + ", " +
             floor + ")" + shift + ");";
    }
    case StepKind::IntReciprocal:  // NumPy's integer loop computes 1.0 / 0 and casts the inf
      return "if (" + args[0] + " == 0) nf::fpc::note(" + w +
             ", (nf::fpc::kDivide | nf::fpc::kInvalid)" + shift + ");";
    case StepKind::FloatResult:
      break;
  }
  const bool cast = step.op.kind == ElementwiseOp::Kind::Copy;
  std::string operands;
  for (size_t a = 0; a < args.size(); ++a) operands += ", " + (cast ? raw[a] : args[a]);
  std::string out;
  for (size_t o = 0; o < step.op.out.size(); ++o) {
    if (!is_inexact(step.op.out[o])) continue;  // frexp's exponent
    const std::string r = v + std::to_string(o);
    out += (out.empty() ? "" : " ") + std::string("if (nf::fpc::suspect(") + r +
           ")) nf::fpc::note(" + w + ", " + judge_function(step.op) + "(" + r + operands + ")" +
           shift + ");";
  }
  const int divmod_op = divmod_table_op(step.op);
  if (divmod_op >= 0) {
    // An element with a NaN or infinite operand or a zero divisor reports the installed NumPy's flags for its
    // classes (a constant table: part of the source, so of the kernel's cache key).
    const std::string t = step.op.in[0] == DType::Float64 ? "double" : "float";  // float16 as float
    const std::string a = t + "(" + args[0] + ")", b = t + "(" + args[1] + ")";
    return "if (nf::sop::divmod_by_table(" + a + ", " + b + ")) { const unsigned char t_[49] = " +
           divmod_table_source(divmod_op, step.op.in[0] == DType::Float64) + "; nf::fpc::note(" + w +
           ", nf::fpc::judge_divmod(t_, " + a + ", " + b + ")" + shift + "); } else { " + out + " }";
  }
  return out;
}

void record_fp_words(const std::vector<FpStepCheck>& checks, const unsigned* words) {
  for (size_t s = 0; s < checks.size(); ++s) {
    const uint8_t raised = static_cast<uint8_t>((words[s / 8] >> (4 * (s % 8))) & 0xf);
    const FpStepCheck& c = checks[s];
    // As the CPU's record_step_flags: the event keeps every reportable flag (a seterrcall callback
    // gets them all); it is recorded when one of them is watched.
    const uint8_t flags = raised & c.reportable;
    if (flags & fp_watched(c.state)) record_fp_event(c.op, flags, c.state);
  }
}

namespace {

// The flag words of one device: launches take consecutive words of a ring that a collection
// (after a synchronisation) reads and clears as a whole.
constexpr size_t kRingWords = size_t(1) << 16;

struct PendingLaunch {
  size_t first;
  std::vector<FpStepCheck> checks;
};

struct Ledger {
  std::mutex mutex;
  std::shared_ptr<Buffer> words;  // kRingWords unsigned on the device
  size_t next = 0;
  std::vector<PendingLaunch> pending;
};

std::mutex g_ledgers_mutex;
std::map<int, Ledger*>& ledgers() {
  static auto* m = new std::map<int, Ledger*>();  // lives until exit, as the kernels
  return *m;
}

Ledger* ledger_of(int device, bool create) {
  std::lock_guard<std::mutex> lock(g_ledgers_mutex);
  auto it = ledgers().find(device);
  if (it != ledgers().end()) return it->second;
  if (!create) return nullptr;
  return ledgers()[device] = new Ledger();
}

// Reads and clears the pending launches' words (the ledger's mutex held). The stream copy waits
// for the launches: after a host read they are done already, and the wait costs nothing.
void collect_locked(Ledger& l, int device) {
  if (l.pending.empty()) return;
  std::vector<unsigned> host(l.next);
  const CUdeviceptr dev = reinterpret_cast<CUdeviceptr>(l.words->data());
  const Stream s = enqueue_stream(device);
  copy_device_to_host(host.data(), dev, l.next * sizeof(unsigned), s);
  check(driver().MemsetD8Async(dev, 0, l.next * sizeof(unsigned), s.handle()), "cuMemsetD8Async");
  std::vector<PendingLaunch> pending;
  pending.swap(l.pending);
  l.next = 0;
  for (const PendingLaunch& launch : pending)
    record_fp_words(launch.checks, host.data() + launch.first);
}

}  // namespace

unsigned* fp_words_for_launch(int device, const FpCheckPlan& plan) {
  if (plan.empty()) return nullptr;
  Ledger& l = *ledger_of(device, true);
  std::lock_guard<std::mutex> lock(l.mutex);
  const size_t n = static_cast<size_t>(plan.words());
  if (!l.words) {
    l.words = allocate_device_buffer(kRingWords * sizeof(unsigned), device);
    const Stream s = enqueue_stream(device);
    check(driver().MemsetD8Async(reinterpret_cast<CUdeviceptr>(l.words->data()), 0,
                                 kRingWords * sizeof(unsigned), s.handle()),
          "cuMemsetD8Async");
  }
  // A ring used up without any read in between (65536 words: thousands of launches): collected
  // here, at the cost of one wait for the stream.
  if (l.next + n > kRingWords) collect_locked(l, device);
  const size_t first = l.next;
  l.next += n;
  l.pending.push_back({first, plan.checks});
  return static_cast<unsigned*>(l.words->data()) + first;
}

void collect_fp_flags(int device) {
  Ledger* l = ledger_of(device, false);
  if (!l) return;
  std::lock_guard<std::mutex> lock(l->mutex);
  collect_locked(*l, device);
}

}  // namespace nf::cuda
