// Runs fused elementwise programs (ir/group_program.h) on a CUDA device: structural key ->
// kernel cache (the source is generated on a miss only) -> one launch on the current stream.
// Also the device-side copies and fills that the core needs (transfers, casts, matmul).
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/ir/group_program.h"

namespace nf::cuda {

// Launches the program's kernel on the device's current stream (asynchronous).
void run_program_cuda(const GroupProgram& program);

// dst[...] = src for arrays on one CUDA device (or src a 0-d host scalar): broadcast, cast, any
// strides; a plain memcpy when both are contiguous with one dtype and shape. `cast_state`: the
// errstate of an assignment whose cast is checked as NumPy's (0: an internal copy, unchecked).
void copy_on_device(const Array& src, const Array& dst, FpState cast_state = 0);
// Every element of the contiguous array `out` = the itemsize bytes at `value`.
void fill(const Array& out, const void* value);
}  // namespace nf::cuda
