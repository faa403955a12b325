// Array: a cheap handle (dtype, shape, strides, offset) onto a shared Storage. A Storage holds
// either a Buffer (materialised) or the Node that will produce it (pending). Views share Storage.
#pragma once
#include <atomic>
#include <memory>
#include <type_traits>
#include <vector>

#include "numfuse/core/base_ref.h"
#include "numfuse/core/block_pool.h"
#include "numfuse/core/buffer.h"
#include "numfuse/core/dtype.h"
#include "numfuse/core/shape.h"

namespace nf {

struct Node;

// The memory of a base array and all its views.
struct Storage {
  size_t nbytes = 0;
  Device device;
  std::shared_ptr<Buffer> buffer;   // set once materialised
  std::shared_ptr<Node> producer;   // set while pending
  int producer_output = 0;          // which output of `producer` this is
  // Never written (the cached weak-scalar constants of ops/elementwise.cpp): readers not tracked.
  bool constant = false;
  // Live writeable NumPy views of this memory handed to the user (numpy.asarray, asnumpy): NumPy
  // may write through them at any time, unseen by the graph, so a node reading this storage is
  // evaluated when it is recorded (graph/eval.cpp) while any is alive.
  std::atomic<int> host_views{0};
  // Pending nodes that read this storage: a write into it must evaluate them first.
  std::vector<std::weak_ptr<Node>, PoolAllocator<std::weak_ptr<Node>>> readers;

  bool pending() const { return producer != nullptr; }
  char* data() const { return static_cast<char*>(buffer->data()); }
  // Long pending chains are released iteratively, never by deep recursion.
  ~Storage();
};

// A pointer that belongs to the front-end object holding an Array (CPython's list of the
// object's weak references, found through the type's tp_weaklistoffset): null in every new
// Array, not copied with it, kept when another Array is assigned into the object.
struct ObjectSlot {
  void* value = nullptr;
  ObjectSlot() = default;
  ObjectSlot(const ObjectSlot&) noexcept {}
  ObjectSlot(ObjectSlot&&) noexcept {}
  ObjectSlot& operator=(const ObjectSlot&) noexcept { return *this; }
  ObjectSlot& operator=(ObjectSlot&&) noexcept { return *this; }
};

class Array {
 public:
  DType dtype = DType::Float64;
  Shape shape;
  Strides strides;          // in elements of dtype
  int64_t byte_offset = 0;  // from the start of the storage
  std::shared_ptr<Storage> storage;
  bool writeable = true;
  bool is_view = false;     // NumPy's OWNDATA is !is_view
  // The front end's object whose memory a view shows (ndarray.base), opaque to the core and
  // empty for arrays that own their memory; views made from a view keep the same one.
  BaseRef base;
  // When this Array is a front-end object's own: the link its views' `base` share (not copied).
  OwnerLink owner_link;
  ObjectSlot weak_list;  // the object's weak references (python/src/untracked_arrays.cpp)

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t size() const { return numel(shape); }
  size_t itemsize() const { return nf::itemsize(dtype); }
  size_t nbytes() const { return static_cast<size_t>(size()) * itemsize(); }
  Device device() const { return storage->device; }
  bool pending() const { return storage->pending(); }
  bool c_contiguous() const { return is_c_contiguous(shape, strides); }
  bool f_contiguous() const { return is_f_contiguous(shape, strides); }

  // Pointer to element 0. Only valid once materialised (see graph/eval.h).
  char* data() const { return storage->data() + byte_offset; }
  template <class T> T* data_as() const { return reinterpret_cast<T*>(data()); }

  // A view onto the same storage.
  Array view(Shape new_shape, Strides new_strides, int64_t new_byte_offset) const;
  Array view_as_dtype(DType d) const;  // same bytes, another dtype (ndarray.view(dtype))

  // A new materialised, uninitialised C-contiguous array.
  static Array empty(const Shape& shape, DType dtype, Device device);
  // A materialised 0-d host array holding one value (itemsize bytes copied from `value`).
  static Array scalar(const void* value, DType dtype, Device device = Device::cpu());
};
// Containers of Arrays move them when they grow, never copy them.
static_assert(std::is_nothrow_move_constructible_v<Array> &&
              std::is_nothrow_move_assignable_v<Array>);

}  // namespace nf
