#include "numfuse/core/array.h"

#include <cstring>

#include "numfuse/core/allocation_limit.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/node.h"

namespace nf {

namespace {
// Storages whose producer chains are being released; drained by the outermost destructor.
thread_local std::vector<std::shared_ptr<Node>>* g_release_queue = nullptr;
}  // namespace

Storage::~Storage() {
  if (!producer) return;
  if (g_release_queue) {  // an outer ~Storage is draining: hand the chain to it
    g_release_queue->push_back(std::move(producer));
    return;
  }
  std::vector<std::shared_ptr<Node>> queue;
  g_release_queue = &queue;
  queue.push_back(std::move(producer));
  while (!queue.empty()) {
    std::shared_ptr<Node> n = std::move(queue.back());
    queue.pop_back();
    n.reset();  // may push more producers onto the queue instead of recursing
  }
  g_release_queue = nullptr;
}

Array Array::view(Shape new_shape, Strides new_strides, int64_t new_byte_offset) const {
  Array v;
  v.dtype = dtype;
  v.shape = std::move(new_shape);
  v.strides = std::move(new_strides);
  v.byte_offset = new_byte_offset;
  v.storage = storage;
  v.writeable = writeable;
  v.is_view = true;
  v.base = base;
  return v;
}

Array Array::view_as_dtype(DType d) const {
  size_t old_size = itemsize(), new_size = nf::itemsize(d);
  Array v = view(shape, strides, byte_offset);
  v.dtype = d;
  if (old_size == new_size) return v;
  if (ndim() == 0) {
    throw ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
  }
  if (shape.back() != 1 && strides.back() != 1) {
    throw ValueError("To change to a dtype of a different size, the last axis must be contiguous");
  }
  int64_t last_bytes = shape.back() * static_cast<int64_t>(old_size);
  if (last_bytes % static_cast<int64_t>(new_size) != 0) {
    throw ValueError("When changing to a larger dtype, its size must be a divisor of the total size "
                     "in bytes of the last axis of the array.");
  }
  v.shape.back() = last_bytes / static_cast<int64_t>(new_size);
  for (int i = 0; i + 1 < ndim(); ++i) {
    int64_t bytes = strides[i] * static_cast<int64_t>(old_size);
    if (bytes % static_cast<int64_t>(new_size) != 0) {
      throw ValueError("To change to a dtype of a different size, the array must be C-contiguous");
    }
    v.strides[i] = bytes / static_cast<int64_t>(new_size);
  }
  v.strides.back() = 1;
  return v;
}

Array Array::empty(const Shape& shape, DType dtype, Device device) {
  const int64_t nbytes = checked_nbytes(shape, nf::itemsize(dtype));
  check_allocatable(static_cast<uint64_t>(nbytes), shape, dtype, device);
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  a.strides = contiguous_strides(shape);
  a.storage = std::make_shared<Storage>();
  a.storage->nbytes = static_cast<size_t>(nbytes);
  a.storage->device = device;
  // Evaluation allocates here too: a failure says what NumPy says, never std::bad_alloc.
  try {
    a.storage->buffer = Buffer::allocate(a.storage->nbytes, device);
  } catch (const std::bad_alloc&) {
    throw MemoryError(allocation_error_message(static_cast<uint64_t>(nbytes), shape, dtype));
  } catch (const CUDAOutOfMemoryError& e) {
    throw CUDAOutOfMemoryError(
        allocation_error_message(static_cast<uint64_t>(nbytes), shape, dtype) + " (" + e.what() +
        ")");
  }
  return a;
}

Array Array::scalar(const void* value, DType dtype, Device device) {
  // Scalars stay in host memory on every device: backends pass them as kernel parameters.
  Array a = empty({}, dtype, Device::cpu());
  std::memcpy(a.data(), value, nf::itemsize(dtype));
  return a;
}

}  // namespace nf
