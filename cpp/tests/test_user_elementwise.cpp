// Users' element-wise operations (numfuse.ElementwiseKernel) as steps of a fused program: the
// generated source compiles with NVRTC (no GPU), the structural key tells definitions apart, and
// (opt-in, NUMFUSE_EMULATE_CUDA=<repository root>) the fused kernel computes the right values
// on the CPU through tests/cuda_emulator.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/ir/user_elementwise.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;
using Role = UserElementwiseDef::Role;

namespace {

std::vector<std::shared_ptr<Node>> keep;  // nodes outlive the programs that point at them

template <class T> Array host_scalar(T v, DType d) { return Array::scalar(&v, d); }

struct UserProgram {
  GroupProgram program;
  Array x, r, out;
};

// out = (z)^2 with z = x * a + r[i % r.size()] + _ind.size(): a user step (an input array, a
// scalar, a raw array and the index space's size) followed by a ufunc step, in one kernel.
UserProgram make_program(const std::string& operation, int64_t n = 10) {
  UserElementwiseDef d;
  d.name = "axpr";
  d.args = {{Role::In, "x"}, {Role::In, "a"}, {Role::RawView, "r"}, {Role::RawPtr, "r", DType::Float64},
            {Role::RawSize, "r"}, {Role::Size, ""}};
  d.out_names = {"z"};
  d.typedefs = {{"T", DType::Float64}};
  d.operation = operation;
  const UserElementwiseDef* def = intern_user_elementwise(d);

  UserProgram u;
  u.x = Array::empty({n}, DType::Float64, Device::cpu());
  for (int64_t i = 0; i < n; ++i) u.x.data_as<double>()[i] = static_cast<double>(i);
  u.r = Array::empty({3}, DType::Float64, Device::cpu());
  for (int i = 0; i < 3; ++i) u.r.data_as<double>()[i] = 100.0 * (i + 1);
  std::vector<Array> args = {u.x,
                             host_scalar(2.0, DType::Float64),
                             u.r.view({}, {}, 0),
                             host_scalar(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(u.r.data())), DType::UInt64),
                             host_scalar(int64_t{3}, DType::Int64),
                             host_scalar(n, DType::Int64)};
  auto user = std::make_shared<UserElementwiseNode>();
  user->def = def;
  user->device = Device::cuda(0);
  for (const Array& a : args) user->in_loop.push_back(a.dtype);
  user->out_loop = {DType::Float64};
  user->out_dtypes = {DType::Float64};
  user->out_shapes = {u.x.shape};
  auto square = std::make_shared<UFuncNode>();
  square->ufunc = UFunc::Multiply;
  square->device = Device::cuda(0);
  square->in_loop = {DType::Float64, DType::Float64};
  square->out_loop = {DType::Float64};
  square->out_dtypes = {DType::Float64};
  square->out_shapes = {u.x.shape};
  keep.push_back(user);
  keep.push_back(square);

  GroupProgram& p = u.program;
  p.shape = u.x.shape;
  p.device = Device::cuda(0);
  p.leaves = args;
  ProgramStep s0{user.get(), user->op(), {}};
  for (int l = 0; l < static_cast<int>(args.size()); ++l) s0.args.push_back(ProgramValue{l});
  p.steps.push_back(s0);
  p.steps.push_back({square.get(), square->op(), {ProgramValue{-1, 0, 0}, ProgramValue{-1, 0, 0}}});
  u.out = Array::empty(u.x.shape, DType::Float64, Device::cpu());
  p.outputs.push_back({ProgramValue{-1, 1, 0}, u.out});
  return u;
}

const char* const kOperation = "z = x * a + r[i % r.size()] + (T)_ind.size()";

}  // namespace

TEST(UserElementwise, FusedSourceCompilesWithNvrtc) {
  UserProgram u = make_program(kOperation);
  ElementwiseKernel k = generate_elementwise(u.program);
  EXPECT_NE(k.body.find(kOperation), std::string::npos);
  EXPECT_NE(k.body.find("nf_fused"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "user_elementwise.cu");
}

TEST(UserElementwise, DefinitionsAreInternedAndKeyed) {
  UserProgram a = make_program(kOperation), b = make_program(kOperation);
  UserProgram c = make_program("z = x - a");
  EXPECT_EQ(a.program.steps[0].op.user, b.program.steps[0].op.user);
  EXPECT_NE(a.program.steps[0].op.user, c.program.steps[0].op.user);
  EXPECT_EQ(plan_elementwise(a.program).key, plan_elementwise(b.program).key);
  EXPECT_NE(plan_elementwise(a.program).key, plan_elementwise(c.program).key);
}

TEST(UserElementwise, EmulatedKernelComputesTheOperationFusedWithTheSquare) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  for (int64_t n : {10, 1001}) {
    UserProgram u = make_program(kOperation, n);
    ElementwiseKernel k = generate_elementwise(u.program);
    test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 2, 256, k.params);
    for (int64_t i = 0; i < n; ++i) {
      const double z = 2.0 * i + 100.0 * (i % 3 + 1) + n;
      EXPECT_EQ(u.out.data_as<double>()[i], z * z) << "element " << i << " of " << n;
    }
  }
}

TEST(UserElementwise, ReductionPrologueCompiles) {
  // sum(k(x) ** 2): the user step runs in the fused reduction kernel, reading the position.
  UserProgram u = make_program(kOperation, 5000);
  u.program.outputs.clear();
  u.program.reduced = ProgramValue{-1, 1, 0};
  ReduceSpec spec;
  spec.op = ReduceOp::Sum;
  spec.loop = DType::Float64;
  spec.axes = {true};
  FusedReduceKernel k = generate_reduce_fused(spec, u.program, 132);
  EXPECT_NE(k.body.find(kOperation), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "user_reduce.cu");
}
