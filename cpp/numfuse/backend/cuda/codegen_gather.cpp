#include "numfuse/backend/cuda/codegen_gather.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cuda {

namespace {

void check_rank(size_t rank, const char* part) {
  if (rank > static_cast<size_t>(kMaxGatherRank)) {
    throw NotImplementedError(std::string("advanced indexing on CUDA with ") + part + " of rank " +
                              std::to_string(rank) + " after coalescing (at most " +
                              std::to_string(kMaxGatherRank) + ")");
  }
}

// How an element is copied: as one word of its size when the pointers allow that alignment,
// else as an array of smaller words (a complex64 view at a 4-byte offset, say). 16-byte elements
// are two 8-byte words at best.
void emit_element_type(SourceText& s, size_t itemsize, const void* a, const void* b) {
  if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 && itemsize != 16) {
    throw Error("advanced indexing on CUDA: unsupported item size " + std::to_string(itemsize));
  }
  size_t unit = std::min<size_t>(itemsize, 8);
  auto misaligned = [&](const void* p) { return reinterpret_cast<uintptr_t>(p) % unit != 0; };
  while (unit > 1 && (misaligned(a) || misaligned(b))) unit /= 2;
  const char* word = unit == 1 ? "unsigned char" : unit == 2 ? "unsigned short" : unit == 4 ? "unsigned int"
                                                                                            : "unsigned long long";
  if (unit == itemsize) {
    s << "typedef " << word << " nf_elem;\n";
  } else {
    s << "struct nf_elem { " << word << " w[" << itemsize / unit << "]; };\n";
  }
}

// Positions fit 32 bits: unsigned division is much cheaper than 64-bit on the GPU. Offsets stay
// 64-bit whatever the positions.
const char* index_type(int64_t n) { return n < (int64_t(1) << 31) ? "unsigned int" : "long long"; }

// The parameter struct, the element type and the index helpers shared by gather and scatter.
void emit_common(SourceText& s, const GatherLayout& L, size_t itemsize, int64_t n, const void* strided,
                 const void* contig) {
  const size_t ro = L.oshape.size(), ri = L.ishape.size(), rb = L.bshape.size();
  const size_t k = std::max<size_t>(L.sizes.size(), 1);
  s << "\n// ---- advanced indexing kernels\n";
  emit_element_type(s, itemsize, strided, contig);
  s << "typedef " << index_type(n) << " nf_ix;\n";
  s << "#define NF_RO " << ro << "\n#define NF_RI " << ri << "\n#define NF_RB " << rb << "\n#define NF_K "
    << L.sizes.size() << "\n";
  s << "struct nf_gparams {\n  void* strided;\n  void* contig;\n  void* table;\n  long long n;\n"
       "  long long nb;\n  long long ninner;\n  long long slots;\n  long long shift;\n"
       "  long long oshape[" << ro << "];\n  long long ostride[" << ro << "];\n"
       "  long long ishape[" << ri << "];\n  long long istride[" << ri << "];\n"
       "  long long bshape[" << rb << "];\n  const long long* idx[" << k << "];\n"
       "  long long bstride[" << k << "][" << rb << "];\n  long long size[" << k << "];\n"
       "  long long astride[" << k << "];\n  long long kmul[" << k << "];\n};\n";
  // Offset of position i of a coalesced part (C order).
  auto offset_fn = [&](const char* name, const char* shape, const char* stride, const char* rank) {
    s << "__device__ __forceinline__ long long " << name << "(const nf_gparams& p, nf_ix i) {\n"
         "  long long off = 0;\n#pragma unroll\n  for (int d = " << rank << " - 1; d >= 0; --d) {\n"
         "    const nf_ix c = i % (nf_ix)p." << shape << "[d];\n    i /= (nf_ix)p." << shape << "[d];\n"
         "    off += (long long)c * p." << stride << "[d];\n  }\n  return off;\n}\n";
  };
  offset_fn("nf_outer_offset", "oshape", "ostride", "NF_RO");
  offset_fn("nf_inner_offset", "ishape", "istride", "NF_RI");
  // B position b -> the element offset the index arrays select (off) and the target's linear key
  // over the indexed dims (key); false when an index is out of bounds (the host checked them
  // all; this only keeps a kernel from ever touching memory outside the array).
  s << "__device__ __forceinline__ bool nf_target(const nf_gparams& p, nf_ix b, long long& off, "
       "long long& key) {\n  long long io[NF_K > 0 ? NF_K : 1] = {};\n"
       "#pragma unroll\n  for (int d = NF_RB - 1; d >= 0; --d) {\n"
       "    const nf_ix c = b % (nf_ix)p.bshape[d];\n    b /= (nf_ix)p.bshape[d];\n"
       "#pragma unroll\n    for (int j = 0; j < NF_K; ++j) io[j] += (long long)c * p.bstride[j][d];\n  }\n"
       "  off = 0;\n  key = 0;\n#pragma unroll\n  for (int j = 0; j < NF_K; ++j) {\n"
       "    long long v = p.idx[j][io[j]];\n    if (v < 0) v += p.size[j];\n"
       "    if (v < 0 || v >= p.size[j]) return false;\n"
       "    off += v * p.astride[j];\n    key += v * p.kmul[j];\n  }\n  return true;\n}\n";
  // Result / value position i -> (outer, b, inner) and the strided element's offset apart from
  // the index arrays' part.
  s << "__device__ __forceinline__ long long nf_split(const nf_gparams& p, nf_ix i, nf_ix& b) {\n"
       "  const nf_ix in = i % (nf_ix)p.ninner;\n  i /= (nf_ix)p.ninner;\n"
       "  b = i % (nf_ix)p.nb;\n  const nf_ix o = i / (nf_ix)p.nb;\n"
       "  return nf_outer_offset(p, o) + nf_inner_offset(p, in);\n}\n";
  s << "#define NF_GRID_LOOP(i, n) for (nf_ix i = (nf_ix)blockIdx.x * blockDim.x + threadIdx.x; "
       "i < (nf_ix)(n); i += (nf_ix)gridDim.x * blockDim.x)\n";
}

