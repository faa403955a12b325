// Shapes, strides, broadcasting and the iteration setup pass.
#include <gtest/gtest.h>

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
