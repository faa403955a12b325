// Launch planning of the CUDA elementwise kernels for 32-bit indices (issue 11): a space past
// kElementwiseMaxIndex elements or operand spans is cut by split_for_int32 into pieces, each
// launched with its pointers and first position advanced. The plans of real sizes past 2^31 are
// checked here without running them; the pieces' index arithmetic runs through the CPU emulation
// of the kernels (tests/cuda_emulator.h, opt-in) with a small max index, so that many pieces of a
// small space reach every element exactly once.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/core/iteration.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/kernels/generators.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

// out = a + b (b broadcast to out's shape) in `dtype`, as a program for cuda:0 whose arrays may
// live on the host (the emulated kernel reads them there; planning alone never reads them).
GroupProgram add_program(const Array& a, const Array& b, const Array& out, DType dtype) {
  static std::vector<std::shared_ptr<UFuncNode>> keep;  // steps point at their nodes
  auto node = std::make_shared<UFuncNode>();
  keep.push_back(node);
  node->ufunc = UFunc::Add;
  node->device = Device::cuda(0);
  node->inputs = {a, b};
  node->in_loop = {dtype, dtype};
  node->out_loop = {dtype};
  node->out_dtypes = {dtype};
  node->out_shapes = {out.shape};
  GroupProgram p;
  p.shape = out.shape;
  p.device = Device::cuda(0);
  p.leaves = {a, b};
  p.steps.push_back({node.get(), node->op(), {ProgramValue{0}, ProgramValue{1}}});
  p.outputs.push_back({ProgramValue{-1, 0, 0}, out});
  return p;
}

// One generator step of `kind` into `out` (position-driven values: arange, uniform draws).
GroupProgram generator_program(Generator::Kind kind, const Array& out) {
  GroupProgram p;
  p.shape = out.shape;
  p.device = Device::cuda(0);
  ElementwiseOp op{ElementwiseOp::Kind::Generate, UFunc::Add, {}, {out.dtype}};
  op.gen.kind = kind;
  const double start = 3.0, step = 0.5, low = 0.0, high = 1.0;
  if (kind == Generator::Kind::Arange) {
    std::memcpy(&op.gen.word[0], &start, 8);
    std::memcpy(&op.gen.word[1], &step, 8);
  } else {  // seed, stream, an odd offset into the stream, [low, high)
    op.gen.word[0] = 12345;
    op.gen.word[1] = 7;
    op.gen.word[2] = 3;
    std::memcpy(&op.gen.word[3], &low, 8);
    std::memcpy(&op.gen.word[4], &high, 8);
  }
  p.steps.push_back({nullptr, op, {}});
  p.outputs.push_back({ProgramValue{-1, 0, 0}, out});
  return p;
}

// Every launch of a planned kernel (the first, then kernel.more), emulated on the CPU.
void emulate_all(const ElementwiseKernel& k) {
  test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 2, 256, k.params);
  for (const ElementwiseLaunch& l : k.more) {
    test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 2, 256, l.params);
  }
}

// Element `i` (C order) of a float64 view, through its strides.
double at(const Array& a, int64_t i) {
  int64_t off = 0;
  for (int d = a.ndim() - 1; d >= 0; --d) {
    off += (i % a.shape[d]) * a.strides[d];
    i /= a.shape[d];
  }
  return static_cast<const double*>(static_cast<const void*>(a.data()))[off];
}

void* first_pointer(const std::vector<uint8_t>& params) {
  void* p = nullptr;
  std::memcpy(&p, params.data(), sizeof p);
  return p;
}

}  // namespace

