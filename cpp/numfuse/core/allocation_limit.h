// Allocation requests checked when an array is asked for, not when its memory is first touched:
// NumPy raises MemoryError at the call, so an impossible size must fail there too, even though
// the data of a pending array is only allocated at evaluation.
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/core/device.h"
#include "numfuse/core/dtype.h"
#include "numfuse/core/shape.h"

namespace nf {

// The most bytes one allocation on `device` can ever get. CPU: physical RAM + swap, lowered to the
// commit limit under strict overcommit (vm.overcommit_memory=2), a cgroup's memory limit, or
// RLIMIT_AS. CUDA: the device's total memory, or numfuse's GPU memory limit when one is set.
uint64_t allocation_capacity(Device device);

// NumPy's _ArrayMemoryError text: "Unable to allocate 72.8 TiB for an array with shape
// (10000000000000,) and data type float64".
std::string allocation_error_message(uint64_t nbytes, const Shape& shape, DType dtype);

// Throws MemoryError (CUDAOutOfMemoryError on a GPU, also a Python MemoryError) with that text
// when nbytes can never be allocated on `device`.
void check_allocatable(uint64_t nbytes, const Shape& shape, DType dtype, Device device);

// NumPy's binary size string: "72.8 TiB", "1.00 EiB", "1000. GiB", "12 bytes".
std::string numpy_size_string(uint64_t nbytes);

}  // namespace nf
