// CUDA source for a scan (cumsum, cumprod: ops/scan.h's ScanNode) along one axis of any strided
// input into a fresh C-contiguous output. Two strategies:
//  - a thread per line, walking it in order: exactly NumPy's sequential accumulate (every float
//    rounds as NumPy's does), used when there are many lines or short ones, and always for float16
//    (whose per-step rounding to half makes any other association visibly different);
//  - tiles of kScanTile elements, a block each: every thread scans kScanItems neighbours in order,
//    a block scan of the thread totals gives each thread its carry, and the thread re-walks its
//    elements from that carry. Lines longer than a tile take three launches: the tile totals
//    (nf_scan_totals), an in-place scan of them per line (nf_scan_carries), then the tiles with
//    their carries (nf_scan_tiles).
// Shapes, strides and pointers are parameters; the source depends on the op, dtype and the
// rank of the coalesced line dims only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/core/array.h"
#include "numfuse/ir/scan.h"

namespace nf::cuda {

constexpr int kScanThreads = 256;                      // threads per block of every scan kernel
constexpr int kScanItems = 8;                          // elements per thread in a tile
constexpr int kScanTile = kScanThreads * kScanItems;   // elements per block-scanned tile
constexpr int kMaxScanRank = 8;                        // coalesced line dims

struct ScanPlan {
  Shape line_shape;       // the dims other than the axis, C order, unit dims dropped, coalesced
  Strides line_stride;    // their input strides (elements); {1}/{0} when there are none
  int64_t n = 0;          // elements per line (the axis' extent)
  int64_t lines = 0;      // number of lines
  int64_t inner = 1;      // product of the dims after the axis: the output's stride along it
  int64_t axis_stride = 0;
  bool sequential = true;  // a thread per line; else tiles of kScanTile, a block each
  int64_t tiles = 1;       // tiles per line (> 1: three launches)
};

// How to scan `in` (non-empty) along `axis`.
ScanPlan plan_scan(const Array& in, int axis);

struct ScanKernel {
  std::string body;             // kernels nf_scan_lines, nf_scan_totals, nf_scan_carries,
                                // nf_scan_tiles; the NVRTC source is kKernelPrelude + body
  std::vector<uint8_t> params;  // the parameter struct's bytes (pointers first)
  size_t partial_bytes = 0;     // scratch for tile totals (0: one launch)
  // numpy.errstate: with checks on, nf_scan_check (launched after the scan over lines * (n - 1)
  // elements) notes the accumulation's overflow and invalid in the words at the struct's last field.
  FpCheckPlan fp;
  size_t fp_param_offset = 0;
};

// The kernels for scanning values of `dtype` (input and output) with `op` as `plan` says;
// `state`: the scan's errstate.
ScanKernel generate_scan(ScanOp op, DType dtype, const ScanPlan& plan, FpState state = kFpDefaultState);
void set_scan_pointers(ScanKernel& k, const void* in, void* out, void* partial);

// The launches of a plan, in order, all of kScanThreads-thread blocks with the same parameters.
// `blocks` is what covers the work; every kernel loops grid-stride, so fewer blocks also do.
struct ScanLaunch {
  const char* entry;
  int64_t blocks;
};
std::vector<ScanLaunch> scan_launches(const ScanPlan& plan);

}  // namespace nf::cuda
