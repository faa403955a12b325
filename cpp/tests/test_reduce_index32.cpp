// The CUDA reductions' index width (issue 11): outputs, reduced elements and their offsets are
// 32-bit (nf_ri) when the input space fits, 64-bit past it. The plans of real sizes are checked
// here without running them; the kernels of both widths run through the CPU emulation
// (tests/cuda_emulator.h, opt-in) over reversed, multi-dim views, in the block-per-output scheme
// with a second pass over partial results and in the thread-per-output scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

ReduceSpec sum_spec(std::vector<bool> axes) {
  ReduceSpec spec;
  spec.op = ReduceOp::Sum;
  spec.loop = DType::Int64;
  spec.axes = std::move(axes);
  return spec;
}

// The emulator has no warp shuffle; the schemes run here never call it (nf_warp_reduce is only
// compiled), so a stub lets the host compiler accept the source.
const char* const kNoShuffle =
    "static inline unsigned __shfl_down_sync(unsigned, unsigned v, int) { return v; }\n";

// Runs `k` as reduce_cuda.cpp launches it (grid from the plan) and returns the outputs.
std::vector<int64_t> emulate_reduce(ReduceKernel& k, const ReducePlan& plan, const Array& in) {
  std::vector<int64_t> out(static_cast<size_t>(plan.nout), -7);
  std::vector<unsigned char> partials(k.partial_bytes + 16);
  set_reduce_pointers(k, in.data(), out.data(), partials.data());
  const std::string body = std::string(kNoShuffle) + k.body;
  if (plan.thread_per_output) {  // the scheme without a second pass
    test::emulate_launch(body, "nf_rparams", {"nf_reduce_main"}, "nf_reduce_main", 2, 256,
                         k.params);
  } else {
    EXPECT_FALSE(plan.warp_per_output);
    const std::vector<std::string> entries = {"nf_reduce_main", "nf_reduce_partials"};
    test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_main",
                         static_cast<unsigned>(plan.nout * plan.blocks_per_output), 256, k.params);
    if (plan.blocks_per_output > 1) {
      test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_partials",
                           static_cast<unsigned>(plan.nout), 256, k.params);
    }
  }
  return out;
}

// Runs `k` piece by piece as reduce_cuda.cpp does for plan.rows_per_piece > 0, into `out` (an
// int64 array of the keepdims shape).
void emulate_reduce_pieces(ReduceKernel& k, const ReducePlan& plan, const Array& in,
                           const Array& out) {
  std::vector<unsigned char> partials(k.partial_bytes + 16);
  set_reduce_pointers(k, in.data(), out.data(), partials.data());
  const std::string body = std::string(kNoShuffle) + k.body;
  const std::vector<std::string> entries = {"nf_reduce_main", "nf_reduce_partials"};
  ASSERT_GT(plan.rows_per_piece, 0);
  for (int64_t row0 = 0; row0 < plan.kept_shape[0]; row0 += plan.rows_per_piece) {
    const int64_t rows = std::min(plan.rows_per_piece, plan.kept_shape[0] - row0);
    const int64_t nout = set_reduce_piece(k, plan, in, out, row0, rows);
    if (plan.thread_per_output) {
      test::emulate_launch(body, "nf_rparams", {"nf_reduce_main"}, "nf_reduce_main", 2, 256,
                           k.params);
      continue;
    }
    ASSERT_FALSE(plan.warp_per_output);
    test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_main",
                         static_cast<unsigned>(nout * plan.blocks_per_output), 256, k.params);
    if (plan.blocks_per_output > 1) {
      test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_partials",
                           static_cast<unsigned>(nout), 256, k.params);
    }
  }
}

// A fused reduction's prologue: a * a (int64) of the leaf `a`, the value reduced.
GroupProgram square_program(const Array& a) {
  static std::vector<std::shared_ptr<UFuncNode>> keep;  // steps point at their nodes
  auto node = std::make_shared<UFuncNode>();
  keep.push_back(node);
  node->ufunc = UFunc::Multiply;
  node->device = Device::cuda(0);
  node->inputs = {a, a};
  node->in_loop = {DType::Int64, DType::Int64};
  node->out_loop = {DType::Int64};
  node->out_dtypes = {DType::Int64};
  node->out_shapes = {a.shape};
  GroupProgram p;
  p.shape = a.shape;
  p.device = Device::cuda(0);
  p.leaves = {a};
  p.steps.push_back({node.get(), node->op(), {ProgramValue{0}, ProgramValue{0}}});
  p.reduced = ProgramValue{-1, 0, 0};
  return p;
}

}  // namespace