void emit_hash(SourceText& s) {
  s << "__device__ __forceinline__ unsigned long long nf_slot(const nf_gparams& p, long long key) {\n"
       "  return ((unsigned long long)key * 0x9E3779B97F4A7C15ull) >> p.shift;\n}\n";
}

std::vector<uint8_t> layout_params(const GatherLayout& L, const void* strided, const void* contig,
                                   const void* table, int64_t slots, int shift) {
  std::vector<uint8_t> p;
  append_param(p, strided);
  append_param(p, contig);
  append_param(p, table);
  append_param(p, static_cast<long long>(L.n()));
  append_param(p, static_cast<long long>(L.nb));
  append_param(p, static_cast<long long>(L.ninner));
  append_param(p, static_cast<long long>(slots));
  append_param(p, static_cast<long long>(shift));
  for (int64_t v : L.oshape) append_param(p, static_cast<long long>(v));
  for (int64_t v : L.ostride) append_param(p, static_cast<long long>(v));
  for (int64_t v : L.ishape) append_param(p, static_cast<long long>(v));
  for (int64_t v : L.istride) append_param(p, static_cast<long long>(v));
  for (int64_t v : L.bshape) append_param(p, static_cast<long long>(v));
  return p;
}

void append_index_params(std::vector<uint8_t>& p, const GatherLayout& L, const cpu::GatherGeometry& g) {
  const size_t k = L.sizes.size();
  for (size_t j = 0; j < k; ++j) append_param(p, static_cast<const void*>(g.indices[j].data()));
  if (k == 0) append_param(p, static_cast<const void*>(nullptr));
  auto each = [&](const std::vector<int64_t>& v) {
    for (int64_t x : v) append_param(p, static_cast<long long>(x));
    if (k == 0) append_param(p, 0LL);
  };
  for (size_t j = 0; j < k; ++j) each(L.bstride[j]);
  if (k == 0) for (size_t d = 0; d < L.bshape.size(); ++d) append_param(p, 0LL);
  each(L.sizes);
  each(L.astride);
  each(L.kmul);
}

}  // namespace

