// Kernels of the CUDA program runner that need no GPU to check: the casts every Copy program
// makes (device copies, astype, fills) and the generator steps (full, arange, eye, random) compile
// with NVRTC, including the 0-d case; structural keys match sources. Launches are tested on a GPU by tests/test_cuda_arrays.py.
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

// A program of one generator step per dtype it makes, each written through `out_of(shape, dtype)`.
GroupProgram generator_program(Generator::Kind kind, const Shape& shape, bool transpose_out) {
  GroupProgram p;
  p.shape = shape;
  p.device = Device::cuda(0);
  for (int j = 0; j < kNumDTypes; ++j) {
    DType d = static_cast<DType>(j);
    const bool fl = d == DType::Float32 || d == DType::Float64;
    const bool in = is_integer(d) || d == DType::Bool;
    if ((kind == Generator::Kind::Uniform || kind == Generator::Kind::Normal) && !fl) continue;
    if (kind == Generator::Kind::Integers && !in) continue;
    ElementwiseOp op{ElementwiseOp::Kind::Generate, UFunc::Add, {}, {d}};
    op.gen.kind = kind;
    op.gen.word[0] = 7;
    p.steps.push_back({nullptr, op, {}});
    Array out = Array::empty(shape, d, Device::cpu());
    if (transpose_out) out = transpose(Array::empty({shape[1], shape[0]}, d, Device::cpu()));
    p.outputs.push_back({ProgramValue{-1, static_cast<int>(p.steps.size()) - 1, 0}, out});
  }
  return p;
}

TEST(FusedCuda, GeneratorStepsCompileForEveryDtype) {
  for (Generator::Kind kind : {Generator::Kind::Fill, Generator::Kind::Arange, Generator::Kind::Eye,
                               Generator::Kind::Uniform, Generator::Kind::Normal, Generator::Kind::Integers}) {
    SCOPED_TRACE(generator_name(kind));
    for (bool transposed : {false, true}) {
      GroupProgram p = generator_program(kind, {5, 6}, transposed);
      ElementwiseKernel k = generate_elementwise(p);
      EXPECT_TRUE(k.position);
      EXPECT_EQ(k.contiguous, !transposed);
      EXPECT_EQ(generator_words(p).size(), 8 * p.steps.size());
      EXPECT_NE(k.body.find("p.gen"), std::string::npos);
      expect_compiles(std::string(kKernelPrelude) + k.body, k.entry);
    }
  }
}

TEST(FusedCuda, GeneratorParametersAreArgumentsNotSource) {
  GroupProgram a = generator_program(Generator::Kind::Uniform, {4, 4}, false);
  GroupProgram b = generator_program(Generator::Kind::Uniform, {4, 4}, false);
  b.steps[0].op.gen.word[0] = 99;  // another seed
  ElementwiseKernel ka = generate_elementwise(a), kb = generate_elementwise(b);
  EXPECT_EQ(ka.key, kb.key);
  EXPECT_EQ(ka.body, kb.body);
  EXPECT_NE(ka.params, kb.params);
  GroupProgram c = generator_program(Generator::Kind::Normal, {4, 4}, false);
  EXPECT_NE(generate_elementwise(c).key, ka.key);
}

TEST(FusedCuda, EqualKeysMeanEqualSources) {
  // Programs that differ in structure (dtype, transposition, variant) differ in key; those that
  // differ only in shape keep both key and source.
  std::vector<ElementwiseKernel> ks;
  for (int shift : {1, 5}) {
    for (bool t : {false, true}) ks.push_back(generate_elementwise(cast_program(shift, {4, 6}, t)));
  }
  for (size_t i = 0; i < ks.size(); ++i) {
    for (size_t j = 0; j < ks.size(); ++j) EXPECT_EQ(ks[i].key == ks[j].key, ks[i].body == ks[j].body);
  }
  EXPECT_EQ(generate_elementwise(cast_program(1, {4, 6}, true)).key,
            generate_elementwise(cast_program(1, {7, 9}, true)).key);
}