TEST(ReduceIndex32, EmulatedFusedPiecesOfKeptRows) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // sum(a * a) over axes 1 and 2 of a (5, 30, 90) int64 view reversed along axis 2, with a max
  // index of 6000: pieces of 2 rows (2 * 2700 elements), each a 32-bit launch.
  const Shape shape{5, 30, 90};
  Array base = Array::empty(shape, DType::Int64, Device::cpu());
  int64_t* b = static_cast<int64_t*>(static_cast<void*>(base.data()));
  for (int64_t i = 0; i < base.size(); ++i) b[i] = (i * 31) % 97 - 40;
  Array rev = base.view(shape, {base.strides[0], base.strides[1], -1}, (shape[2] - 1) * 8);
  GroupProgram p = square_program(rev);
  FusedReduceKernel k = generate_reduce_fused(sum_spec({false, true, true}), p, 132, nullptr, nullptr,
                                              kFpDefaultState, 6000);
  ASSERT_TRUE(k.plan.idx32);
  ASSERT_EQ(k.plan.rows_per_piece, 2);
  ASSERT_FALSE(k.plan.thread_per_output || k.plan.warp_per_output);
  Array out = Array::empty({5, 1, 1}, DType::Int64, Device::cpu());
  std::vector<unsigned char> partials(k.partial_bytes + 16);
  set_fused_reduce_pointers(k, out.data(), partials.data());
  const std::string body = std::string(kNoShuffle) + k.body;
  const std::vector<std::string> entries = {"nf_reduce_main", "nf_reduce_partials"};
  for (int64_t row0 = 0; row0 < 5; row0 += 2) {
    const int64_t nout = set_fused_reduce_piece(k, out, row0, std::min<int64_t>(2, 5 - row0));
    test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_main",
                         static_cast<unsigned>(nout * k.plan.blocks_per_output), 256, k.params);
    if (k.plan.blocks_per_output > 1) {
      test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_partials", static_cast<unsigned>(nout), 256,
                           k.params);
    }
  }
  const int64_t* ov = static_cast<const int64_t*>(static_cast<const void*>(out.data()));
  for (int64_t i = 0; i < 5; ++i) {
    int64_t want = 0;
    for (int64_t j = 0; j < 30 * 90; ++j) want += b[i * 2700 + j] * b[i * 2700 + j];
    ASSERT_EQ(ov[i], want) << "row " << i;
  }
  // An epilogue or a position keeps such a space in one 64-bit launch.
  FusedReduceKernel whole = generate_reduce_fused(sum_spec({false, true, true}), p, 132, &p, nullptr,
                                                  kFpDefaultState, 6000);
  EXPECT_FALSE(whole.plan.idx32);
  EXPECT_EQ(whole.plan.rows_per_piece, 0);
}

TEST(ReduceIndex32, RowsOfTheOutermostKeptDimArePiecesOf32BitIndices) {
  // (2^11 + 1, 2^20) int8, 2^31 + 2^20 elements, summed along rows: the rows are independent
  // outputs, launched in pieces of rows that fit.
  Array buf = Array::empty({64}, DType::Int8, Device::cpu());
  const int64_t rows = (int64_t(1) << 11) + 1, cols = int64_t(1) << 20;
  Array big = buf.view({rows, cols}, {cols, 1}, 0);
  ReducePlan plan = plan_reduce(sum_spec({false, true}), big, 132);
  EXPECT_TRUE(plan.idx32);
  ASSERT_GT(plan.rows_per_piece, 0);
  EXPECT_LT(plan.rows_per_piece, rows);
  EXPECT_LE(plan.rows_per_piece * cols, kElementwiseMaxIndex);
  ReduceKernel k = generate_reduce(sum_spec({false, true}), big, plan);
  EXPECT_NE(k.body.find("typedef int nf_ri"), std::string::npos);
  // Summed along columns, every output reads across 2^31 bytes of rows: no piece fits, 64-bit.
  ReducePlan cols_plan = plan_reduce(sum_spec({true, false}), big, 132);
  EXPECT_FALSE(cols_plan.idx32);
  EXPECT_EQ(cols_plan.rows_per_piece, 0);
  // The piece's parameters: in and out advanced by its first row, nout and kshape[0] its own.
  Array out = Array::empty({rows, 1}, DType::Int64, Device::cpu());
  set_reduce_pointers(k, big.data(), out.data(), nullptr);
  EXPECT_EQ(set_reduce_piece(k, plan, big, out, 2000, 49), 49);
  const void* in_at = nullptr;
  void* out_at = nullptr;
  long long nout = 0, kshape0 = 0;
  std::memcpy(&in_at, k.params.data(), 8);
  std::memcpy(&out_at, k.params.data() + 8, 8);
  std::memcpy(&nout, k.params.data() + 24, 8);
  std::memcpy(&kshape0, k.params.data() + 48, 8);
  EXPECT_EQ(in_at, static_cast<const void*>(big.data() + 2000 * cols));
  EXPECT_EQ(out_at, static_cast<void*>(out.data() + 2000 * 8));
  EXPECT_EQ(nout, 49);
  EXPECT_EQ(kshape0, 49);
}

