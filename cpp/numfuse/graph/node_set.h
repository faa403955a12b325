// Flat sets and maps keyed by pointers, for the planner and the program builder: they test
// membership once per input of every node, and std::unordered_set / unordered_map allocated a heap
// node per insert, which showed in the host time of every small op. Open addressing with linear
// probing in one array; no erase.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nf {

namespace detail {
inline size_t ptr_hash(const void* p) {
  uint64_t x = reinterpret_cast<uintptr_t>(p) >> 4;
  x *= 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(x ^ (x >> 32));
}
}  // namespace detail

// Pointer -> V. Absent keys read as nullptr from find(); operator[] inserts V{}.
template <class V>
class PtrMap {
 public:
  V* find(const void* k) {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = detail::ptr_hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].first == k) return &slots_[i].second;
      if (!slots_[i].first) return nullptr;
    }
  }
  const V* find(const void* k) const { return const_cast<PtrMap*>(this)->find(k); }
  size_t count(const void* k) const { return find(k) ? 1 : 0; }
  V& operator[](const void* k) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = detail::ptr_hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].first == k) return slots_[i].second;
      if (!slots_[i].first) {
        slots_[i].first = k;
        ++size_;
        return slots_[i].second;
      }
    }
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  void grow() {
    std::vector<std::pair<const void*, V>> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 16 : old.size() * 2);
    size_ = 0;
    for (auto& kv : old) {
      if (kv.first) (*this)[kv.first] = std::move(kv.second);
    }
  }
  std::vector<std::pair<const void*, V>> slots_;
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
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  typename std::vector<P>::const_iterator begin() const { return items_.begin(); }
  typename std::vector<P>::const_iterator end() const { return items_.end(); }

 private:
  PtrMap<char> map_;
  std::vector<P> items_;
};

}  // namespace nf