GatherLayout plan_gather(const cpu::GatherGeometry& g) {
  GatherLayout L;
  const size_t k = g.indices.size();
  if (k > static_cast<size_t>(kMaxGatherIndices)) {
    throw NotImplementedError("advanced indexing on CUDA with " + std::to_string(k) +
                              " index arrays (at most " + std::to_string(kMaxGatherIndices) + ")");
  }
  // Each part coalesced in C order (core/iteration.h): the kernels unravel flat C-order positions.
  const IterSpace outer = coalesce_in_order(g.outer_shape, {g.outer_strides});
  const IterSpace inner = coalesce_in_order(g.inner_shape, {g.inner_strides});
  L.oshape = outer.shape;
  L.ostride = outer.strides[0];
  L.ishape = inner.shape;
  L.istride = inner.strides[0];
  std::vector<Strides> full;
  for (const Array& idx : g.indices) full.push_back(broadcast_strides(idx.shape, idx.strides, g.bshape));
  const IterSpace b = coalesce_in_order(g.bshape, full);
  L.bshape = b.shape;
  L.bstride = b.strides;
  check_rank(L.oshape.size(), "outer dims");
  check_rank(L.ishape.size(), "inner dims");
  check_rank(L.bshape.size(), "index broadcast shape");
  L.sizes = g.adv_sizes;
  L.astride = g.adv_strides;
  L.kmul.assign(k, 1);
  int64_t m = 1;
  for (size_t j = k; j-- > 0;) {
    L.kmul[j] = m;
    m *= g.adv_sizes[j];
  }
  L.n_outer = numel(L.oshape);
  L.nb = numel(L.bshape);
  L.ninner = numel(L.ishape);
  return L;
}

int64_t scatter_table_slots(int64_t nb) {
  int64_t slots = 2;
  while (slots < 2 * nb) slots *= 2;
  return slots;
}