TEST(ReduceIndex32, EmulatedPiecesOfKeptRowsReduceEveryOutput) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // Small spaces with a small max index: a reversed (37, 50) view summed along rows (a block per
  // output), and a (5, 7, 300) array summed over axis 1 (300 adjacent outputs per row of the
  // outermost kept dim, a thread each).
  Array a = Array::empty({37, 50}, DType::Int64, Device::cpu());
  int64_t* av = static_cast<int64_t*>(static_cast<void*>(a.data()));
  for (int64_t i = 0; i < a.size(); ++i) av[i] = (i * 7919) % 1000 - 500;
  Array rev = a.view({37, 50}, {-50, 1}, 36 * 50 * 8);
  ReducePlan plan = plan_reduce(sum_spec({false, true}), rev, 132, 500);
  ASSERT_TRUE(plan.idx32);
  ASSERT_EQ(plan.rows_per_piece, 10);
  ReduceKernel k = generate_reduce(sum_spec({false, true}), rev, plan);
  Array out = Array::empty({37, 1}, DType::Int64, Device::cpu());
  emulate_reduce_pieces(k, plan, rev, out);
  const int64_t* ov = static_cast<const int64_t*>(static_cast<const void*>(out.data()));
  for (int64_t r = 0; r < 37; ++r) {
    int64_t want = 0;
    for (int64_t c = 0; c < 50; ++c) want += av[(36 - r) * 50 + c];
    ASSERT_EQ(ov[r], want) << "row " << r;
  }
  Array b = Array::empty({5, 7, 300}, DType::Int64, Device::cpu());
  int64_t* bv = static_cast<int64_t*>(static_cast<void*>(b.data()));
  for (int64_t i = 0; i < b.size(); ++i) bv[i] = (i * 31) % 97 - 40;
  ReducePlan bp = plan_reduce(sum_spec({false, true, false}), b, 132, 4500);
  ASSERT_TRUE(bp.thread_per_output);
  ASSERT_EQ(bp.rows_per_piece, 2);
  ReduceKernel bk = generate_reduce(sum_spec({false, true, false}), b, bp);
  Array bout = Array::empty({5, 1, 300}, DType::Int64, Device::cpu());
  emulate_reduce_pieces(bk, bp, b, bout);
  const int64_t* bo = static_cast<const int64_t*>(static_cast<const void*>(bout.data()));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 300; ++j) {
      int64_t want = 0;
      for (int64_t r = 0; r < 7; ++r) want += bv[i * 2100 + r * 300 + j];
      ASSERT_EQ(bo[i * 300 + j], want) << i << ", " << j;
    }
}

