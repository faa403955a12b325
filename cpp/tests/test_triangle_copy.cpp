// The triangle copy around cuSOLVER's potrf (backend/cuda/triangle_copy_cuda.h): compiled by
// NVRTC for every element size, and run on the CPU through tests/cuda_emulator.h (opt-in:
// NUMFUSE_EMULATE_CUDA=<repository root>) on views of every kind a cholesky input can be (C
// order, transposed, negative strides, stacks, broadcast stacks), both triangles, with and
// without the transposition, against the rule computed here element by element.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/triangle_copy_cuda.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

// Element (b, i, j) of x (b counts the batch axes in C order), as its bytes.
const char* element(const Array& x, int64_t b, int64_t i, int64_t j) {
  const int nd = x.ndim();
  int64_t off = i * x.strides[nd - 2] + j * x.strides[nd - 1];
  for (int d = nd - 3; d >= 0; --d) {
    off += (b % x.shape[d]) * x.strides[d];
    b /= x.shape[d];
  }
  return x.data() + off * static_cast<int64_t>(x.itemsize());
}

// Every element a distinct, nonzero bit pattern.
void fill_distinct(const Array& base) {
  unsigned char* p = reinterpret_cast<unsigned char*>(base.data());
  for (int64_t k = 0; k < base.nbytes(); ++k) p[k] = static_cast<unsigned char>(k * 7 + 1);
  const size_t size = base.itemsize();
  for (int64_t e = 0; e < base.size(); ++e) {
    const uint32_t tag = static_cast<uint32_t>(e + 1);
    std::memcpy(p + e * size, &tag, sizeof tag);
  }
}

// Runs the kernel on src into a fresh C-order dst (filled with garbage first) and checks every
// element of dst against the rule; `blocks` 0 = the launch's own grid.
void check(const Array& src, bool transpose, bool keep_upper, unsigned blocks = 0) {
  TriangleCopyParams p{};
  Array s = src;
  if (!triangle_copy_params(src, transpose, keep_upper, &p)) {
    // copy_triangle makes such a stack C-order first: here likewise, on the host.
    s = Array::empty(src.shape, src.dtype, Device::cpu());
    const int64_t n = src.shape.back(), batch = src.size() / (n * n);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          std::memcpy(s.data() + ((b * n + i) * n + j) * s.itemsize(), element(src, b, i, j),
                      s.itemsize());
    ASSERT_TRUE(triangle_copy_params(s, transpose, keep_upper, &p));
  }
  Array dst = Array::empty(src.shape, src.dtype, Device::cpu());
  std::memset(dst.data(), 0xAB, static_cast<size_t>(dst.nbytes()));
  p.dst = dst.data();
  std::vector<uint8_t> bytes(sizeof p);
  std::memcpy(bytes.data(), &p, sizeof p);
  test::emulate_launch(triangle_copy_body(src.itemsize()), "nf_tc_params", {"nf_triangle_copy"},
                       "nf_triangle_copy", blocks ? blocks : triangle_copy_blocks(p),
                       kTriangleCopyThreads, bytes);
  const int64_t n = src.shape.back(), batch = src.size() / (n * n);
  const std::vector<char> zero(src.itemsize(), 0);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        const bool kept = keep_upper ? c >= r : r >= c;
        const char* want = !kept       ? zero.data()
                           : transpose ? element(src, b, c, r)
                                       : element(src, b, r, c);
        const char* got = dst.data() + ((b * n + r) * n + c) * dst.itemsize();
        ASSERT_EQ(std::memcmp(got, want, src.itemsize()), 0)
            << "n " << n << " batch " << batch << " (" << b << ", " << r << ", " << c
            << ") transpose " << transpose << " keep_upper " << keep_upper << " itemsize "
            << src.itemsize();
      }
    }
  }
}

void check_all(const Array& src) {
  for (bool transpose : {false, true})
    for (bool keep_upper : {false, true}) check(src, transpose, keep_upper);
}

