// The scan and advanced-indexing CUDA kernels, run on the CPU through tests/cuda_emulator.h and
// compared with the CPU kernels (themselves checked against NumPy by the Python suite): the
// same parameter bytes and launch sequences as the GPU path, few blocks so that the grid-stride
// loops turn. Opt-in: NUMFUSE_EMULATE_CUDA=<repository root>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "cuda_emulator.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/scan_cpu.h"
#include "numfuse/backend/cuda/codegen_gather.h"
#include "numfuse/backend/cuda/codegen_scan.h"
#include "numfuse/graph/eval.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/gather_node.h"

using namespace nf;
using namespace nf::cuda;

namespace {

constexpr unsigned kGrid = 3;  // blocks per emulated launch: every grid-stride loop turns

#define NF_REQUIRE_EMULATION()                                                        \
  if (test::emulation_root().empty()) {                                               \
    GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root> to run CUDA kernels on the CPU"; \
  }

Array host(const Shape& shape, DType dt) { return Array::empty(shape, dt, Device::cpu()); }

template <class T>
T make_value(double re, double im) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return T(static_cast<decltype(T().re)>(re), static_cast<decltype(T().re)>(im));
  } else {
    return nf::convert<T>(re);
  }
}

// Random values of `dt`: small integers (so that products stay meaningful), floats in [-1, 1).
Array random_array(const Shape& shape, DType dt, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Array a = host(shape, dt);
  NF_DISPATCH(dt, "random", {
    scalar_t* p = a.data_as<scalar_t>();
    for (int64_t i = 0; i < a.size(); ++i) {
      const double x = is_integer(dt) || dt == DType::Bool ? std::floor(u(gen) * 3.0) + (is_unsigned(dt) ? 2 : 0)
                                                         : u(gen);
      p[i] = make_value<scalar_t>(x, u(gen));
    }
  });
  return a;
}

// got == want exactly (integers, bool, sequential float scans), or within rtol of the larger of
// |want| and the running scale `scale` (parallel float scans, whose association differs).
void expect_close(const Array& want, const Array& got, double rtol, const std::string& what) {
  ASSERT_EQ(want.shape, got.shape) << what;
  if (rtol == 0) {
    EXPECT_EQ(std::memcmp(want.data(), got.data(), want.nbytes()), 0) << what;
    return;
  }
  const DType wide = is_complex(want.dtype) ? DType::Complex128 : DType::Float64;
  Array w = host(want.shape, wide), g = host(got.shape, wide);
  cpu::copy_cast(want, w);
  cpu::copy_cast(got, g);
  const double* pw = w.data_as<double>();
  const double* pg = g.data_as<double>();
  const int64_t n = w.size() * (wide == DType::Complex128 ? 2 : 1);
  double scale = 0;
  for (int64_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(pw[i]));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_LE(std::abs(pw[i] - pg[i]), rtol * scale) << what << " at " << i << ": " << pw[i] << " vs " << pg[i];
  }
}

const std::vector<std::string> kScanEntries = {"nf_scan_lines", "nf_scan_totals", "nf_scan_carries", "nf_scan_tiles"};

// The CUDA scan of `in` along `axis` as ScanNode::eval_cuda runs it (optionally forced to tiles).
Array emulated_scan(ScanOp op, const Array& in, int axis, bool force_tiles) {
  ScanPlan plan = plan_scan(in, axis);
  if (force_tiles) {
    plan.sequential = false;
    plan.tiles = (plan.n + kScanTile - 1) / kScanTile;
  }
  ScanKernel k = generate_scan(op, in.dtype, plan);
  Array out = host(in.shape, in.dtype);
  std::vector<uint8_t> partial(k.partial_bytes + 16);
  set_scan_pointers(k, in.data(), out.data(), partial.data());
  for (const ScanLaunch& l : scan_launches(plan)) {
    test::emulate_launch(k.body, "nf_sparams", kScanEntries, l.entry,
                         static_cast<unsigned>(std::min<int64_t>(l.blocks, kGrid)), kScanThreads, k.params);
  }
  return out;
}

void check_scan(ScanOp op, const Array& in, int axis, bool force_tiles, double rtol) {
  Array want = host(in.shape, in.dtype);
  cpu::scan(op, axis, in, want);
  Array got = emulated_scan(op, in, axis, force_tiles);
  expect_close(want, got, rtol, std::string(dtype_name(in.dtype)) + " axis " + std::to_string(axis) +
                                    (force_tiles ? " tiles" : " lines"));
}

}  // namespace