TEST(Int32Launches, ContiguousSpacePast2To31IsCutIntoAlignedPiecesOf32BitIndices) {
  // 2^31 + 2^20 + 3 int8 elements: a + a into out. Planning never touches the memory, so views of
  // a small buffer stand for the 2.2 GB arrays.
  const int64_t n = (int64_t(1) << 31) + (int64_t(1) << 20) + 3;
  Array buf = Array::empty({64}, DType::Int8, Device::cpu());
  Array a = buf.view({n}, {1}, 0), out = buf.view({n}, {1}, 0);
  GroupProgram p = add_program(a, a, out, DType::Int8);
  ElementwiseKernel k = generate_elementwise(p);
  EXPECT_TRUE(k.idx32);
  EXPECT_TRUE(k.contiguous);
  ASSERT_FALSE(k.more.empty());
  EXPECT_EQ(k.vec, 16);  // the cuts fall on multiples of 64 elements: 16-byte loads stay aligned
  // The pieces follow each other: each starts where the last ended, and they add up to n.
  char* base = static_cast<char*>(first_pointer(k.params));
  EXPECT_EQ(base, buf.data());
  int64_t start = k.n;
  EXPECT_LE(k.n, kElementwiseMaxIndex);
  for (const ElementwiseLaunch& l : k.more) {
    EXPECT_EQ(static_cast<char*>(first_pointer(l.params)), base + start);
    EXPECT_LE(l.n, kElementwiseMaxIndex);
    EXPECT_GT(l.n, 0);
    EXPECT_EQ(l.params.size(), k.params.size());
    start += l.n;
  }
  EXPECT_EQ(start, n);
  EXPECT_NE(k.body.find("typedef int nf_idx"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "int8_pieces.cu");
  // 2^28 float32 elements fit: one launch, 32-bit indices, the same source structure as before.
  Array f = Array::empty({4}, DType::Float32, Device::cpu()).view({int64_t(1) << 28}, {1}, 0);
  ElementwiseKernel one = plan_elementwise(add_program(f, f, f, DType::Float32));
  EXPECT_TRUE(one.idx32);
  EXPECT_TRUE(one.more.empty());
  EXPECT_EQ(one.n, int64_t(1) << 28);
}

TEST(Int32Launches, StridedSpanPast2To31IsCutAndGeneratorsGetTheirFirstPosition) {
  // A transposed (2^16, 2^15 + 2) float32 view: 2^31 + 2^17 elements whose input offsets span
  // past 2^31; the output is written in C order. The strided kernel keeps 32-bit indices and its
  // fast divisors are 32-bit ones.
  const int64_t r = int64_t(1) << 16, c = (int64_t(1) << 15) + 2;
  Array buf = Array::empty({16}, DType::Float32, Device::cpu());
  Array t = buf.view({r, c}, {1, r}, 0), out = buf.view({r, c}, {c, 1}, 0);
  ElementwiseKernel k = generate_elementwise(add_program(t, t, out, DType::Float32));
  EXPECT_FALSE(k.contiguous);
  EXPECT_TRUE(k.idx32);
  ASSERT_FALSE(k.more.empty());
  int64_t total = k.n;
  for (const ElementwiseLaunch& l : k.more) total += l.n;
  EXPECT_EQ(total, r * c);
  EXPECT_NE(k.body.find("typedef int nf_idx"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "strided_pieces.cu");
  // A generator over 2^31 + 1 positions: each launch carries its first position (pos0).
  Array g = Array::empty({8}, DType::Float64, Device::cpu()).view({(int64_t(1) << 31) + 1}, {1}, 0);
  ElementwiseKernel gk = generate_elementwise(generator_program(Generator::Kind::Uniform, g));
  ASSERT_TRUE(gk.position);
  ASSERT_FALSE(gk.more.empty());
  EXPECT_NE(gk.body.find("long long pos0"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + gk.body, "generator_pieces.cu");
}

TEST(Int32Launches, TooManyPiecesKeepOneLaunchOf64BitIndices) {
  // With a max index of 7, 100000 elements would take more than kMaxElementwisePieces launches:
  // the one place the 64-bit path remains.
  Array a = Array::empty({100000}, DType::Float32, Device::cpu());
  ElementwiseKernel k = generate_elementwise(add_program(a, a, a, DType::Float32), 7);
  EXPECT_FALSE(k.idx32);
  EXPECT_TRUE(k.more.empty());
  EXPECT_EQ(k.n, 100000);
  EXPECT_NE(k.body.find("typedef long long nf_idx"), std::string::npos);
}

TEST(Int32Launches, EmulatedPiecesReachEveryElementOnce) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // Max index 700: spaces of a few thousand elements become several pieces, strided (a reversed
  // view plus a broadcast row) and contiguous alike.
  const int64_t max_index = 700;
  for (const Shape& shape : std::vector<Shape>{{61, 83}, {3, 37, 41}, {5000}}) {
    SCOPED_TRACE(shape.size());
    Array base = Array::empty(shape, DType::Float64, Device::cpu());
    double* b = static_cast<double*>(static_cast<void*>(base.data()));
    for (int64_t i = 0; i < base.size(); ++i) b[i] = double(i) * 0.5;
    Strides reversed = base.strides;
    reversed[0] = -reversed[0];
    Array rev =
        shape.size() > 1 ? base.view(shape, reversed, (shape[0] - 1) * base.strides[0] * 8) : base;
    Strides row_strides(shape.size(), 0);
    row_strides.back() = 1;
    Array row = base.view(shape, row_strides, 0);
    Array out = Array::empty(shape, DType::Float64, Device::cpu());
    double* o = static_cast<double*>(static_cast<void*>(out.data()));
    for (int64_t i = 0; i < out.size(); ++i) o[i] = -1.0;
    ElementwiseKernel k =
        generate_elementwise(add_program(rev, row, out, DType::Float64), max_index);
    ASSERT_TRUE(k.idx32);
    ASSERT_FALSE(k.more.empty());
    EXPECT_EQ(k.contiguous, shape.size() == 1);
    emulate_all(k);
    for (int64_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(o[i], at(rev, i) + at(row, i)) << "element " << i;
  }
}

TEST(Int32Launches, EmulatedGeneratorPiecesDrawAtTheirGlobalPositions) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // Uniform draws (two per Philox block in the contiguous form) and arange, into a contiguous and a
  // transposed output, cut into pieces of <= 600.
  for (Generator::Kind kind : {Generator::Kind::Uniform, Generator::Kind::Arange}) {
    for (bool transposed : {false, true}) {
      SCOPED_TRACE(std::string(generator_name(kind)) + (transposed ? " transposed" : ""));
      const Shape shape{47, 53};
      Array out = Array::empty(shape, DType::Float64, Device::cpu());
      if (transposed) out = out.view(shape, {1, 47}, 0);
      GroupProgram p = generator_program(kind, out);
      ElementwiseKernel k = generate_elementwise(p, 600);
      ASSERT_FALSE(k.more.empty());
      EXPECT_EQ(k.contiguous, !transposed);
      emulate_all(k);
      const uint64_t* w = p.steps[0].op.gen.word;
      for (int64_t i = 0; i < out.size(); ++i) {
        const double want = kind == Generator::Kind::Uniform
                                ? nf::gen::uniform<double>(w, uint64_t(i))
                                : nf::gen::arange<double>(w, uint64_t(i));
        ASSERT_EQ(at(out, i), want) << "position " << i;
      }
    }
  }
}
