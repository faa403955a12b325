// numpy.errstate in generated CUDA kernels (backend/cuda/fp_check_cuda.h): the value rules of
// kernels/fp_check.h against what NumPy reports, the emitted checks (present only for watched,
// reportable steps, compiled by NVRTC for every step kind), and, under the CPU emulation of
// kernels (NUMFUSE_EMULATE_CUDA), a launch's flag words decoded into NumPy's events.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/core/divmod_flags.h"
#include "numfuse/kernels/fp_check.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/elementwise.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

// The GPU's checks are opt-in (NUMFUSE_GPU_FP_CHECKS=1): this test binary turns them on before
// any test runs, so that the generated kernels of every codegen test carry them.
const bool kChecksOn = [] {
  set_fp_checks(true);
  return true;
}();

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::shared_ptr<Node>> keep;  // nodes outlive the programs that point at them

// out = op(a[, b]) with NumPy's loop dtypes `in` -> `out`, over host arrays, as a cuda:0 program.
GroupProgram program_of(UFunc op, std::vector<Array> leaves, std::vector<DType> in,
                        std::vector<DType> out, FpState state = kFpDefaultState) {
  auto node = std::make_shared<UFuncNode>();
  node->ufunc = op;
  node->device = Device::cuda(0);
  node->inputs.assign(leaves.begin(), leaves.end());
  node->in_loop = in;
  node->out_loop = out;
  node->out_dtypes = out;
  node->out_shapes.assign(out.size(), leaves[0].shape);
  node->fp_state = state;
  GroupProgram p;
  p.shape = leaves[0].shape;
  p.device = Device::cuda(0);
  p.leaves = leaves;
  ProgramStep step{node.get(), node->op(), {}};
  for (size_t l = 0; l < leaves.size(); ++l) step.args.push_back(ProgramValue{static_cast<int>(l)});
  p.steps.push_back(step);
  for (size_t o = 0; o < out.size(); ++o) {
    p.outputs.push_back(
        {ProgramValue{-1, 0, static_cast<int>(o)}, Array::empty(p.shape, out[o], Device::cpu())});
  }
  keep.push_back(node);
  return p;
}

GroupProgram cast_program(const Array& a, DType to) {
  GroupProgram p = program_of(UFunc::Positive, {a}, {a.dtype}, {to});
  p.steps[0].op = ElementwiseOp{ElementwiseOp::Kind::Copy, UFunc::Add, {to}, {to}};
  return p;
}

