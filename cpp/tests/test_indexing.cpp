// Basic indexing: integers, slices (negative steps, clamping), None and Ellipsis give views.
#include <gtest/gtest.h>

#include "numfuse/core/error.h"
#include "numfuse/ops/indexing.h"

using namespace nf;

namespace {
Array grid() { return Array::empty({4, 6}, DType::Int32, Device::cpu()); }
}  // namespace

TEST(BasicIndex, IntegerAndSlice) {
  Array a = grid();
  Array v = basic_index(a, {IndexItem::integer(-1), IndexItem::slice(true, 1, true, 5, 2)});
  EXPECT_EQ(v.shape, (Shape{2}));
  EXPECT_EQ(v.strides, (Strides{2}));
  EXPECT_EQ(v.byte_offset, (3 * 6 + 1) * 4);
  EXPECT_EQ(v.storage, a.storage);  // a view
}

TEST(BasicIndex, NegativeStepAndClamping) {
  Array a = grid();
  Array v = basic_index(a, {IndexItem::slice(false, 0, false, 0, -1)});
  EXPECT_EQ(v.shape, (Shape{4, 6}));
  EXPECT_EQ(v.strides, (Strides{-6, 1}));
  EXPECT_EQ(v.byte_offset, 3 * 6 * 4);
  Array w = basic_index(a, {IndexItem::slice(true, -100, true, 100, 1)});
  EXPECT_EQ(w.shape, (Shape{4, 6}));
  Array e = basic_index(a, {IndexItem::slice(true, 3, true, 1, 1)});
  EXPECT_EQ(e.shape, (Shape{0, 6}));
}

TEST(BasicIndex, NewAxisAndEllipsis) {
  Array a = grid();
  Array v = basic_index(a, {IndexItem::ellipsis(), IndexItem::new_axis(), IndexItem::integer(2)});
  EXPECT_EQ(v.shape, (Shape{4, 1}));
  Array w = basic_index(a, {IndexItem::new_axis(), IndexItem::ellipsis()});
  EXPECT_EQ(w.shape, (Shape{1, 4, 6}));
}

TEST(BasicIndex, Errors) {
  Array a = grid();
  EXPECT_THROW(basic_index(a, {IndexItem::integer(4)}), IndexError);
  EXPECT_THROW(basic_index(a, {IndexItem::integer(0), IndexItem::integer(0), IndexItem::integer(0)}),
               IndexError);
  EXPECT_THROW(basic_index(a, {IndexItem::ellipsis(), IndexItem::ellipsis()}), IndexError);
  EXPECT_THROW(IndexItem::slice(false, 0, false, 0, 0), ValueError);
}
