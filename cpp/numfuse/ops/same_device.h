// The device check of the opaque ops whose kernels read every operand (searchsorted, interp,
// bincount, histogram, correlate, the random distributions' array parameters...): unlike the
// fused elementwise programs, no 0-d host operand is a kernel parameter there, so an operand on
// another device would be read through an address of the wrong memory
// (CUDA_ERROR_ILLEGAL_ADDRESS under Dask, issue 15). It raises the ValueError that mixing
// devices raises everywhere (common_device's message), the op's name first.
#pragma once
#include <string>

#include "numfuse/core/array.h"
#include "numfuse/core/error.h"

namespace nf {

inline void require_same_device(const char* op, Device device, const Array& other) {
  if (other.device() != device) {
    throw ValueError(std::string(op) + ": arrays are on different devices: " + device.str() +
                     " and " + other.device().str() + "; move one with asarray(x, device=...)");
  }
}

inline void require_same_device(const char* op, const Array& first, const Array& other) {
  require_same_device(op, first.device(), other);
}

}  // namespace nf