Array filled(std::vector<double> v) {
  Array a = Array::empty({static_cast<int64_t>(v.size())}, DType::Float64, Device::cpu());
  for (size_t i = 0; i < v.size(); ++i) a.data_as<double>()[i] = v[i];
  return a;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

// The rules on the cases NumPy 2.4 reports (np.divide(1., 0.) "divide", ...).
TEST(FpCheckRules, MatchNumPysConditions) {
  using namespace nf::fpc;
  EXPECT_EQ(judge(1.0 / 0.0, 1.0, 0.0), kDivide);
  EXPECT_EQ(judge(kNaN, 0.0, 0.0), kInvalid);  // 0 / 0
  EXPECT_EQ(judge(std::exp(1000.0), 1000.0), kOverflow);
  EXPECT_EQ(judge(1e300 * 1e300, 1e300, 1e300), kOverflow);
  EXPECT_EQ(judge(-kInf, 0.0), kDivide);   // log(0)
  EXPECT_EQ(judge(kNaN, -1.0), kInvalid);  // sqrt(-1)
  EXPECT_EQ(judge(kNaN, kInf), kInvalid);  // sin(inf)
  EXPECT_EQ(judge(kInf, kInf, 0.0), 0u);   // inf + 0: no condition
  EXPECT_EQ(judge(kNaN, kNaN), 0u);        // exp(nan): quiet
  EXPECT_EQ(judge(float(kInf), float(3e38), float(3e38)), kOverflow);
  EXPECT_EQ(judge_pole(kInf, 1.0), kDivide);                         // arctanh(1)
  EXPECT_EQ(judge_pole(kInf, kInf), 0u);                             // log1p(inf)
  EXPECT_EQ(judge_power(kInf, 0.0, -kInf), kDivide);                 // 0 ** -inf
  EXPECT_EQ(judge_power(kInf, kInf, 2.0), 0u);                       // inf ** 2
  const complex128 z = complex128(1.0, 0.0) / complex128(0.0, 0.0);  // inf+nanj
  EXPECT_EQ(judge(z, complex128(1.0, 0.0), complex128(0.0, 0.0)), kDivide | kInvalid);
  EXPECT_EQ(int_division<int32_t>(5, 0, true), kDivide);
  EXPECT_EQ(int_division<int32_t>(INT32_MIN, -1, true), kOverflow);
  EXPECT_EQ(int_division<int32_t>(INT32_MIN, -1, false), 0u);  // remainder: no overflow
  EXPECT_EQ(int_division<uint8_t>(255, 0, false), kDivide);
  for (double v : {0.0, -1.5, 1e300, 5e-324}) {
    EXPECT_FALSE(suspect(v)) << v;
    EXPECT_FALSE(suspect(float(v == 1e300 ? 1e30 : v)));
  }
  EXPECT_TRUE(suspect(kInf));
  EXPECT_TRUE(suspect(kNaN));
  EXPECT_TRUE(suspect(complex64(1.0f, float(kNaN))));
  EXPECT_FALSE(suspect(int64_t(0)));
}

TEST(FpCheckCodegen, ChecksOnlyWatchedReportableSteps) {
  Array a = filled({1, 2, 3});
  const GroupProgram div =
      program_of(UFunc::TrueDivide, {a, a}, {DType::Float64, DType::Float64}, {DType::Float64});
  const ElementwiseKernel on = generate_elementwise(div);
  EXPECT_GE(count(on.body, "nf::fpc::note("), 1);  // the vector loop and the tail
  EXPECT_NE(on.body.find("unsigned* fpw;"), std::string::npos);
  EXPECT_EQ(on.fp.checks.size(), 1u);
  EXPECT_STREQ(on.fp.checks[0].op, "divide");
  EXPECT_EQ(on.fp_param_offset + sizeof(void*),
            on.params.size());  // fpw is the struct's last field
  // errstate(all='ignore'): nothing to check, the kernel of before.
  const ElementwiseKernel ignored = generate_elementwise(program_of(
      UFunc::TrueDivide, {a, a}, {DType::Float64, DType::Float64}, {DType::Float64}, FpState(0)));
  EXPECT_EQ(ignored.body.find("nf::fpc"), std::string::npos);
  EXPECT_NE(ignored.key, on.key);
  // maximum reports nothing in NumPy; comparisons neither.
  EXPECT_EQ(generate_elementwise(program_of(UFunc::Maximum, {a, a},
                                            {DType::Float64, DType::Float64}, {DType::Float64}))
                .body.find("nf::fpc"),
            std::string::npos);
  set_fp_checks(false);
  const ElementwiseKernel off = generate_elementwise(div);
  set_fp_checks(true);
  EXPECT_EQ(off.body.find("nf::fpc"), std::string::npos);
  EXPECT_TRUE(off.fp.empty());
  EXPECT_NE(off.key, on.key);
  EXPECT_EQ(off.params.size() + sizeof(void*), on.params.size());
}

// Every kind of check, in the contiguous (vector) and strided forms, compiles with NVRTC.
TEST(FpCheckCodegen, EveryCheckKindCompiles) {
  Array f = filled({1, 2, 3, 4});
  Array i = Array::empty({4}, DType::Int32, Device::cpu());
  Array u = Array::empty({4}, DType::UInt8, Device::cpu());
  Array z = Array::empty({4}, DType::Complex64, Device::cpu());
  Array h = Array::empty({4}, DType::Float16, Device::cpu());
  const DType F = DType::Float64, I = DType::Int32;
  std::vector<GroupProgram> programs = {
      program_of(UFunc::FloorDivide, {i, i}, {I, I}, {I}),
      program_of(UFunc::Remainder, {u, u}, {DType::UInt8, DType::UInt8}, {DType::UInt8}),
      program_of(UFunc::Divmod, {i, i}, {I, I}, {I, I}),
      program_of(UFunc::Divmod, {f, f}, {F, F}, {F, F}),
      program_of(UFunc::Reciprocal, {i}, {I}, {I}),
      program_of(UFunc::Frexp, {f}, {F}, {F, I}),
      program_of(UFunc::Arctanh, {f}, {F}, {F}),
      program_of(UFunc::Power, {f, f}, {F, F}, {F}),
      program_of(UFunc::TrueDivide, {z, z}, {DType::Complex64, DType::Complex64},
                 {DType::Complex64}),
      program_of(UFunc::Multiply, {h, h}, {DType::Float16, DType::Float16}, {DType::Float16}),
      cast_program(f, DType::Int32),
      cast_program(f, DType::UInt64),
      cast_program(f, DType::Float16),
      cast_program(i, DType::Float16),
  };
  for (const GroupProgram& p : programs) {
    const ElementwiseKernel k = generate_elementwise(p);
    SCOPED_TRACE(k.fp.empty() ? "?" : k.fp.checks[0].op);
    EXPECT_GE(count(k.body, "nf::fpc::note("), 1);
    expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "fp_checks.cu");
  }
  // A cast that cannot raise (f32 -> f64) is not checked.
  EXPECT_TRUE(generate_elementwise(
                  cast_program(Array::empty({4}, DType::Float32, Device::cpu()), DType::Float64))
                  .fp.empty());
}

