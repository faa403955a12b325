// CUDA source for advanced indexing (the geometry of backend/cpu/gather_cpu.h): the source offset
// of every position of the index arrays' broadcast shape B, the gather a[idx] and the scatter
// a[idx] = v over outer x B x inner, the "last value wins" selection among repeated indices, and
// nonzero's coordinates. Sources depend on ranks (and the item size) only; shapes, strides and
// pointers are parameters. Every parameter struct is a run of 8-byte fields, laid out by the
// *_params functions in declaration order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cpu/gather_cpu.h"
#include "numfuse/core/shape.h"

namespace nf::cuda {

// Kernel nf_index_offsets: for one int64 index array read through `rank` (coalesced) dims of B,
// boff[b] (+)= v * stride and, when blin is set, blin[b] (+)= v * mult, v the index wrapped into
// [0, size) (the first array assigns, the others add).
std::string index_offsets_body(int rank);
std::vector<uint8_t> index_offsets_params(const void* idx, void* boff, void* blin, int64_t nb, int64_t size,
                                          int64_t stride, int64_t mult, bool first, const Shape& shape,
                                          const Strides& strides);

// Kernels nf_gather (dst[r] = src[offset(r)]) and nf_scatter (dst[offset(r)] = src[r] where
// keep[b]) of items of `itemsize` bytes, r the C-order position in outer x B x inner and
// offset(r) = outer offset + boff[b] + inner offset. The outer and inner dims are coalesced
// (rank 0 when there are none).
std::string gather_body(size_t itemsize, int outer_rank, int inner_rank);
std::vector<uint8_t> gather_params(const void* src, void* dst, const void* boff, const void* keep, int64_t n,
                                   int64_t nb, int64_t ninner, const Shape& outer_shape,
                                   const Strides& outer_strides, const Shape& inner_shape,
                                   const Strides& inner_strides);

// Kernels nf_scatter_claim and nf_scatter_mark: with repeated indices NumPy's last value wins.
// Claim: every b inserts its linear index blin[b] into an open-addressing table (keys all ones,
// vals zero, `mask` + 1 slots, a power of two above the count) and raises the slot's val to b + 1
// with atomicMax; mark: blin[b] becomes 1 where b is its slot's last claimant, else 0. The
// outcome does not depend on the order threads run in.
std::string scatter_select_body();
std::vector<uint8_t> scatter_select_params(void* blin, void* keys, void* vals, int64_t nb, uint64_t mask);

// Kernel nf_nonzero: pos is the inclusive cumsum (int64) of an array's truth values in C order;
// where pos steps, the element's coordinates over `shape` go to out[d][pos - 1].
std::string nonzero_body(int ndim);
std::vector<uint8_t> nonzero_params(const void* pos, int64_t n, const std::vector<void*>& outs,
                                    const Shape& shape);

// ---- the launch sequences (gather_cuda.cpp runs them on a device; tests can run them elsewhere)

// One launch of a generated kernel (NVRTC source kKernelPrelude + body) in 256-thread blocks.
// `blocks` covers the work; every kernel here loops grid-stride, so fewer blocks also do.
struct KernelLaunch {
  std::string body;
  std::string entry;
  int64_t blocks = 0;
  std::vector<uint8_t> params;
};

// out = src[indices] for the geometry `g` (index arrays int64, their data pointers readable by the
// kernels): the offsets of B's positions into `boff` (numel(g.bshape) int64), then the gather.
// With no index arrays, boff must hold zeros already.
std::vector<KernelLaunch> gather_launches(const cpu::GatherGeometry& g, const void* src, void* out,
                                          size_t itemsize, void* boff);

// The slots of the scatter's table for `nb` positions: a power of two, at least twice nb.
int64_t scatter_slots(int64_t nb);
// dst[indices] = values: offsets and linear indices (boff, keep: numel(g.bshape) int64 each),
// the selection of the last of repeated indices (keys filled with all ones and vals with zeros,
// scatter_slots(nb) uint64 each, before the launches), then the writes. With no index arrays,
// boff must hold zeros and keep ones already.
std::vector<KernelLaunch> scatter_launches(const cpu::GatherGeometry& g, const void* values, void* dst,
                                           size_t itemsize, void* boff, void* keep, void* keys, void* vals);

// nonzero's coordinates (see nonzero_body) of the n counts at pos, into outs (one per dim).
KernelLaunch nonzero_launch(const void* pos, int64_t n, const std::vector<void*>& outs, const Shape& shape);

// Drops unit dims and merges neighbours that step through memory as one, keeping the C-order
// flat position's meaning (rank 0 when nothing is left).
void coalesce_dims(Shape* shape, Strides* strides);

}  // namespace nf::cuda
