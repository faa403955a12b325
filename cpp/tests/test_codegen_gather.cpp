// The advanced-indexing code generator (backend/cuda/codegen_gather.h): its coalesced layout,
// parameter bytes, and generated gather / scatter / nonzero kernels compiling with NVRTC (no GPU
// needed) for every item size and several ranks.
#include <gtest/gtest.h>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_gather.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/views.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

void expect_compiles(const std::string& body) { expect_nvrtc_compiles(std::string(kKernelPrelude) + body, body); }

Array index_array(Shape shape) {
  Array a = Array::empty(shape, DType::Int64, Device::cpu());
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<int64_t>()[i] = i % 3;
  return a;
}

// view[indices] over the dims adv_dims of `view` (adjacent when they are consecutive).
cpu::GatherGeometry geom(const Array& view, std::vector<int> adv_dims, std::vector<Array> idx) {
  std::vector<Shape> shapes;
  for (const Array& i : idx) shapes.push_back(i.shape);
  bool adjacent = true;
  for (size_t j = 1; j < adv_dims.size(); ++j) adjacent &= adv_dims[j] == adv_dims[j - 1] + 1;
  return gather_geometry(view, adv_dims, adv_dims, idx, broadcast_shapes(shapes), adjacent);
}

}  // namespace

TEST(CodegenGather, LayoutCoalescesEachPart) {
  // a[:, idx] on a (4, 5, 6) array with idx of shape (2, 3): outer (4,), B (6,), inner (6,).
  Array a = Array::empty({4, 5, 6}, DType::Float32, Device::cpu());
  GatherLayout L = plan_gather(geom(a, {1}, {index_array({2, 3})}));
  EXPECT_EQ(L.oshape, (Shape{4}));
  EXPECT_EQ(L.ostride, (Strides{30}));
  EXPECT_EQ(L.ishape, (Shape{6}));
  EXPECT_EQ(L.istride, (Strides{1}));
  EXPECT_EQ(L.bshape, (Shape{6}));  // the contiguous index array's two dims merge
  EXPECT_EQ(L.bstride[0], (Strides{1}));
  EXPECT_EQ(L.astride, (std::vector<int64_t>{6}));
  EXPECT_EQ(L.n(), 4 * 6 * 6);
}

TEST(CodegenGather, BroadcastIndicesKeepTheirDimsAndKeyWeights) {
  // a[i0, i1] with i0 (2, 1) and i1 (3,) on a (7, 8) array: B (2, 3), no merge (i0 broadcasts).
  Array a = Array::empty({7, 8}, DType::Int16, Device::cpu());
  GatherLayout L = plan_gather(geom(a, {0, 1}, {index_array({2, 1}), index_array({3})}));
  EXPECT_EQ(L.bshape, (Shape{2, 3}));
  EXPECT_EQ(L.bstride[0], (Strides{1, 0}));
  EXPECT_EQ(L.bstride[1], (Strides{0, 1}));
  EXPECT_EQ(L.kmul, (std::vector<int64_t>{8, 1}));  // the target's linear key over (7, 8)
  EXPECT_EQ(L.oshape, (Shape{1}));
  EXPECT_EQ(L.ishape, (Shape{1}));
  EXPECT_EQ(L.n(), 6);
}

TEST(CodegenGather, NonAdjacentArraysPutBFirst) {
  // a[i, :, j] on (3, 4, 5): the arrays are not adjacent, so outer is empty and inner is (4,).
  Array a = Array::empty({3, 4, 5}, DType::Float64, Device::cpu());
  GatherLayout L = plan_gather(geom(a, {0, 2}, {index_array({2}), index_array({2})}));
  EXPECT_EQ(L.oshape, (Shape{1}));
  EXPECT_EQ(L.ishape, (Shape{4}));
  EXPECT_EQ(L.istride, (Strides{5}));
  EXPECT_EQ(L.astride, (std::vector<int64_t>{20, 1}));
}