TEST(FpCheckWords, DecodeIntoEventsPerStep) {
  take_fp_events();
  std::vector<FpStepCheck> checks(10, FpStepCheck{"add", kFpAllFlags, kFpDefaultState});
  checks[3].op = "divide";
  checks[9] = {"log", kFpAllFlags, kFpInvalid | (7u << 4)};  // only invalid watched
  unsigned words[2] = {(kFpDivide | kFpInvalid) << 12, (kFpDivide << 4)};
  record_fp_words(checks, words);
  std::vector<FpEvent> events = take_fp_events();
  ASSERT_EQ(events.size(), 1u);  // slot 9's divide is not watched
  EXPECT_EQ(events[0].op, "divide");
  EXPECT_EQ(events[0].flags, kFpDivide | kFpInvalid);
  words[1] = (kFpInvalid | kFpDivide) << 4;
  words[0] = 0;
  record_fp_words(checks, words);
  events = take_fp_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, "log");
  EXPECT_EQ(events[0].flags, kFpInvalid | kFpDivide);  // every reportable flag, as the CPU's
  EXPECT_EQ(events[0].state, checks[9].state);
}

// The generated kernel run on the CPU: 1/0, 0/0, 1e300/1e-300 and finite quotients set the
// divide step's bits that NumPy's warnings name.
TEST(FpCheckEmulation, KernelSetsTheStepsBits) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  struct Case {
    std::vector<double> a, b;
    unsigned expected;
  };
  for (const Case& c :
       {Case{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0u},
        Case{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 0, 4, 5, 6, 7, 8, 9}, kFpDivide},
        Case{{0, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 2, 3, 4, 5, 6, 7, 8, 1e-300}, kFpInvalid},
        Case{{1e300, 2, 3, 4, 5, 6, 7, 8, 0},
             {1e-300, 2, 3, 4, 5, 6, 7, 8, 0},
             kFpOverflow | kFpInvalid}}) {
    GroupProgram p = program_of(UFunc::TrueDivide, {filled(c.a), filled(c.b)},
                                {DType::Float64, DType::Float64}, {DType::Float64});
    ElementwiseKernel k = generate_elementwise(p);
    ASSERT_FALSE(k.fp.empty());
    unsigned words[1] = {0};
    unsigned* w = words;
    std::memcpy(k.params.data() + k.fp_param_offset, &w, sizeof w);
    test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 2, 4, k.params);
    EXPECT_EQ(words[0], c.expected);
    for (size_t i = 0; i < c.a.size(); ++i) {
      const double q = c.a[i] / c.b[i];
      const double got = p.outputs[0].array.data_as<double>()[i];
      EXPECT_TRUE(got == q || (std::isnan(got) && std::isnan(q))) << i;
    }
  }
}

