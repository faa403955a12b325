#include "numfuse/backend/cuda/codegen_gather.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "numfuse/backend/cuda/kernel_templates.h"
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

// What gather_common.cuh expects (the element type, the position type, the coalesced ranks),
// then that file: the parameter struct and the index helpers shared by gather and scatter.
void emit_common(SourceText& s, const GatherLayout& L, size_t itemsize, int64_t n, const void* strided,
                 const void* contig) {
  const size_t ro = L.oshape.size(), ri = L.ishape.size(), rb = L.bshape.size();
  s << "\n// ---- advanced indexing kernels\n";
  emit_element_type(s, itemsize, strided, contig);
  s << "typedef " << index_type(n) << " nf_ix;\n";
  s << "#define NF_RO " << ro << "\n#define NF_RI " << ri << "\n#define NF_RB " << rb << "\n#define NF_K "
    << L.sizes.size() << "\n";
  s << kernel_templates::gather_common;
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
  s << kernel_templates::gather;
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
  s << kernel_templates::scatter;
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
  s << "#define NF_ND " << nd << "\n";
  s << kernel_templates::nonzero_fill;
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