GatherKernel generate_gather(const cpu::GatherGeometry& g, size_t itemsize, const void* strided, void* contig) {
  GatherLayout L = plan_gather(g);
  SourceText s;
  emit_common(s, L, itemsize, L.n(), strided, contig);
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_gather(const nf_gparams p) {\n"
       "  const nf_elem* src = static_cast<const nf_elem*>(p.strided);\n"
       "  nf_elem* out = static_cast<nf_elem*>(p.contig);\n"
       "  NF_GRID_LOOP(i, p.n) {\n    nf_ix b;\n    const long long base = nf_split(p, i, b);\n"
       "    long long off, key;\n    if (nf_target(p, b, off, key)) out[i] = src[base + off];\n"
       "    else out[i] = nf_elem();\n  }\n}\n";
  GatherKernel k;
  k.body = s.str();
  k.params = layout_params(L, strided, contig, nullptr, 0, 0);
  append_index_params(k.params, L, g);
  k.n = L.n();
  k.nb = L.nb;
  return k;
}

GatherKernel generate_scatter(const cpu::GatherGeometry& g, size_t itemsize, void* strided,
                              const void* contig, void* table) {
  GatherLayout L = plan_gather(g);
  SourceText s;
  emit_common(s, L, itemsize, L.n(), strided, contig);
  emit_hash(s);
  // Claim: each B position raises its target's owner to itself, so the largest position of a
  // target wins: the last in C order, as NumPy's in-order CPU loop leaves it. The owner is found
  // directly (shift 0: the table is one owner per target of the indexed dims) or through an
  // open-addressing table (the key inserted by atomicCAS into an empty slot, linear probing).
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_scatter_claim(const nf_gparams p) {\n"
       "  unsigned long long* keys = static_cast<unsigned long long*>(p.table);\n"
       "  long long* owners = static_cast<long long*>(p.table) + (p.shift ? p.slots : 0);\n"
       "  const unsigned long long mask = (unsigned long long)p.slots - 1;\n"
       "  NF_GRID_LOOP(b, p.nb) {\n    long long off, key;\n    if (!nf_target(p, b, off, key)) continue;\n"
       "    if (!p.shift) {\n      atomicMax(owners + key, (long long)b);\n      continue;\n    }\n"
       "    unsigned long long h = nf_slot(p, key);\n    for (;;) {\n"
       "      const unsigned long long prev = atomicCAS(keys + h, ~0ull, (unsigned long long)key);\n"
       "      if (prev == ~0ull || prev == (unsigned long long)key) {\n"
       "        atomicMax(owners + h, (long long)b);\n        break;\n      }\n"
       "      h = (h + 1) & mask;\n    }\n  }\n}\n";
  // Write: an element is stored only by the owner of its target, so each target is written once.
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_scatter_write(const nf_gparams p) {\n"
       "  const unsigned long long* keys = static_cast<const unsigned long long*>(p.table);\n"
       "  const long long* owners = static_cast<const long long*>(p.table) + (p.shift ? p.slots : 0);\n"
       "  const unsigned long long mask = (unsigned long long)p.slots - 1;\n"
       "  nf_elem* dst = static_cast<nf_elem*>(p.strided);\n"
       "  const nf_elem* vals = static_cast<const nf_elem*>(p.contig);\n"
       "  NF_GRID_LOOP(i, p.n) {\n    nf_ix b;\n    const long long base = nf_split(p, i, b);\n"
       "    long long off, key;\n    if (!nf_target(p, b, off, key)) continue;\n"
       "    if (!p.shift) {\n      if (owners[key] == (long long)b) dst[base + off] = vals[i];\n      continue;\n    }\n"
       "    unsigned long long h = nf_slot(p, key);\n"
       "    while (keys[h] != (unsigned long long)key && keys[h] != ~0ull) h = (h + 1) & mask;\n"
       "    if (keys[h] == (unsigned long long)key && owners[h] == (long long)b) dst[base + off] = vals[i];\n"
       "  }\n}\n";
  GatherKernel k;
  k.body = s.str();
  // A direct owner array when it is no larger than the hash table would be.
  const int64_t slots = scatter_table_slots(L.nb);
  int64_t extent = 1;
  for (int64_t size : L.sizes) extent = size && extent > 2 * slots / size ? 2 * slots + 1 : extent * size;
  k.direct = extent <= 2 * slots;
  k.table_slots = k.direct ? extent : slots;
  k.table_bytes = static_cast<size_t>(k.table_slots) * (k.direct ? 8 : 16);
  int log2 = 0;
  while ((int64_t(1) << log2) < slots) ++log2;
  k.params = layout_params(L, strided, contig, table, k.table_slots, k.direct ? 0 : 64 - log2);
  append_index_params(k.params, L, g);
  k.n = L.n();
  k.nb = L.nb;
  return k;
}

void set_scatter_table(GatherKernel& k, void* table) { std::memcpy(k.params.data() + 16, &table, sizeof(table)); }

GatherKernel generate_nonzero_fill(const Shape& shape, const int64_t* pos, const std::vector<int64_t*>& outs) {
  const int nd = static_cast<int>(shape.size());
  if (nd < 1 || nd > kMaxNonzeroRank || outs.size() != shape.size()) {
    throw Error("nonzero on CUDA: bad rank " + std::to_string(nd));
  }
  const int64_t n = numel(shape);
  SourceText s;
  s << "\n// ---- nonzero positions\n";
  s << "typedef " << index_type(n) << " nf_ix;\n";
  s << "struct nf_nzparams {\n  const long long* pos;\n  long long n;\n  long long shape[" << nd
    << "];\n  long long* out[" << nd << "];\n};\n";
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_nonzero_fill(const nf_nzparams p) {\n"
       "  for (nf_ix i = (nf_ix)blockIdx.x * blockDim.x + threadIdx.x; i < (nf_ix)p.n;\n"
       "       i += (nf_ix)gridDim.x * blockDim.x) {\n"
       "    const long long c = p.pos[i];\n    if (c == (i ? p.pos[i - 1] : 0)) continue;\n"
       "    const long long k = c - 1;\n    nf_ix r = i;\n"
       "#pragma unroll\n    for (int d = " << nd - 1 << "; d > 0; --d) {\n"
       "      p.out[d][k] = (long long)(r % (nf_ix)p.shape[d]);\n      r /= (nf_ix)p.shape[d];\n    }\n"
       "    p.out[0][k] = (long long)r;\n  }\n}\n";
  GatherKernel k;
  k.body = s.str();
  append_param(k.params, static_cast<const void*>(pos));
  append_param(k.params, static_cast<long long>(n));
  for (int64_t v : shape) append_param(k.params, static_cast<long long>(v));
  for (int64_t* p : outs) append_param(k.params, static_cast<void*>(p));
  k.n = n;
  return k;
}

}  // namespace nf::cuda