TEST(ReduceIndex32, SpacesThatFitIndexIn32BitsAndLargerOnesIn64) {
  Array small = Array::empty({300, 400}, DType::Float32, Device::cpu());
  ReducePlan plan = plan_reduce(sum_spec({true, false}), small, 132);
  EXPECT_TRUE(plan.idx32);
  ReduceKernel k = generate_reduce(sum_spec({true, false}), small, plan);
  EXPECT_NE(k.body.find("typedef int nf_ri"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + k.body, "reduce32.cu");
  // 2^31 + 2^20 int8 elements (a view standing for 2.2 GB; planning never reads it): 64-bit.
  Array buf = Array::empty({64}, DType::Int8, Device::cpu());
  Array big = buf.view({(int64_t(1) << 31) + (int64_t(1) << 20)}, {1}, 0);
  ReducePlan bp = plan_reduce(sum_spec({true}), big, 132);
  EXPECT_FALSE(bp.idx32);
  ReduceKernel bk = generate_reduce(sum_spec({true}), big, bp);
  EXPECT_NE(bk.body.find("typedef long long nf_ri"), std::string::npos);
  expect_nvrtc_compiles(std::string(kKernelPrelude) + bk.body, "reduce64.cu");
  // Few elements whose offsets span past 2^31 (rows 2^20 apart): the space does not fit, but its
  // rows summed along are independent outputs, launched in pieces of rows that do.
  Array wide = buf.view({4096, 3}, {int64_t(1) << 20, 1}, 0);
  EXPECT_FALSE(reduce_fits_int32(wide.shape, {wide.strides}));
  const ReducePlan wp = plan_reduce(sum_spec({false, true}), wide, 132);
  EXPECT_TRUE(wp.idx32);
  const int64_t most = (kElementwiseMaxIndex - 2) / (int64_t(1) << 20) + 1;  // rows one piece may take
  const int64_t npieces = (4096 + most - 1) / most;
  EXPECT_EQ(wp.rows_per_piece, (4096 + npieces - 1) / npieces);  // balanced: 3 pieces of 1366, 1366, 1364
  EXPECT_TRUE(reduce_fits_int32(small.shape, {small.strides}));
}

TEST(ReduceIndex32, EmulatedKernelsOfBothWidthsSumEveryElement) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // int64 values i * 3 - 1000 over a (3, 40, 170) base, viewed reversed along axes 0 and 2.
  const Shape shape{3, 40, 170};
  Array base = Array::empty(shape, DType::Int64, Device::cpu());
  int64_t* b = static_cast<int64_t*>(static_cast<void*>(base.data()));
  for (int64_t i = 0; i < base.size(); ++i) b[i] = i * 3 - 1000;
  const Strides st = base.strides;
  Array rev = base.view(shape, {-st[0], st[1], -st[2]},
                        ((shape[0] - 1) * st[0] + (shape[2] - 1) * st[2]) * 8);
  auto at = [&](int64_t i0, int64_t i1, int64_t i2) {
    return b[(shape[0] - 1 - i0) * st[0] + i1 * st[1] + (shape[2] - 1 - i2) * st[2]];
  };
  struct Case {
    std::vector<bool> axes;
    int sm_count;  // few: the block scheme splits each output over several blocks
  };
  for (const Case& c : {Case{{true, false, true}, 132}, Case{{true, true, true}, 4},
                        Case{{true, true, false}, 132}}) {
    ReduceSpec spec = sum_spec(c.axes);
    for (bool idx32 : {true, false}) {
      SCOPED_TRACE(std::string(idx32 ? "32" : "64") + "-bit");
      ReducePlan plan = plan_reduce(spec, rev, c.sm_count);
      ASSERT_TRUE(plan.idx32);
      plan.idx32 = idx32;
      if (c.axes == std::vector<bool>{true, true, true}) EXPECT_GT(plan.blocks_per_output, 1);
      ReduceKernel k = generate_reduce(spec, rev, plan);
      const std::vector<int64_t> got = emulate_reduce(k, plan, rev);
      // The kept dims' C order over the outputs.
      std::vector<int64_t> want;
      for (int64_t i0 = 0; i0 < (c.axes[0] ? 1 : shape[0]); ++i0)
        for (int64_t i1 = 0; i1 < (c.axes[1] ? 1 : shape[1]); ++i1)
          for (int64_t i2 = 0; i2 < (c.axes[2] ? 1 : shape[2]); ++i2) {
            int64_t s = 0;
            for (int64_t j0 = 0; j0 < shape[0]; ++j0)
              for (int64_t j1 = 0; j1 < shape[1]; ++j1)
                for (int64_t j2 = 0; j2 < shape[2]; ++j2) {
                  if ((!c.axes[0] && j0 != i0) || (!c.axes[1] && j1 != i1) ||
                      (!c.axes[2] && j2 != i2))
                    continue;
                  s += at(j0, j1, j2);
                }
            want.push_back(s);
          }
      EXPECT_EQ(got, want);
    }
  }
}