TEST(CudaEmulation, ScanThreadPerLineEqualsTheCpuBitForBit) {
  NF_REQUIRE_EMULATION();
  for (DType dt : {DType::Bool, DType::UInt8, DType::Int32, DType::Int64, DType::Float16, DType::Float32,
                   DType::Float64, DType::Complex64}) {
    for (ScanOp op : {ScanOp::CumSum, ScanOp::CumProd}) {
      Array a = random_array({6, 9}, dt, 1);
      check_scan(op, a, 0, false, 0);
      check_scan(op, a, 1, false, 0);
      // a[::-1, ::2]: negative and doubled strides.
      Array v = a.view({6, 5}, {-9, 2}, 5 * 9 * int64_t(itemsize(dt)));
      check_scan(op, v, 0, false, 0);
      check_scan(op, v, 1, false, 0);
    }
  }
}

TEST(CudaEmulation, ScanTilesMatchTheCpu) {
  NF_REQUIRE_EMULATION();
  for (DType dt : {DType::Int32, DType::UInt64, DType::Bool, DType::Float64, DType::Complex128}) {
    const double rtol = is_inexact(dt) ? 1e-13 : 0;
    // Lines of several tiles along the last axis (three launches), and along the first axis with
    // a few lines side by side (inner > 1: the output steps by the line count).
    Array a = random_array({3, 2 * kScanTile + 37}, dt, 2);
    check_scan(ScanOp::CumSum, a, 1, false, rtol);
    Array b = random_array({kScanTile + 5, 3}, dt, 3);
    check_scan(ScanOp::CumSum, b, 0, false, rtol);
    // Forced onto tiles: one short tile per line, and a transposed (strided) input.
    Array c = random_array({5, 7}, dt, 4);
    check_scan(ScanOp::CumSum, c, 1, true, rtol);
    check_scan(ScanOp::CumProd, c, 0, true, rtol);
    Array t = c.view({7, 5}, {1, 7}, 0);
    check_scan(ScanOp::CumSum, t, 1, true, rtol);
  }
}

TEST(CudaEmulation, ScanCarriesOverManyTiles) {
  NF_REQUIRE_EMULATION();
  // More tiles than a block scans at once: the carry crosses chunks of nf_scan_carries.
  const int64_t n = int64_t(kScanThreads) * kScanTile + 3 * kScanTile + 11;
  Array a = random_array({n}, DType::Int64, 5);
  check_scan(ScanOp::CumSum, a, 0, false, 0);
}

// ---- advanced indexing ---------------------------------------------------------------------------

namespace {

Array ints(const Shape& shape, std::vector<int64_t> v) {
  Array a = host(shape, DType::Int64);
  std::memcpy(a.data(), v.data(), v.size() * 8);
  return a;
}
KeyItem all() { return KeyItem::of(IndexItem::slice(false, 0, false, 0, 1)); }

std::vector<std::string> gather_entries() { return {"nf_gather", "nf_scatter"}; }

void run_launches(const std::vector<KernelLaunch>& launches) {
  for (const KernelLaunch& l : launches) {
    std::string type = l.entry == "nf_index_offsets" ? "nf_oparams"
                       : l.entry == "nf_nonzero"     ? "nf_nzparams"
                       : l.entry.rfind("nf_scatter_", 0) == 0 ? "nf_dparams"
                                                              : "nf_gparams";
    std::vector<std::string> entries = type == "nf_gparams"   ? gather_entries()
                                       : type == "nf_dparams" ? std::vector<std::string>{"nf_scatter_claim",
                                                                                         "nf_scatter_mark"}
                                                              : std::vector<std::string>{l.entry};
    test::emulate_launch(l.body, type, entries, l.entry, static_cast<unsigned>(std::min<int64_t>(l.blocks, kGrid)),
                         256, l.params);
  }
}

void check_gather(const Array& a, const std::vector<KeyItem>& key, const std::string& what) {
  Array want = getitem(a, key);
  eval(want, FlushReason::HostRead);
  IndexPlan plan = plan_index(a, key);
  cpu::GatherGeometry g =
      gather_geometry(plan.view, plan.adv_dims, plan.adv_axes, plan.indices, plan.bshape, plan.adjacent);
  Array got = host(plan.result_shape, a.dtype);
  std::vector<int64_t> boff(numel(plan.bshape), 0);
  run_launches(gather_launches(g, plan.view.data(), got.data(), a.itemsize(), boff.data()));
  expect_close(want, got, 0, what);
}

void check_scatter(const Array& a, const std::vector<KeyItem>& key, const Array& values, const std::string& what) {
  Array want = host(a.shape, a.dtype), got = host(a.shape, a.dtype);
  cpu::copy_cast(a, want);
  cpu::copy_cast(a, got);
  setitem(want, key, Operand::of(values));
  IndexPlan plan = plan_index(got, key);
  cpu::GatherGeometry g =
      gather_geometry(plan.view, plan.adv_dims, plan.adv_axes, plan.indices, plan.bshape, plan.adjacent);
  Array vals = host(plan.result_shape, a.dtype);
  cpu::copy_cast(values, vals);
  const int64_t nb = numel(plan.bshape), slots = scatter_slots(nb);
  std::vector<int64_t> boff(nb), keep(nb), keys(slots, -1), table(slots, 0);
  run_launches(scatter_launches(g, vals.data(), plan.view.data(), a.itemsize(), boff.data(), keep.data(),
                                keys.data(), table.data()));
  expect_close(want, got, 0, what);
}

}  // namespace

