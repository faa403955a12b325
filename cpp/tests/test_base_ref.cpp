// BaseRef/OwnerLink (core/base_ref.h): the owner object is referenced from the first view to the
// last, once per such span, whichever of the owner's Array and its views goes last; copies of an
// Array do not carry the owner's link.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/core/base_ref.h"

using namespace nf;

namespace {
// The front end's object as the tests see it: its reference count.
std::atomic<int> g_refs{0};
int g_object = 0;
void release(void* object) {
  EXPECT_EQ(object, &g_object);
  g_refs.fetch_sub(1);
}
BaseRef view_of(OwnerLink& owner) {
  bool first = false;
  BaseRef r = BaseRef::acquire(owner.get_or_make(&g_object, &release), &first);
  if (first) g_refs.fetch_add(1);
  return r;
}
}  // namespace

TEST(BaseRef, ReferencedFromTheFirstViewToTheLast) {
  g_refs = 0;
  OwnerLink owner;
  for (int round = 0; round < 3; ++round) {
    std::vector<BaseRef> views;
    for (int i = 0; i < 5; ++i) views.push_back(view_of(owner));
    views.push_back(views[2]);  // a copy: a view of a view
    EXPECT_EQ(g_refs, 1);
    EXPECT_EQ(views.back().get(), &g_object);
    std::shuffle(views.begin(), views.end(), std::mt19937(round));
    while (views.size() > 1) {
      views.pop_back();
      EXPECT_EQ(g_refs, 1);
    }
    views.pop_back();
    EXPECT_EQ(g_refs, 0);
  }
}

// A view object's dealloc drops its reference holding the lock: the one view of a live owner with
// a plain store, others as drop() does; the owner is referenced from the first view to the last
// in every order, and a view made after the drops takes the first reference again.
TEST(BaseRef, DropHoldingTheLockReleasesOnceAtTheLastView) {
  g_refs = 0;
  OwnerLink owner;
  for (int round = 0; round < 4; ++round) {
    std::vector<BaseRef> views;
    const int n = 1 + round;
    for (int i = 0; i < n; ++i) views.push_back(view_of(owner));
    if (round == 3) views.push_back(views[0]);  // a copy: a view of a view
    std::shuffle(views.begin(), views.end(), std::mt19937(round));
    EXPECT_EQ(g_refs, 1);
    while (!views.empty()) {
      views.back().drop_holding_lock(&release);
      EXPECT_FALSE(views.back());
      views.pop_back();
      EXPECT_EQ(g_refs, views.empty() ? 0 : 1);
    }
  }
  BaseRef again = view_of(owner);
  EXPECT_EQ(g_refs, 1);
  again.drop_holding_lock(&release);
  EXPECT_EQ(g_refs, 0);
}

TEST(BaseRef, DropHoldingTheLockAfterTheOwnersArray) {
  g_refs = 0;
  BaseRef view;
  {
    OwnerLink owner;
    view = view_of(owner);
  }  // holders 2: the view frees the link as drop() would
  EXPECT_EQ(g_refs, 1);
  view.drop_holding_lock(&release);
  EXPECT_EQ(g_refs, 0);
}

TEST(BaseRef, ViewsOutliveTheOwnersArray) {
  g_refs = 0;
  std::vector<BaseRef> views;
  {
    OwnerLink owner;
    views.push_back(view_of(owner));
    views.push_back(views.back());
  }  // the owner's Array goes first: the last view frees the link
  EXPECT_EQ(g_refs, 1);
  views.pop_back();
  EXPECT_EQ(g_refs, 1);
  views.pop_back();
  EXPECT_EQ(g_refs, 0);
}

TEST(BaseRef, CopiesOfAnArrayDoNotCarryTheOwnersLink) {
  g_refs = 0;
  Array owner = Array::empty({4}, DType::Float64, Device::cpu());
  Array v = owner.view({2}, {1}, 8);
  v.base = view_of(owner.owner_link);
  Array copy = owner;  // another Array, not the object's: it makes its own link
  copy = v;            // assignment keeps the target's own link (none here)
  Array w = copy.view({1}, {1}, 8);
  EXPECT_EQ(w.base.get(), &g_object);
  EXPECT_EQ(g_refs, 1);
  v = Array();
  copy = Array();
  EXPECT_EQ(g_refs, 1);
  w = Array();
  EXPECT_EQ(g_refs, 0);
  EXPECT_FALSE(owner.base);
}

TEST(BaseRef, CopiesDroppedOnManyThreads) {
  // Views made under the front end's lock (this thread) while other threads drop copies: the
  // reference comes and goes in balanced pairs and ends released.
  g_refs = 0;
  OwnerLink owner;
  for (int round = 0; round < 200; ++round) {
    BaseRef first = view_of(owner);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([copy = first]() mutable {
        std::vector<BaseRef> more(50, copy);
        copy = BaseRef();
      });
    }
    first = BaseRef();
    BaseRef again = view_of(owner);  // may come before or after the threads' last drop
    for (auto& t : threads) t.join();
    EXPECT_EQ(g_refs, 1);
    again = BaseRef();
    EXPECT_EQ(g_refs, 0);
  }
}