TEST(CodegenGather, ShapesAreParametersNotSource) {
  Array a = Array::empty({10, 20}, DType::Float32, Device::cpu());
  Array b = Array::empty({30, 7}, DType::Int32, Device::cpu());  // same itemsize, other shape
  auto k1 = generate_gather(geom(a, {0}, {index_array({5})}), 4, a.data(), nullptr);
  auto k2 = generate_gather(geom(b, {0}, {index_array({9})}), 4, b.data(), nullptr);
  EXPECT_EQ(k1.body, k2.body);
  EXPECT_NE(k1.params, k2.params);
  EXPECT_EQ(k1.params.size(), k2.params.size());
}

TEST(CodegenGather, ParameterBytesFollowTheStruct) {
  Array a = Array::empty({7, 8}, DType::Int16, Device::cpu());
  cpu::GatherGeometry g = geom(a, {0, 1}, {index_array({2, 1}), index_array({3})});
  GatherKernel k = generate_scatter(g, 2, a.data(), nullptr, nullptr);
  // 3 pointers, 5 counts, outer/inner (1 dim: shape and stride each), B (2 dims), then per index
  // array: a pointer, 2 B strides, size, stride and key weight.
  EXPECT_EQ(k.params.size(), size_t(8 * (3 + 5 + 2 + 2 + 2 + 2 * (1 + 2 + 3))));
  EXPECT_FALSE(k.direct);  // 56 targets: more than a 16-slot hash table's 32 words
  EXPECT_EQ(k.table_slots, 16);  // at least 2 * 6, a power of two
  EXPECT_EQ(k.table_bytes, 16u * 16);
  // 8 positions into 10 targets: one owner per target.
  Array v = Array::empty({10}, DType::Int16, Device::cpu());
  GatherKernel d = generate_scatter(geom(v, {0}, {index_array({8})}), 2, v.data(), nullptr, nullptr);
  EXPECT_TRUE(d.direct);
  EXPECT_EQ(d.table_slots, 10);
  EXPECT_EQ(d.table_bytes, 80u);
  EXPECT_EQ(scatter_table_slots(0), 2);
  EXPECT_EQ(scatter_table_slots(1), 2);
  EXPECT_EQ(scatter_table_slots(5), 16);
}

TEST(CodegenGather, GatherCompilesForEveryItemSizeAndRank) {
  Array a = Array::empty({4, 5, 6, 7}, DType::Float32, Device::cpu());
  Array t = transpose(a);  // strided outer / inner parts
  for (size_t size : {1, 2, 4, 8, 16}) {
    expect_compiles(generate_gather(geom(a, {1}, {index_array({3})}), size, nullptr, nullptr).body);
  }
  expect_compiles(generate_gather(geom(t, {0, 2}, {index_array({2, 1}), index_array({3})}), 8, nullptr, nullptr).body);
  expect_compiles(generate_gather(geom(t, {1, 2}, {index_array({2, 1, 4}), index_array({3, 1})}), 16, nullptr, nullptr).body);
  Array s = Array::empty({5}, DType::Bool, Device::cpu());
  expect_compiles(generate_gather(geom(s, {0}, {index_array({})}), 1, nullptr, nullptr).body);
}

TEST(CodegenGather, MisalignedElementsAreCopiedInSmallerWords) {
  Array a = Array::empty({4, 6}, DType::Complex64, Device::cpu());
  cpu::GatherGeometry g = geom(a, {0}, {index_array({3})});
  auto aligned = generate_gather(g, 8, reinterpret_cast<void*>(64), reinterpret_cast<void*>(128));
  EXPECT_NE(aligned.body.find("typedef unsigned long long nf_elem"), std::string::npos);
  auto odd = generate_gather(g, 8, reinterpret_cast<void*>(68), reinterpret_cast<void*>(128));
  EXPECT_NE(odd.body.find("struct nf_elem { unsigned int w[2]; }"), std::string::npos);
  expect_compiles(odd.body);
  auto wide = generate_scatter(g, 16, reinterpret_cast<void*>(64), reinterpret_cast<void*>(128), nullptr);
  EXPECT_NE(wide.body.find("struct nf_elem { unsigned long long w[2]; }"), std::string::npos);
  expect_compiles(wide.body);
}

