// The strided CUDA elementwise kernel, run on the CPU through tests/cuda_emulator.h: its index
// arithmetic (magic-number division per dimension) against the element each position must read,
// for ranks 2-4, odd extents, negative strides and broadcasts, with few blocks so the grid-stride
// loop turns. Opt-in: NUMFUSE_EMULATE_CUDA=<repository root>.
#include <gtest/gtest.h>

#include <memory>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/ops/elementwise.h"

using namespace nf;
using namespace nf::cuda;

namespace {

// out = a + b over a's shape (b broadcast to it), as a program that targets cuda:0 but whose
// arrays live on the host, where the emulated kernel reads and writes them.
Array emulated_add(const Array& a, const Array& b, Array out = Array()) {
  auto node = std::make_shared<UFuncNode>();
  node->ufunc = UFunc::Add;
  node->device = Device::cuda(0);
  node->inputs = {a, b};
  node->in_loop = {DType::Float64, DType::Float64};
  node->out_loop = {DType::Float64};
  node->out_dtypes = {DType::Float64};
  node->out_shapes = {a.shape};
  GroupProgram p;
  p.shape = a.shape;
  p.device = Device::cuda(0);
  p.leaves = {a, b};
  p.steps.push_back({node.get(), node->op(), {ProgramValue{0}, ProgramValue{1}}});
  if (!out.storage) out = Array::empty(a.shape, DType::Float64, Device::cpu());
  p.outputs.push_back({ProgramValue{-1, 0, 0}, out});
  ElementwiseKernel k = generate_elementwise(p);
  EXPECT_FALSE(k.contiguous);
  test::emulate_launch(k.body, "nf_params", {"nf_fused"}, "nf_fused", 3, 256, k.params);
  return out;
}

// Element `i` (C order) of `a` read through its strides.
double at(const Array& a, int64_t i) {
  int64_t off = 0;
  for (int d = a.ndim() - 1; d >= 0; --d) {
    off += (i % a.shape[d]) * a.strides[d];
    i /= a.shape[d];
  }
  return a.data_as<double>()[off];
}

}  // namespace

TEST(ElementwiseEmulation, StridedIndicesReachEveryElement) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // The last is above kScalarLoopElements, so runs of two along its even inner extent are tested.
  const std::vector<Shape> shapes = {{37, 41}, {3, 130, 7}, {2, 5, 3, 67}, {999, 1, 3}, {61, 83}, {4, 9, 131}, {37, 40}, {5, 6, 64},
                                     {2, 257, 130}};
  for (const Shape& shape : shapes) {
    Array base = Array::empty(shape, DType::Float64, Device::cpu());
    for (int64_t i = 0; i < base.size(); ++i) base.data_as<double>()[i] = double(i) * 0.5;
    // A reversed view of the first axis, and the first row broadcast along every other axis.
    Strides reversed = base.strides;
    reversed[0] = -reversed[0];
    Array rev = base.view(shape, reversed, (shape[0] - 1) * base.strides[0] * 8);
    Strides row_strides(shape.size(), 0);
    row_strides.back() = 1;
    Array row = base.view(shape, row_strides, 0);
    Array out = emulated_add(rev, row);
    for (int64_t i = 0; i < out.size(); ++i) {
      ASSERT_EQ(out.data_as<double>()[i], at(rev, i) + at(row, i))
          << "element " << i << " of shape rank " << shape.size();
    }
  }
}

TEST(ElementwiseEmulation, ViewsWithEqualStridesShareOneOffset) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // dst[1:-1, 1:-1] = src[:-2, 1:-1] + src[2:, 1:-1]: three operands, one stride row.
  const int64_t rows = 1000, cols = 70;  // above kScalarLoopElements: runs of two
  Array src = Array::empty({rows, cols}, DType::Float64, Device::cpu());
  Array dst = Array::empty({rows, cols}, DType::Float64, Device::cpu());
  for (int64_t i = 0; i < src.size(); ++i) {
    src.data_as<double>()[i] = double(i);
    dst.data_as<double>()[i] = -1.0;
  }
  const Shape inner{rows - 2, cols - 2};
  Array up = src.view(inner, src.strides, 1 * 8);
  Array down = src.view(inner, src.strides, (2 * cols + 1) * 8);
  Array out = dst.view(inner, dst.strides, (cols + 1) * 8);
  emulated_add(up, down, out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const bool interior = r > 0 && r < rows - 1 && c > 0 && c < cols - 1;
      const double want = interior ? double((r - 1) * cols + c) + double((r + 1) * cols + c) : -1.0;
      ASSERT_EQ(dst.data_as<double>()[r * cols + c], want) << r << ", " << c;
    }
  }
}
