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

// Drops unit dims and merges neighbours that step through memory as one, keeping the C-order
// flat position's meaning (rank 0 when nothing is left).
void coalesce_dims(Shape* shape, Strides* strides);

}  // namespace nf::cuda