TEST(CudaEmulation, GatherEqualsTheCpu) {
  NF_REQUIRE_EMULATION();
  for (DType dt : {DType::UInt8, DType::Float16, DType::Int32, DType::Float64, DType::Complex128}) {
    Array a = random_array({5, 6, 7}, dt, 6);
    Array idx = ints({2, 3}, {0, 5, -1, 3, 3, -6});
    check_gather(a, {all(), KeyItem::of(idx)}, "a[:, idx]");
    // Separated arrays: B first; a broadcast (1, 3) index against (2, 3).
    Array j = ints({1, 3}, {6, 0, -7});
    check_gather(a, {KeyItem::of(ints({2, 3}, {4, 0, 1, 2, 3, -5})), all(), KeyItem::of(j)}, "a[i, :, j]");
    // A reversed view, integer and array together.
    Array r = a.view({5, 6, 7}, {-42, 7, 1}, 4 * 42 * int64_t(itemsize(dt)));
    check_gather(r, {KeyItem::of(IndexItem::integer(2)), KeyItem::of(ints({4}, {5, 1, 1, 0})), all()}, "r[2, idx]");
  }
}

TEST(CudaEmulation, ScatterLastRepeatedIndexWins) {
  NF_REQUIRE_EMULATION();
  for (DType dt : {DType::Int8, DType::Float32, DType::Complex128}) {
    // Many repeats across blocks and threads: 1500 writes into 13 elements.
    Array a = random_array({13}, dt, 7);
    std::vector<int64_t> v(1500);
    std::mt19937 gen(8);
    for (auto& x : v) x = int64_t(gen() % 26) - 13;
    check_scatter(a, {KeyItem::of(ints({1500}, v))}, random_array({1500}, dt, 9), "a[idx] = v");
    // Two arrays with repeats and an inner dim: a[i, j, :] = v.
    Array m = random_array({4, 5, 3}, dt, 10);
    check_scatter(m, {KeyItem::of(ints({6}, {1, 1, 3, 1, -1, 3})), KeyItem::of(ints({6}, {2, 2, 4, 2, 0, 4}))},
                  random_array({6, 3}, dt, 11), "m[i, j] = v");
  }
}

TEST(CudaEmulation, NonzeroCoordinatesFromTheCount) {
  NF_REQUIRE_EMULATION();
  Array a = random_array({7, 4, 9}, DType::Int16, 12);  // values in -3..2: about a third are zero
  std::vector<Array> want = nonzero(a);
  Array mask = host(a.shape, DType::Bool);
  cpu::copy_cast(a, mask);
  Array counts = host(a.shape, DType::Int64);
  cpu::copy_cast(mask, counts);
  Array pos = host({a.size()}, DType::Int64);
  cpu::scan(ScanOp::CumSum, 0, counts.view({a.size()}, {1}, 0), pos);
  const int64_t n = pos.data_as<int64_t>()[a.size() - 1];
  std::vector<Array> got;
  std::vector<void*> ptrs;
  for (int d = 0; d < 3; ++d) {
    got.push_back(host({n}, DType::Int64));
    ptrs.push_back(got.back().data());
  }
  run_launches({nonzero_launch(pos.data(), a.size(), ptrs, a.shape)});
  for (int d = 0; d < 3; ++d) expect_close(want[d], got[d], 0, "dim " + std::to_string(d));
}
