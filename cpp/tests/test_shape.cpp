// Shapes, strides, broadcasting and the iteration setup pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"
#include "numfuse/core/shape.h"

using namespace nf;

TEST(Shape, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({}), (Strides{}));
  EXPECT_TRUE(is_c_contiguous({2, 3}, {3, 1}));
  EXPECT_FALSE(is_c_contiguous({2, 3}, {1, 2}));
  EXPECT_TRUE(is_f_contiguous({2, 3}, {1, 2}));
  EXPECT_TRUE(is_c_contiguous({1, 3}, {99, 1}));  // unit dims carry no stride information
}

TEST(Shape, Broadcast) {
  EXPECT_EQ(broadcast_shapes(Shape{3, 1}, Shape{4}), (Shape{3, 4}));
  EXPECT_EQ(broadcast_shapes(Shape{}, Shape{2, 2}), (Shape{2, 2}));
  EXPECT_EQ(broadcast_shapes(Shape{0, 1}, Shape{1, 5}), (Shape{0, 5}));
  try {
    broadcast_shapes(Shape{3, 4}, Shape{5});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "operands could not be broadcast together with shapes (3,4) (5,) ");
  }
  EXPECT_EQ(broadcast_strides({3, 1}, {1, 1}, {2, 3, 4}), (Strides{0, 1, 0}));
}

TEST(Shape, Axes) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  EXPECT_THROW(normalize_axis(3, 3), AxisError);
  EXPECT_THROW(normalize_axes({0, -2}, 2), ValueError);
}

TEST(Shape, ReshapeStrides) {
  Strides out;
  EXPECT_TRUE(reshape_strides({2, 3}, {3, 1}, {3, 2}, &out));
  EXPECT_EQ(out, (Strides{2, 1}));
  EXPECT_TRUE(reshape_strides({2, 3}, {3, 1}, {6}, &out));
  EXPECT_FALSE(reshape_strides({2, 3}, {1, 2}, {6}, &out));   // Fortran order needs a copy
  EXPECT_TRUE(reshape_strides({4, 6}, {12, 1}, {4, 2, 3}, &out));  // rows of a wider array
  EXPECT_EQ(out, (Strides{12, 3, 1}));
  EXPECT_FALSE(reshape_strides({4, 6}, {12, 1}, {24}, &out));
  EXPECT_TRUE(reshape_strides({6}, {-1}, {2, 3}, &out));
  EXPECT_EQ(out, (Strides{-3, -1}));
  EXPECT_EQ(infer_reshape({-1, 3}, 12), (Shape{4, 3}));
  EXPECT_THROW(infer_reshape({4}, 6), ValueError);
}

TEST(IterSpace, CoalescesContiguous) {
  IterSpace sp = make_iter_space({2, 3, 4}, {{12, 4, 1}, {12, 4, 1}});
  EXPECT_EQ(sp.shape, (Shape{24}));
  EXPECT_EQ(sp.strides[1], (Strides{1}));
}

TEST(IterSpace, ReordersTransposedAndKeepsBroadcast) {
  // Output C-contiguous (3,4); input is a transpose (strides 1,3) and a row broadcast (0,1).
  IterSpace sp = make_iter_space({3, 4}, {{4, 1}, {1, 3}, {0, 1}});
  EXPECT_EQ(sp.shape, (Shape{3, 4}));
  EXPECT_EQ(sp.strides[2], (Strides{0, 1}));
  // Reductions key on the input: a Fortran-ordered input is walked in memory order.
  IterSpace r = make_iter_space({3, 4}, {{0, 1}, {1, 3}}, 1);
  EXPECT_EQ(r.shape, (Shape{4, 3}));
  EXPECT_EQ(r.strides[1], (Strides{3, 1}));
}

TEST(IterSpace, WalksRuns) {
  IterSpace sp = make_iter_space({2, 3}, {{3, 1}, {1, 2}});
  std::vector<int64_t> seen;
  for_each_run(sp, 1, 6, 2, [&](const int64_t* off, int64_t n) {
    for (int64_t i = 0; i < n; ++i) seen.push_back(off[1] + i * sp.strides[1].back());
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{2, 4, 1, 3, 5}));
}

// checked_nbytes against 128-bit arithmetic on seeded random shapes near the int64 limit: it
// throws exactly when the non-zero dims times the itemsize pass INT64_MAX (NumPy's rule), and
// otherwise returns that product (0 for an empty shape).
TEST(Shape, CheckedNbytesMatchesWideArithmetic) {
  std::mt19937_64 rng(20261123);
  int thrown = 0, returned = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    const int nd = static_cast<int>(rng() % 5);
    nf::Shape shape;
    for (int d = 0; d < nd; ++d) {
      const int bits = static_cast<int>(rng() % 63);
      int64_t dim = bits ? static_cast<int64_t>(rng() >> (64 - bits)) : 0;
      if (rng() % 8 == 0) dim = 0;
      shape.push_back(dim);
    }
    const size_t itemsize = size_t(1) << (rng() % 5);
    unsigned __int128 wide = itemsize;
    bool empty = false, overflow = false;
    for (int64_t s : shape) {
      if (s == 0) {
        empty = true;
        continue;
      }
      wide *= static_cast<uint64_t>(s);
      if (wide > static_cast<unsigned __int128>(INT64_MAX)) overflow = true;
    }
    if (overflow) {
      EXPECT_THROW(nf::checked_nbytes(shape, itemsize), nf::ValueError) << nf::shape_str(shape);
      ++thrown;
    } else {
      EXPECT_EQ(nf::checked_nbytes(shape, itemsize), empty ? 0 : static_cast<int64_t>(wide))
          << nf::shape_str(shape);
      ++returned;
    }
  }
  EXPECT_GT(thrown, 1000);
  EXPECT_GT(returned, 1000);
  EXPECT_THROW(nf::checked_nbytes({3, -1}, 8), nf::ValueError);
}
