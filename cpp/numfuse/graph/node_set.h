// Flat sets and maps keyed by pointers, for the planner and the program builder: they test
// membership once per input of every node, and std::unordered_set / unordered_map allocated a heap
// node per insert, which showed in the host time of every small op. Open addressing with linear
// probing; the first 8 slots live inline (a small graph allocates nothing); no erase.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "numfuse/core/array.h"
#include "numfuse/core/small_vector.h"

namespace nf {

namespace detail {
inline size_t ptr_hash(const void* p) {
  uint64_t x = reinterpret_cast<uintptr_t>(p) >> 4;
  x *= 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(x ^ (x >> 32));
}
}  // namespace detail

// Pointer -> V (V default-constructible and movable). find() gives nullptr for absent keys;
// operator[] inserts V{}.
template <class V>
class PtrMap {
 public:
  PtrMap() = default;
  PtrMap(const PtrMap& o) { *this = o; }
  PtrMap& operator=(const PtrMap& o) {
    if (this == &o) return *this;
    heap_.reset();
    slots_ = inline_;
    cap_ = kInline;
    size_ = 0;
    for (size_t i = 0; i < kInline; ++i) inline_[i] = Slot{};
    for (size_t i = 0; i < o.cap_; ++i) {
      if (o.slots_[i].key) (*this)[o.slots_[i].key] = o.slots_[i].value;
    }
    return *this;
  }
  PtrMap(PtrMap&& o) noexcept { *this = std::move(o); }
  PtrMap& operator=(PtrMap&& o) noexcept {
    if (this == &o) return *this;
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      slots_ = heap_.get();
    } else {
      heap_.reset();
      for (size_t i = 0; i < kInline; ++i) inline_[i] = std::move(o.inline_[i]);
      slots_ = inline_;
    }
    cap_ = o.cap_;
    size_ = o.size_;
    o.slots_ = o.inline_;
    o.cap_ = kInline;
    o.size_ = 0;
    for (size_t i = 0; i < kInline; ++i) o.inline_[i] = Slot{};
    return *this;
  }

  V* find(const void* k) {
    const size_t mask = cap_ - 1;
    for (size_t i = detail::ptr_hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == k) return &slots_[i].value;
      if (!slots_[i].key) return nullptr;
    }
  }
  const V* find(const void* k) const { return const_cast<PtrMap*>(this)->find(k); }
  size_t count(const void* k) const { return find(k) ? 1 : 0; }
  V& operator[](const void* k) {
    if ((size_ + 1) * 2 > cap_) grow();
    const size_t mask = cap_ - 1;
    for (size_t i = detail::ptr_hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == k) return slots_[i].value;
      if (!slots_[i].key) {
        slots_[i].key = k;
        ++size_;
        return slots_[i].value;
      }
    }
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Room for n keys without growing (one allocation instead of a rehash per doubling).
  void reserve(size_t n) {
    size_t cap = cap_;
    while (n * 2 > cap) cap *= 2;
    if (cap != cap_) grow_to(cap);
  }

 private:
  struct Slot {
    const void* key = nullptr;
    V value{};
  };
  static constexpr size_t kInline = 8;

  void grow() { grow_to(cap_ * 2); }
  void grow_to(size_t new_cap) {
    const size_t old_cap = cap_;
    Slot* old = slots_;
    std::unique_ptr<Slot[]> keep = std::move(heap_);  // the old heap slots, if any
    Slot saved[kInline];
    if (!keep) {  // the inline slots are about to be left: move their contents out first
      for (size_t i = 0; i < kInline; ++i) saved[i] = std::move(inline_[i]);
      old = saved;
    }
    cap_ = new_cap;
    heap_.reset(new Slot[cap_]);
    slots_ = heap_.get();
    size_ = 0;
    for (size_t i = 0; i < old_cap; ++i) {
      if (old[i].key) (*this)[old[i].key] = std::move(old[i].value);
    }
  }

  Slot inline_[kInline];
  std::unique_ptr<Slot[]> heap_;
  Slot* slots_ = inline_;
  size_t cap_ = kInline;
  size_t size_ = 0;
};

// A set of pointers of type P that also remembers the insertion order (begin()/end()).
template <class P>
class PtrSet {
 public:
  bool insert(P p) {
    char& seen = map_[p];
    if (seen) return false;
    seen = 1;
    items_.push_back(p);
    return true;
  }
  size_t count(const void* p) const { return map_.count(p); }
  void reserve(size_t n) {
    map_.reserve(n);
    items_.reserve(n);
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const P* begin() const { return items_.begin(); }
  const P* end() const { return items_.end(); }

 private:
  PtrMap<char> map_;
  SmallVector<P, 8> items_;
};

// The distinct views (storage, offset, dtype, shape, strides) among arrays, numbered in the order
// added: a fused program reads each once (one leaf), so the planner counts them once too. The
// views of one storage are chained, so a lookup compares only that storage's views (a stencil's
// five slices of one array). Holds pointers: the arrays must outlive the set.
class ViewSet {
 public:
  static bool same_view(const Array& a, const Array& b) {
    return a.storage == b.storage && a.byte_offset == b.byte_offset && a.dtype == b.dtype &&
           a.shape == b.shape && a.strides == b.strides;
  }
  // The number of `a`, or -1 when absent.
  int find(const Array& a) const {
    const int* last = last_of_.find(a.storage.get());
    for (int k = last ? *last - 1 : -1; k >= 0; k = prev_[k] - 1) {
      if (same_view(*views_[k], a)) return k;
    }
    return -1;
  }
  // The number of `a`, added if absent (`added` then set).
  int insert(const Array& a, bool* added = nullptr) {
    int& last = last_of_[a.storage.get()];
    for (int k = last - 1; k >= 0; k = prev_[k] - 1) {
      if (same_view(*views_[k], a)) return k;
    }
    if (added) *added = true;
    const int k = static_cast<int>(views_.size());
    views_.push_back(&a);
    prev_.push_back(last);
    last = k + 1;
    return k;
  }
  size_t size() const { return views_.size(); }

 private:
  PtrMap<int> last_of_;  // storage -> 1 + number of its latest view (0: none)
  SmallVector<int, 16> prev_;  // per view: 1 + number of the storage's previous view (0: none)
  SmallVector<const Array*, 16> views_;
};

}  // namespace nf
