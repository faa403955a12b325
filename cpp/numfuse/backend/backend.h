// Device dispatch for the few eager operations outside the graph (writes, transfers).
#pragma once
#include "numfuse/core/array.h"

namespace nf::backend {

// dst[...] = src (broadcast, cast), both materialised; picks the backend from the devices.
void copy_into(const Array& src, const Array& dst);

}  // namespace nf::backend
