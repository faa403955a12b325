// Creation ops whose values come from an index, not from memory: generator steps
// (kernels/generators.h) that the fusion planner computes inside the kernel that consumes them.
#pragma once
#include "numfuse/core/array.h"
#include "numfuse/ir/elementwise_node.h"

namespace nf {

// A pending array of `shape` whose element i (C order) is the generator's value at i.
Array generate(const Generator& g, DType dtype, const Shape& shape, Device device);

// An array of `shape` filled with the bytes of one value of `dtype` (itemsize bytes at `value`).
Array full(const Shape& shape, DType dtype, const void* value, Device device);
Array zeros(const Shape& shape, DType dtype, Device device);
Array ones(const Shape& shape, DType dtype, Device device);
// start + i * step for i in [0, n), computed in dtype as NumPy's arange does.
Array arange(double start, double step, int64_t n, DType dtype, Device device);
// 1 where column - row == k, 0 elsewhere (numpy.eye).
Array eye(int64_t rows, int64_t cols, int64_t k, DType dtype, Device device);

}  // namespace nf
