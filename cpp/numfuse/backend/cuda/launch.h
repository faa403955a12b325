// Launching generated kernels whose only parameter is one struct passed by value, on the stream
// numfuse orders its work on.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/backend/cuda/stream.h"

namespace nf::cuda {

constexpr int kLaunchThreads = 256;  // threads per block of the grid-stride kernels

// The lines that make a kernel template with several entry points compile only `name`: NVRTC
// compiles every extern "C" kernel of a source whichever one is asked for, so a template guards
// each entry with `#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_<entry>)`. The sort template's
// eight kernels took 1.3 s to compile for each entry used, one of them 0.1-0.27 s (NVRTC 13,
// docs/decisions.md "Kernels compiled one entry at a time").
std::string kernel_selection(const std::string& name);

// The kernel `name` of the source kernel_selection(name) + kKernelPrelude + make_body(), compiled with `options` for
// `device`, found by `key`: a short description of the source that the caller guarantees is
// equal only for equal sources. A warm launch hashes the key, never the source text (the
// ~100 KB prelude, or even a generated body, costs microseconds to build and hash).
CUfunction keyed_kernel(const std::string& key, const char* name, const std::vector<std::string>& options,
                        int device, const std::function<std::string()>& make_body);
// The kernel keyed_kernel would return when it has been compiled and loaded in this process (by
// any thread), else nullptr: never compiles.
CUfunction loaded_keyed_kernel(const std::string& key, const char* name,
                               const std::vector<std::string>& options, int device);
// The entry names of the kernels keyed_kernel has loaded in this process (tests: which kernels a
// program has compiled by now).
std::vector<std::string> loaded_kernel_names();
// The same with the body as its own key (kernels whose body is short or rarely launched).
CUfunction generated_kernel(const std::string& body, const std::string& name,
                            const std::vector<std::string>& options, int device);

// The stream work for `device` is enqueued on: the current stream, made to wait for the work
// enqueued earlier on whichever other stream of that device numfuse used last (so that an array
// written on one stream and read on another is ordered). Activates the device's context.
Stream enqueue_stream(int device);

// Blocks for a grid-stride kernel of kLaunchThreads-thread blocks covering `threads_needed`: a
// thread each, up to 2^24 threads.
unsigned grid_for(int64_t threads_needed, int device);

// Enqueues `fn` with the parameter struct at `params` on enqueue_stream(device).
void launch(CUfunction fn, int device, unsigned grid, unsigned block, const void* params);
inline void launch(CUfunction fn, int device, unsigned grid, unsigned block, const std::vector<uint8_t>& params) {
  launch(fn, device, grid, block, params.data());
}

}  // namespace nf::cuda
