// The innermost runs of a materialised host array, for loops that read its elements in C order
// (the bounds check of index arrays in ops/, counting nonzeros in backend/cpu).
#pragma once
#include <cstdint>

#include "numfuse/core/array.h"
#include "numfuse/core/iteration.h"

namespace nf {

// Calls fn(pointer to the first element, n, stride in elements) for each innermost run of `a`
// (element type T), in C order: one call when it is C-contiguous. GCC 12, inlining for_each_run's
// SmallVector into typed loops, warns that its first offset may be uninitialised: it is set
// (SmallVector(n, 0)) before any call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <class T, class F>
void for_each_row(const Array& a, F&& fn) {
  if (a.c_contiguous()) {
    fn(a.data_as<T>(), a.size(), int64_t(1));
    return;
  }
  IterSpace sp;
  sp.shape = a.shape;
  sp.strides = {a.strides};
  const T* base = a.data_as<T>();
  const int64_t st = a.ndim() ? a.strides.back() : 0;
  for_each_run(sp, 0, a.size(), int64_t(1) << 30,
               [&](const int64_t* off, int64_t n) { fn(base + off[0], n, st); });
}
#pragma GCC diagnostic pop

}  // namespace nf
