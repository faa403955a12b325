// dst[...] = src when one of them is on a CUDA device (CudaBackend::copy).
#pragma once
#include "numfuse/core/array.h"

namespace nf::cuda {

// Both materialised; broadcast and cast as needed. Host to device, device to host (it waits for
// the device), on one device, or between two devices (through the host).
void copy_between(const Array& src, const Array& dst);

}  // namespace nf::cuda
