// Creation ops whose values come from an index, not from memory: they are Source nodes, so a
// later fusion planner can compute them inside the kernel that consumes them.
#pragma once
#include "numfuse/core/array.h"

namespace nf {

// An array of `shape` filled with the bytes of one value of `dtype` (itemsize bytes at `value`).
Array full(const Shape& shape, DType dtype, const void* value, Device device);
Array zeros(const Shape& shape, DType dtype, Device device);
Array ones(const Shape& shape, DType dtype, Device device);
// start + i * step for i in [0, n), computed in dtype as NumPy's arange does.
Array arange(double start, double step, int64_t n, DType dtype, Device device);
// 1 where column - row == k, 0 elsewhere (numpy.eye).
Array eye(int64_t rows, int64_t cols, int64_t k, DType dtype, Device device);

}  // namespace nf