TEST(CodegenGather, LargeResultsUse64BitPositions) {
  Array a = Array::empty({1}, DType::Int8, Device::cpu());
  Array big = a.view({int64_t(1) << 32}, {0}, 0);  // positions past 2**31 (nothing is read)
  GatherKernel k = generate_gather(geom(big, {0}, {index_array({2})}), 1, nullptr, nullptr);
  EXPECT_NE(k.body.find("typedef unsigned int nf_ix"), std::string::npos);  // only 2 outputs
  cpu::GatherGeometry g = geom(Array::empty({3, 1}, DType::Int8, Device::cpu()).view({3, int64_t(1) << 31}, {1, 0}, 0),
                               {0}, {index_array({2})});
  GatherKernel wide = generate_gather(g, 1, nullptr, nullptr);
  EXPECT_NE(wide.body.find("typedef long long nf_ix"), std::string::npos);
  expect_compiles(wide.body);
}

TEST(CodegenGather, ScatterCompiles) {
  Array a = Array::empty({6, 5, 4}, DType::Complex128, Device::cpu());
  expect_compiles(generate_scatter(geom(a, {0}, {index_array({8})}), 16, nullptr, nullptr, nullptr).body);
  expect_compiles(generate_scatter(geom(a, {0, 2}, {index_array({2, 3}), index_array({3})}), 8, nullptr, nullptr, nullptr).body);
  expect_compiles(generate_scatter(geom(a, {1, 2}, {index_array({4}), index_array({4})}), 1, nullptr, nullptr, nullptr).body);
}

TEST(CodegenGather, NonzeroFillCompilesForSeveralRanks) {
  int64_t out[3] = {};
  for (Shape s : {Shape{10}, Shape{3, 4}, Shape{2, 3, 4}}) {
    std::vector<int64_t*> outs(s.size(), out);
    GatherKernel k = generate_nonzero_fill(s, nullptr, outs);
    EXPECT_EQ(k.n, numel(s));
    EXPECT_EQ(k.params.size(), 8 * (2 + 2 * s.size()));
    expect_compiles(k.body);
  }
}

// The fixed scaffolding comes from the embedded .cuh files, and the struct gather_common.cuh
// declares from the generated ranks is exactly as large as the host's parameter bytes.
TEST(KernelTemplates, GatherScatterAndNonzeroAppendTheirTemplatesAndCompile) {
  auto has = [](const std::string& body, const char* templ) {
    return body.find(templ) != std::string::npos;
  };
  auto size_check = [](const char* type, size_t size) {
    return "static_assert(sizeof(" + std::string(type) + ") == " + std::to_string(size) +
           ", \"layout\");\n";
  };
  Array t = Array::empty({4, 5, 6}, DType::Float64, Device::cpu());
  for (const cpu::GatherGeometry& g : {geom(t, {1}, {index_array({3})}),
                                       geom(t, {0, 2}, {index_array({2, 1}), index_array({3})})}) {
    GatherKernel gk = generate_gather(g, 8, nullptr, nullptr);
    EXPECT_TRUE(has(gk.body, kernel_templates::gather_common) &&
                has(gk.body, kernel_templates::gather));
    EXPECT_FALSE(has(gk.body, kernel_templates::scatter));
    expect_compiles(gk.body + size_check("nf_gparams", gk.params.size()));
    GatherKernel sk = generate_scatter(g, 8, nullptr, nullptr, nullptr);
    EXPECT_TRUE(has(sk.body, kernel_templates::gather_common) &&
                has(sk.body, kernel_templates::scatter));
    EXPECT_FALSE(has(sk.body, kernel_templates::gather));
    expect_compiles(sk.body + size_check("nf_gparams", sk.params.size()));
  }
  int64_t out[8];
  GatherKernel nz = generate_nonzero_fill({2, 3, 4}, nullptr, {out, out, out});
  EXPECT_TRUE(has(nz.body, kernel_templates::nonzero_fill));
  expect_compiles(nz.body + size_check("nf_nzparams", nz.params.size()));
}