// A reduction's own accumulation: sums and products of real floats carry the conditions their
// combines raise and note them in one more slot ("reduce"); every plan variant compiles.
TEST(FpCheckReduce, AccumulationIsCheckedInEveryPlanVariant) {
  struct Case {
    Shape shape;
    std::vector<bool> axes;
  };
  const std::vector<Case> cases = {
      {{1 << 20}, {true}},                  // blocks per output, a second pass over partials
      {{100000, 1000}, {false, true}},      // a warp per output
      {{1000, 2048}, {true, false}},        // a thread per output
  };
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod}) {
    for (DType dt : {DType::Float32, DType::Float64}) {
      for (const Case& c : cases) {
        Array a = Array::empty(c.shape, dt, Device::cpu());
        ReduceSpec spec;
        spec.op = op;
        spec.loop = dt;
        spec.axes = c.axes;
        const ReduceKernel k = generate_reduce(spec, a, plan_reduce(spec, a, 132));
        SCOPED_TRACE(reduce_op_name(op));
        ASSERT_EQ(k.fp.checks.size(), 1u);
        EXPECT_STREQ(k.fp.checks[0].op, "reduce");
        EXPECT_EQ(k.fp_param_offset + sizeof(void*), k.params.size());
        EXPECT_NE(k.body.find("nf::fpc::judge(c.v, a.v, b.v)"), std::string::npos);
        expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "fp_reduce.cu");
      }
    }
  }
  // Not checked: integer sums, max (NumPy's maximum reports nothing), errstate(all='ignore').
  Array a = Array::empty({1000}, DType::Float64, Device::cpu());
  ReduceSpec spec;
  spec.axes = {true};
  spec.loop = DType::Int64;
  Array i = Array::empty({1000}, DType::Int64, Device::cpu());
  EXPECT_TRUE(generate_reduce(spec, i, plan_reduce(spec, i, 132)).fp.empty());
  spec.loop = DType::Float64;
  spec.op = ReduceOp::Max;
  EXPECT_TRUE(generate_reduce(spec, a, plan_reduce(spec, a, 132)).fp.empty());
  spec.op = ReduceOp::Sum;
  EXPECT_TRUE(generate_reduce(spec, a, plan_reduce(spec, a, 132), FpState(0)).fp.empty());
  set_fp_checks(false);
  EXPECT_TRUE(generate_reduce(spec, a, plan_reduce(spec, a, 132)).fp.empty());
  set_fp_checks(true);
}

