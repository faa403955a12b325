// Kernels of the CUDA program runner that need no GPU to check: the casts every Copy program
// makes (device copies, astype, fills) and the index kernels of arange/eye compile with NVRTC,
// including the 0-d case. Launches are tested on a GPU by tests/test_cuda_arrays.py.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/nvrtc.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/views.h"

using namespace nf;
using namespace nf::cuda;

namespace {

void expect_compiles(const std::string& src, const std::string& name) {
  if (!nvrtc_available()) GTEST_SKIP() << "NVRTC not available";
  try {
    EXPECT_FALSE(compile_to_cubin(src, name, "sm_90", {"-std=c++17"}).empty());
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

// One program: output j = leaf j (dtype j) cast to dtype (j + shift) % 14, through `view`.
GroupProgram cast_program(int shift, const Shape& shape, bool transpose_out) {
  GroupProgram p;
  p.shape = shape;
  p.device = Device::cuda(0);
  for (int j = 0; j < kNumDTypes; ++j) {
    DType from = static_cast<DType>(j), to = static_cast<DType>((j + shift) % kNumDTypes);
    p.leaves.push_back(Array::empty(shape, from, Device::cpu()));
    ElementwiseOp op{ElementwiseOp::Kind::Copy, UFunc::Add, {to}, {to}};
    p.steps.push_back({nullptr, op, {ProgramValue{j}}});
    Array out = Array::empty(shape, to, Device::cpu());
    if (transpose_out) out = transpose(Array::empty({shape[1], shape[0]}, to, Device::cpu()));
    p.outputs.push_back({ProgramValue{-1, j, 0}, out});
  }
  return p;
}

}  // namespace

TEST(FusedCuda, EveryDtypeCastsInCopyPrograms) {
  for (int shift : {1, 5, 9}) {
    ElementwiseKernel k = generate_elementwise(cast_program(shift, {4, 6}, shift == 5));
    expect_compiles(std::string(kKernelPrelude) + k.body, k.entry);
  }
}

TEST(FusedCuda, ZeroDimProgramsFromHostScalarsAreContiguous) {
  GroupProgram p;
  p.device = Device::cuda(0);
  for (int j = 0; j < kNumDTypes; ++j) {
    DType d = static_cast<DType>(j);
    unsigned char v[16] = {1};
    p.leaves.push_back(Array::scalar(v, d));
    ElementwiseOp op{ElementwiseOp::Kind::Copy, UFunc::Add, {d}, {d}};
    p.steps.push_back({nullptr, op, {ProgramValue{j}}});
    p.outputs.push_back({ProgramValue{-1, j, 0}, Array::empty({}, d, Device::cpu())});
  }
  ElementwiseKernel k = generate_elementwise(p);
  EXPECT_EQ(k.n, 1);
  EXPECT_EQ(k.body.find("p.stride"), std::string::npos);  // the contiguous variant
  expect_compiles(std::string(kKernelPrelude) + k.body, k.entry);
}

TEST(FusedCuda, IndexKernelsCompileForEveryDtype) {
  for (int j = 0; j < kNumDTypes; j += 3) {
    expect_compiles(arange_kernel_source(static_cast<DType>(j)), "nf_arange");
    expect_compiles(eye_kernel_source(static_cast<DType>(j)), "nf_eye");
  }
}