Array cpu_array(Shape s, DType dt) {
  Array a = Array::empty(s, dt, Device::cpu());
  fill_distinct(a);
  return a;
}

}  // namespace

TEST(TriangleCopy, CompilesForEveryElementSize) {
  for (size_t size : {4, 8, 16}) {
    expect_nvrtc_compiles(std::string(kKernelPrelude) + triangle_copy_body(size),
                          "triangle_copy " + std::to_string(size));
  }
}

TEST(TriangleCopy, ParamsCollapseOnlyUniformBatchAxes) {
  Array a = Array::empty({4, 3, 5, 5}, DType::Float64, Device::cpu());
  TriangleCopyParams p{};
  ASSERT_TRUE(triangle_copy_params(a, false, false, &p));
  EXPECT_EQ(p.batch, 12);
  EXPECT_EQ(p.s_batch, 25);
  EXPECT_EQ(p.s_p, 1);  // dst(r, c) = S(c, r) = a(r, c): S's first index walks a's columns
  EXPECT_EQ(p.s_q, 5);
  ASSERT_TRUE(triangle_copy_params(a, true, true, &p));
  EXPECT_EQ(p.s_p, 5);
  EXPECT_EQ(p.s_q, 1);
  EXPECT_EQ(p.keep_upper, 1);
  // Every other matrix of the second axis: the batch axes are no longer one stride apart.
  const Array every_other = a.view({4, 2, 5, 5}, {75, 50, 5, 1}, 0);
  EXPECT_FALSE(triangle_copy_params(every_other, false, false, &p));
  // Axes of length 1 do not count, broadcast (stride 0) stacks are one stride apart.
  EXPECT_TRUE(triangle_copy_params(a.view({4, 1, 5, 5}, {75, 999, 5, 1}, 0), false, false, &p));
  EXPECT_EQ(p.s_batch, 75);
  EXPECT_TRUE(triangle_copy_params(a.view({3, 5, 5}, {0, 5, 1}, 0), false, false, &p));
  EXPECT_EQ(p.s_batch, 0);
}

#define NF_NEEDS_EMULATION() \
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>"

TEST(TriangleCopy, EverySizeAndTriangle) {
  NF_NEEDS_EMULATION();
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex128}) {
    for (int64_t n : {1, 2, 5, 31, 32, 33, 70}) check_all(cpu_array({n, n}, dt));
  }
}

TEST(TriangleCopy, Views) {
  NF_NEEDS_EMULATION();
  for (DType dt : {DType::Float32, DType::Complex64, DType::Complex128}) {
    const int64_t n = 37;
    const Array base = cpu_array({n, n}, dt);
    check_all(base.view({n, n}, {1, n}, 0));  // transposed (F order)
    const int64_t last_row = (n - 1) * n * static_cast<int64_t>(base.itemsize());
    check_all(base.view({n, n}, {-n, 1}, last_row));  // rows reversed
    check_all(base.view({n, n}, {-1, -n}, base.nbytes() - static_cast<int64_t>(base.itemsize())));
    const Array wide = cpu_array({n, 2 * n}, dt);
    check_all(wide.view({n, n}, {2 * n, 2}, 0));  // every other column
  }
}

TEST(TriangleCopy, Stacks) {
  NF_NEEDS_EMULATION();
  const Array stack = cpu_array({2, 3, 9, 9}, DType::Float64);
  check_all(stack);
  check_all(stack.view({2, 3, 9, 9}, {243, 81, 1, 9}, 0));   // each matrix transposed
  check_all(stack.view({2, 2, 9, 9}, {243, 162, 9, 1}, 0));  // batch axes not one stride apart
  check_all(stack.view({4, 9, 9}, {0, 9, 1}, 0));            // broadcast
  check_all(cpu_array({5, 40, 40}, DType::Complex128));
  // Fewer blocks than tiles: each block walks several tiles of several matrices.
  check(cpu_array({3, 65, 65}, DType::Float32), true, false, 4);
  check(cpu_array({3, 65, 65}, DType::Float32), false, true, 7);
}