// The fused reduction: the prologue's steps keep their slots, the accumulation takes the next.
TEST(FpCheckReduce, FusedAccumulationTakesTheSlotAfterTheSteps) {
  Array x = filled({1, 2, 3, 4});
  GroupProgram p = program_of(UFunc::Exp, {x}, {DType::Float64}, {DType::Float64});
  p.outputs.clear();
  p.reduced = ProgramValue{-1, 0, 0};
  ReduceSpec spec;
  spec.axes = {true};
  const FusedReduceKernel k = generate_reduce_fused(spec, p, 132);
  ASSERT_EQ(k.fp.checks.size(), 2u);
  EXPECT_STREQ(k.fp.checks[0].op, "exp");
  EXPECT_STREQ(k.fp.checks[1].op, "reduce");
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "fp_reduce_fused.cu");
  // A prologue without a checked step (a copy of floats): the accumulation alone, in slot 0.
  GroupProgram q = program_of(UFunc::Maximum, {x, x}, {DType::Float64, DType::Float64}, {DType::Float64});
  q.outputs.clear();
  q.reduced = ProgramValue{-1, 0, 0};
  const FusedReduceKernel only = generate_reduce_fused(spec, q, 132);
  ASSERT_EQ(only.fp.checks.size(), 1u);
  ASSERT_EQ(only.fp.slots.size(), 2u);  // the prologue's and the (absent) epilogue's
  EXPECT_EQ(only.fp.slots[0], std::vector<int>{-1});
  expect_nvrtc_compiles(std::string(kKernelPrelude) + only.body, "fp_reduce_fused.cu");
}

// floor_divide, remainder and divmod with NaN or infinite operands report the installed NumPy's
// flags (core/divmod_flags.h, probed by the Python package): the generated check reads the
// table's entries as constants, compiles for every op and precision, and, emulated, sets the bits
// the table gives for those elements and the value rules' for the others.
TEST(FpCheckDivmod, NonFiniteOperandsReportTheInstalledTable) {
  uint8_t table[kDivmodTableSize] = {};
  // A table unlike the value rules: nan // positive raises invalid, +inf // positive nothing.
  auto entry = [&](int op, int dbl, int a, int b) -> uint8_t& {
    return table[((op * 2 + dbl) * kDivmodClasses + a) * kDivmodClasses + b];
  };
  for (int op = 0; op < 3; ++op) {
    for (int dbl = 0; dbl < 2; ++dbl) entry(op, dbl, 0, 5) = kFpInvalid;
  }
  set_divmod_nonfinite_flags(table);
  for (UFunc op : {UFunc::FloorDivide, UFunc::Remainder, UFunc::Divmod}) {
    for (DType dt : {DType::Float16, DType::Float32, DType::Float64}) {
      Array a = Array::empty({4}, dt, Device::cpu());
      std::vector<DType> outs(op == UFunc::Divmod ? 2 : 1, dt);
      const ElementwiseKernel k = generate_elementwise(program_of(op, {a, a}, {dt, dt}, outs));
      EXPECT_GE(count(k.body, "judge_divmod"), 1);  // once per loop variant of the skeleton
      expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "fp_divmod.cu");
    }
  }
  if (!test::emulation_root().empty()) {
    for (const auto& c : {std::make_pair(std::vector<double>{kNaN, 2, 3}, unsigned(kFpInvalid)),
                          std::make_pair(std::vector<double>{kInf, 2, 3}, 0u),
                          std::make_pair(std::vector<double>{0, 2, 3}, 0u)}) {
      std::vector<double> b = {1.5, 1, 1};
      if (c.first[0] == 0) b[0] = 0;  // 0 // 0: the value rule's invalid
      GroupProgram p = program_of(UFunc::FloorDivide, {filled(c.first), filled(b)},
                                  {DType::Float64, DType::Float64}, {DType::Float64});
      ElementwiseKernel k = generate_elementwise(p);
      unsigned words[1] = {0};
      unsigned* w = words;
      std::memcpy(k.params.data() + k.fp_param_offset, &w, sizeof w);
      test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 2, 4, k.params);
      EXPECT_EQ(words[0], c.first[0] == 0 ? unsigned(kFpInvalid) : c.second) << c.first[0];
    }
  }
  clear_divmod_nonfinite_flags();
  const ElementwiseKernel plain = generate_elementwise(program_of(
      UFunc::FloorDivide, {filled({1}), filled({1})}, {DType::Float64, DType::Float64}, {DType::Float64}));
  EXPECT_EQ(count(plain.body, "judge_divmod"), 0);  // no table: the value rules alone
}