TEST(ReduceIndex32, EmulatedThreadPerOutputOfBothWidths) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // Sum over axis 0 of a (7, 1100) int64 array: 1100 adjacent outputs, a thread each.
  Array a = Array::empty({7, 1100}, DType::Int64, Device::cpu());
  int64_t* v = static_cast<int64_t*>(static_cast<void*>(a.data()));
  for (int64_t i = 0; i < a.size(); ++i) v[i] = (i * 7919) % 1000 - 500;
  ReduceSpec spec = sum_spec({true, false});
  for (bool idx32 : {true, false}) {
    ReducePlan plan = plan_reduce(spec, a, 132);
    ASSERT_TRUE(plan.thread_per_output);
    plan.idx32 = idx32;
    ReduceKernel k = generate_reduce(spec, a, plan);
    const std::vector<int64_t> got = emulate_reduce(k, plan, a);
    for (int64_t o = 0; o < 1100; ++o) {
      int64_t want = 0;
      for (int64_t r = 0; r < 7; ++r) want += v[r * 1100 + o];
      ASSERT_EQ(got[o], want) << "output " << o << (idx32 ? " (32-bit)" : " (64-bit)");
    }
  }
}

TEST(ReduceIndex32, EmulatedFusedReductionOfBothWidths) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  // sum(a * a) over axes 0 and 2 of a (4, 30, 90) int64 view reversed along axis 2, the product a
  // step of the kernel's prologue: per-leaf offsets of kept and reduced dims in nf_ri.
  const Shape shape{4, 30, 90};
  Array base = Array::empty(shape, DType::Int64, Device::cpu());
  int64_t* b = static_cast<int64_t*>(static_cast<void*>(base.data()));
  for (int64_t i = 0; i < base.size(); ++i) b[i] = (i * 31) % 97 - 40;
  Array rev = base.view(shape, {base.strides[0], base.strides[1], -1}, (shape[2] - 1) * 8);
  GroupProgram p = square_program(rev);
  // Axes 0 and 2 on 132 SMs (a block per output); every axis on 2 SMs (two blocks for the one
  // output, then the second pass).
  int ran = 0, second_pass = 0;
  for (bool every_axis : {false, true}) {
    const ReduceSpec spec = sum_spec({true, every_axis, true});
    const int sms = every_axis ? 2 : 132;
    const int64_t nout = every_axis ? 1 : shape[1];
    for (bool idx32 : {true, false}) {
      SCOPED_TRACE(std::string(every_axis ? "every axis" : "axes 0, 2") +
                   (idx32 ? ", 32-bit" : ", 64-bit"));
      FusedReduceKernel k = generate_reduce_fused(spec, p, sms);
      ASSERT_TRUE(k.plan.idx32);
      ASSERT_FALSE(k.plan.thread_per_output ||
                   k.plan.warp_per_output);  // the emulator has no shuffle
      ASSERT_EQ(k.plan.nout, nout);
      if (!idx32) {  // the same plan with 64-bit indices: the source's index type only
        const std::string from = "typedef int nf_ri;";
        k.body.replace(k.body.find(from), from.size(), "typedef long long nf_ri;");
      }
      std::vector<int64_t> out(static_cast<size_t>(nout), -7);
      std::vector<unsigned char> partials(k.partial_bytes + 16);
      set_fused_reduce_pointers(k, out.data(), partials.data());
      const std::string body = std::string(kNoShuffle) + k.body;
      const std::vector<std::string> entries = {"nf_reduce_main", "nf_reduce_partials"};
      const unsigned blocks = static_cast<unsigned>(k.plan.nout * k.plan.blocks_per_output);
      test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_main", blocks, 256, k.params);
      if (k.plan.blocks_per_output > 1) {
        ++second_pass;
        test::emulate_launch(body, "nf_rparams", entries, "nf_reduce_partials",
                             static_cast<unsigned>(nout), 256, k.params);
      }
      ++ran;
      std::vector<int64_t> want(static_cast<size_t>(nout), 0);
      for (int64_t i = 0; i < shape[0]; ++i)
        for (int64_t o = 0; o < shape[1]; ++o)
          for (int64_t j = 0; j < shape[2]; ++j) {
            const int64_t x = b[i * base.strides[0] + o * base.strides[1] + (shape[2] - 1 - j)];
            want[every_axis ? 0 : o] += x * x;
          }
      EXPECT_EQ(out, want);
    }
  }
  EXPECT_EQ(ran, 4);
  EXPECT_EQ(second_pass, 2);
}
