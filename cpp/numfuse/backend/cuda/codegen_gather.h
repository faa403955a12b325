// CUDA source for advanced indexing (ops/advanced_indexing.h): gather (out = src[indices]),
// scatter (dst[indices] = values, the last of repeated indices winning, deterministically) and
// nonzero's position fill. All work on GatherGeometry's outer x B x inner form, with each part's
// dims coalesced; elements are copied as bits of their itemsize (one kernel per size, not per
// dtype; in smaller words when the pointers are not aligned to it). Shapes, strides and pointers are parameters; only ranks and counts shape the source.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cpu/gather_cpu.h"

namespace nf::cuda {

constexpr int kMaxGatherRank = 8;      // coalesced dims of each of outer, inner and B
constexpr int kMaxGatherIndices = 32;  // index arrays in one key
constexpr int kMaxNonzeroRank = 64;    // NumPy's own limit on dims

// The geometry with each part coalesced (unit dims dropped, contiguous neighbours merged; B's
// dims merged only where every index array allows it). Empty parts get one dim of size 1.
struct GatherLayout {
  Shape oshape, ishape, bshape;
  Strides ostride, istride;
  std::vector<Strides> bstride;  // per index array, over bshape (0 where it broadcasts)
  std::vector<int64_t> sizes;    // extent of the dim each index array indexes
  std::vector<int64_t> astride;  // that dim's stride in the source / destination
  std::vector<int64_t> kmul;     // the dim's weight in the target's linear key (scatter)
  int64_t n_outer = 1, nb = 1, ninner = 1;
  int64_t n() const { return n_outer * nb * ninner; }
};
// Throws NotImplementedError past kMaxGatherRank / kMaxGatherIndices.
GatherLayout plan_gather(const cpu::GatherGeometry& g);

struct GatherKernel {
  std::string body;              // NVRTC source is kKernelPrelude + body
  std::vector<uint8_t> params;   // the single by-value parameter struct
  int64_t n = 0;                 // elements of the result (gather) or of the values (scatter)
  int64_t nb = 0;                // positions of B (the claim pass of scatter)
  int64_t table_slots = 0;       // scatter: owners (direct) or slots of the hash table
  size_t table_bytes = 0;        // scatter: the owner table's size
  bool direct = false;           // scatter: owners indexed by the target's key
};

// Kernel nf_gather: contig[i] = strided[offset of result position i], contig C-contiguous in
// the outer x B x inner order. `strided` is the source view's element 0.
GatherKernel generate_gather(const cpu::GatherGeometry& g, size_t itemsize, const void* strided,
                             void* contig);

// Kernels nf_scatter_claim (one thread per B position: the largest position writing each target
// becomes its owner) and nf_scatter_write (each value element is stored only when its B position
// owns its target). The owners live in `table` (table_bytes, every byte 0xFF beforehand): one
// int64 per target of the indexed dims (direct) when that is no larger than an open-addressing
// table of (key, owner) pairs with at least twice as many slots as B positions.
// `strided` is the destination view's element 0.
GatherKernel generate_scatter(const cpu::GatherGeometry& g, size_t itemsize, void* strided,
                              const void* contig, void* table);
// Sets the table pointer of a scatter kernel's parameters (allocated after seeing table_bytes).
void set_scatter_table(GatherKernel& k, void* table);
// The hash table's slots for nb positions (a power of two, at least 2 * nb).
int64_t scatter_table_slots(int64_t nb);

// Kernel nf_nonzero_fill: for each flat C-order position i of an array of `shape` whose flag is
// set (pos[i] differs from pos[i-1], pos the inclusive cumsum of the flags), writes its
// coordinates at row pos[i]-1 of outs[d] (int64 arrays of the count of flags).
GatherKernel generate_nonzero_fill(const Shape& shape, const int64_t* pos, const std::vector<int64_t*>& outs);

}  // namespace nf::cuda
