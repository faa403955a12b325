// Advanced indexing in C++: NumPy's placement of the broadcast dims, gather and scatter through
// strided views, last-write-wins scatter, bounds errors, nonzero.
#include <gtest/gtest.h>

#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/views.h"

using namespace nf;

namespace {
Array iota(Shape shape) {
  Array a = Array::empty(shape, DType::Int64, Device::cpu());
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<int64_t>()[i] = i;
  return a;
}
Array ints(std::vector<int64_t> v) {
  Array a = Array::empty({int64_t(v.size())}, DType::Int64, Device::cpu());
  for (size_t i = 0; i < v.size(); ++i) a.data_as<int64_t>()[i] = v[i];
  return a;
}
std::vector<int64_t> values(const Array& a) {
  eval(a, FlushReason::HostRead);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.size(); ++i) out.push_back(a.data_as<int64_t>()[i]);  // C-contiguous
  return out;
}
KeyItem all() { return KeyItem::of(IndexItem::slice(false, 0, false, 0, 1)); }
}  // namespace

TEST(AdvancedIndexing, AdjacentArraysStayInPlaceSeparatedOnesGoFirst) {
  Array a = iota({2, 3, 4});
  // a[:, [0, 2], [1, 3]] -> (2, 2); a[[0, 1], :, [1, 3]] -> (2, 3); a[0, :, [1, 2]] -> (2, 3).
  EXPECT_EQ(plan_index(a, {all(), KeyItem::of(ints({0, 2})), KeyItem::of(ints({1, 3}))}).result_shape,
            (Shape{2, 2}));
  EXPECT_EQ(plan_index(a, {KeyItem::of(ints({0, 1})), all(), KeyItem::of(ints({1, 3}))}).result_shape,
            (Shape{2, 3}));
  EXPECT_EQ(plan_index(a, {KeyItem::of(IndexItem::integer(0)), all(), KeyItem::of(ints({1, 2}))}).result_shape,
            (Shape{2, 3}));
  EXPECT_EQ(plan_index(a, {all(), KeyItem::of(ints({1})), KeyItem::of(IndexItem::new_axis()),
                           KeyItem::of(ints({1}))}).result_shape,
            (Shape{1, 2, 1}));
}

TEST(AdvancedIndexing, GatherThroughReversedView) {
  Array a = iota({3, 4});
  Array r = basic_index(a, {IndexItem::slice(false, 0, false, 0, -1)});  // a[::-1]
  Array g = getitem(r, {all(), KeyItem::of(ints({3, 0, -1}))});
  EXPECT_TRUE(g.pending());
  EXPECT_EQ(values(g), (std::vector<int64_t>{11, 8, 11, 7, 4, 7, 3, 0, 3}));
}

TEST(AdvancedIndexing, ScatterLastWriteWinsAndWritesTheBase) {
  Array a = iota({6});
  Array v = basic_index(a, {IndexItem::slice(false, 0, false, 0, 2)});  // a[::2] = 0, 2, 4
  setitem(v, {KeyItem::of(ints({1, 1, 0}))}, Operand::of(ints({7, 8, 9})));
  EXPECT_EQ(values(a), (std::vector<int64_t>{9, 1, 8, 3, 4, 5}));
}

TEST(AdvancedIndexing, OutOfBoundsNamesIndexAxisAndSize) {
  Array a = iota({2, 3});
  try {
    plan_index(a, {all(), KeyItem::of(ints({0, -4}))});
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index -4 is out of bounds for axis 1 with size 3");
  }
}

TEST(AdvancedIndexing, NonzeroInCOrder) {
  Array a = iota({2, 3});
  std::vector<Array> nz = nonzero(transpose(a));  // (3, 2): [[0, 3], [1, 4], [2, 5]]
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(values(nz[0]), (std::vector<int64_t>{0, 1, 1, 2, 2}));
  EXPECT_EQ(values(nz[1]), (std::vector<int64_t>{1, 0, 1, 0, 1}));
  EXPECT_EQ(count_nonzero(a), 5);
}
