#include "numfuse/ops/indexing.h"

#include "numfuse/core/error.h"

namespace nf {

IndexItem IndexItem::slice(bool has_start, int64_t start, bool has_stop, int64_t stop,
                           int64_t step) {
  if (step == 0) throw ValueError("slice step cannot be zero");
  IndexItem it{Kind::Slice};
  it.has_start = has_start;
  it.start = start;
  it.has_stop = has_stop;
  it.stop = stop;
  it.step = step;
  return it;
}

void adjust_slice(const IndexItem& it, int64_t dim, int64_t* start, int64_t* length) {
  int64_t step = it.step;
  int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? dim - 1 : dim;
  int64_t s, e;
  if (!it.has_start) {
    s = step < 0 ? hi : lo;
  } else {
    s = it.start < 0 ? std::max(it.start + dim, lo) : std::min(it.start, hi);
  }
  if (!it.has_stop) {
    e = step < 0 ? lo : hi;
  } else {
    e = it.stop < 0 ? std::max(it.stop + dim, lo) : std::min(it.stop, hi);
  }
  int64_t n = 0;
  if (step > 0 && s < e) n = (e - s - 1) / step + 1;
  if (step < 0 && s > e) n = (s - e - 1) / (-step) + 1;
  *start = s;
  *length = n;
}

Array basic_index(const Array& a, const std::vector<IndexItem>& items) {
  int consumed = 0, ellipses = 0;
  for (const IndexItem& it : items) {
    if (it.kind == IndexItem::Kind::Integer || it.kind == IndexItem::Kind::Slice) ++consumed;
    if (it.kind == IndexItem::Kind::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > a.ndim()) {
    throw IndexError("too many indices for array: array is " + std::to_string(a.ndim()) +
                     "-dimensional, but " + std::to_string(consumed) + " were indexed");
  }
  Shape shape;
  Strides strides;
  int64_t offset = a.byte_offset;
  const int64_t size = static_cast<int64_t>(a.itemsize());
  int dim = 0;
  auto take_dims = [&](int n) {
    for (int k = 0; k < n; ++k, ++dim) {
      shape.push_back(a.shape[dim]);
      strides.push_back(a.strides[dim]);
    }
  };
  for (const IndexItem& it : items) {
    switch (it.kind) {
      case IndexItem::Kind::Integer: {
        int64_t n = a.shape[dim], i = it.index;
        if (i < -n || i >= n) {
          throw IndexError("index " + std::to_string(i) + " is out of bounds for axis " +
                           std::to_string(dim) + " with size " + std::to_string(n));
        }
        if (i < 0) i += n;
        offset += i * a.strides[dim] * size;
        ++dim;
        break;
      }
      case IndexItem::Kind::Slice: {
        int64_t start, length;
        adjust_slice(it, a.shape[dim], &start, &length);
        if (length > 0) offset += start * a.strides[dim] * size;
        shape.push_back(length);
        // A step past the axis (x[::2**62]) leaves at most one element, whose stride is never
        // used: keep it from overflowing int64.
        int64_t stride;
        if (__builtin_mul_overflow(a.strides[dim], it.step, &stride)) stride = a.strides[dim];
        strides.push_back(stride);
        ++dim;
        break;
      }
      case IndexItem::Kind::NewAxis:
        shape.push_back(1);
        strides.push_back(0);
        break;
      case IndexItem::Kind::Ellipsis:
        take_dims(a.ndim() - consumed);  // the dims no other item names
        break;
    }
  }
  take_dims(a.ndim() - dim);
  return a.view(shape, strides, offset);
}

}  // namespace nf
