// ndarray.base as the core holds it: a counted handle on the front end's object that owns a
// view's memory, opaque to the core. A shared_ptr<void> took a control block per view of an
// owning array (a block-pool allocation and free for every a[i] of a loop, ~12% of its profile);
// here each owner object has one BaseLink, made at its first view and kept by its own Array
// (OwnerLink), which all its views share: making a view of it is one atomic increment.
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace nf {

// One owner object's link. `holders` counts 2 for each view (BaseRef) and 1 for the owner's own
// Array while it lives, so that its two low states say who went last: the views reference the
// object from the first view (holders 1 -> 3, the front end's acquire) to the last (3 -> 1);
// the link is freed by whichever of the owner's Array and the last view goes last.
struct BaseLink {
  std::atomic<int64_t> holders{1};
  void* object = nullptr;
  // Drops the one reference to `object` that the views held: any thread, perhaps one that may
  // not call into the front end now (view_base.cpp defers it then).
  void (*release)(void* object) = nullptr;
};

// A view's reference to its owner object (empty for an array that owns its memory). Copies are
// made from a holder, so they never take the first reference: only acquire() can.
class BaseRef {
 public:
  BaseRef() = default;
  BaseRef(const BaseRef& o) : link_(o.link_) {
    if (link_) link_->holders.fetch_add(2, std::memory_order_relaxed);
  }
  BaseRef(BaseRef&& o) noexcept : link_(std::exchange(o.link_, nullptr)) {}
  BaseRef& operator=(BaseRef o) noexcept {
    std::swap(link_, o.link_);
    return *this;
  }
  ~BaseRef() { drop(); }

  // A new reference through the live owner's link. Returns with *first set when no view held
  // the link before: the caller then references the object (under the front end's lock).
  static BaseRef acquire(BaseLink* link, bool* first) {
    // 1: no view exists, and only views change the count (the owner's Array goes with its
    // object, which a view keeps alive), nor make views: only the front end's lock holder, who
    // calls this, does. So the count cannot change under us and a plain store does, where the
    // atomic add cost ~5 ns of a[i] in a loop (its one view made and dropped each time).
    if (link->holders.load(std::memory_order_relaxed) == 1) {
      link->holders.store(3, std::memory_order_relaxed);
      *first = true;
    } else {
      *first = link->holders.fetch_add(2, std::memory_order_relaxed) == 1;
    }
    BaseRef r;
    r.link_ = link;
    return r;
  }

  // drop() by the front end's lock holder (a view object's dealloc) with `release_now`, which
  // releases the reference in place. The one view of a live owner (holders 3: its Array and this)
  // goes back to 1 with a plain store: nobody else can change the count then (only views copy a
  // BaseRef, only the lock holder makes the first view, and the owner's Array goes with its object,
  // which this view keeps alive); `a[:, 3]` in a loop makes and drops one such view each time,
  // and the atomic and the GIL check of release() were a tenth of it.
  void drop_holding_lock(void (*release_now)(void* object)) {
    if (!link_) return;
    BaseLink* link = link_;
    if (link->holders.load(std::memory_order_acquire) != 3) {
      drop();
      return;
    }
    link_ = nullptr;
    link->holders.store(1, std::memory_order_relaxed);
    release_now(link->object);  // may free the owner, whose Array then frees the link
  }

  void* get() const { return link_ ? link_->object : nullptr; }
  explicit operator bool() const { return link_ != nullptr; }

 private:
  void drop() {
    if (!link_) return;
    // Read before the decrement: once it is done, the owner's Array may free the link.
    BaseLink* link = link_;
    void* object = link->object;
    void (*release)(void*) = link->release;
    link_ = nullptr;
    const int64_t before = link->holders.fetch_sub(2, std::memory_order_acq_rel);
    if (before == 3) {
      release(object);  // the last view; the owner's Array still holds the link
    } else if (before == 2) {
      release(object);  // the last view, after the owner's Array: the link is ours to free
      delete link;
    }
  }

  BaseLink* link_ = nullptr;
};

// The link of an Array held by a front-end object, made at its first view. It belongs to that
// object: copies of the Array do not carry it, and assigning another Array into the object
// (in-place contents replacement) keeps it, since the object is still the same owner.
class OwnerLink {
 public:
  OwnerLink() = default;
  OwnerLink(const OwnerLink&) {}
  OwnerLink(OwnerLink&&) noexcept {}
  OwnerLink& operator=(const OwnerLink&) { return *this; }
  OwnerLink& operator=(OwnerLink&&) noexcept { return *this; }
  ~OwnerLink() {
    if (link_ && link_->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete link_;
  }

  // The link for `object` (whose Array this is), made on first use.
  BaseLink* get_or_make(void* object, void (*release)(void*)) {
    if (!link_) {
      link_ = new BaseLink;
      link_->object = object;
      link_->release = release;
    }
    return link_;
  }

 private:
  BaseLink* link_ = nullptr;
};

}  // namespace nf
