// Runs fused elementwise programs (graph/group_program.h) on a CUDA device: generated source ->
// kernel cache -> one launch on the current stream. Also the device-side copies, fills and index
// generators that the core needs (transfers, casts, creation functions).
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/backend/cuda/stream.h"
#include "numfuse/graph/group_program.h"

namespace nf::cuda {

// The stream work for `device` is enqueued on: the current stream, made to wait for the work
// enqueued earlier on whichever other stream of that device numfuse used last (so that an array
// written on one stream and read on another is ordered). Activates the device's context.
Stream enqueue_stream(int device);

// Launches the program's kernel on the device's current stream (asynchronous).
void run_program_cuda(const GroupProgram& program);

// dst[...] = src for arrays on one CUDA device (or src a 0-d host scalar): broadcast, cast, any
// strides; a plain memcpy when both are contiguous with one dtype and shape.
void copy_on_device(const Array& src, const Array& dst);
// Every element of the contiguous array `out` = the itemsize bytes at `value`.
void fill(const Array& out, const void* value);
// out[i] = start + i*step (in int64 for integer dtypes, in double otherwise), cast to out's dtype.
void arange(const Array& out, double start, double step);
// A 2-d identity-like array: ones on diagonal k, zeros elsewhere.
void eye(const Array& out, int64_t k);

// The kernel sources of arange and eye for a dtype (entries "nf_arange", "nf_eye").
std::string arange_kernel_source(DType d);
std::string eye_kernel_source(DType d);

}  // namespace nf::cuda
