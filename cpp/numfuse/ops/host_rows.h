// Walking a materialised host array row by row (ops that read index or mask values on the host).
#pragma once
#include <cstdint>

#include "numfuse/core/array.h"
#include "numfuse/core/iteration.h"

namespace nf {

// Calls fn(pointer to the first element, n, stride) for each innermost run of a materialised
// host array, in C order.
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

// The value of a 0-d int64 array (evaluated, copied from its device when needed).
int64_t read_int64(const Array& a);

}  // namespace nf
