#include "numfuse/backend/cuda/codegen_gather.h"

#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

// The grid-stride loop every kernel here runs over [0, count).
std::string grid_loop(const char* var, const char* count) {
  return std::string("  for (long long ") + var + " = (long long)blockIdx.x * blockDim.x + threadIdx.x; " + var +
         " < " + count + "; " + var + " += (long long)gridDim.x * blockDim.x) {\n";
}

// Statements adding the strided offset of C-order position `pos` over `rank` dims (fields
// shape[], stride[] of p) to `acc`; `pos` is consumed.
void emit_unravel(SourceText& s, const char* ind, const char* pos, const char* shape, const char* stride,
                  const char* acc, int rank) {
  for (int d = rank - 1; d >= 0; --d) {
    s << ind << "{ const long long c = " << pos << " % p." << shape << "[" << d << "]; " << pos << " /= p."
      << shape << "[" << d << "]; " << acc << " += c * p." << stride << "[" << d << "]; }\n";
  }
}

const char* item_type(size_t itemsize) {
  switch (itemsize) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "unsigned long long";
    case 16: return "nf_b16";
  }
  throw Error("advanced indexing on CUDA: unsupported item size " + std::to_string(itemsize));
}

void put(std::vector<uint8_t>& b, int64_t v) { append_param(b, static_cast<long long>(v)); }
void put(std::vector<uint8_t>& b, const void* p) { append_param(b, p); }
void put_dims(std::vector<uint8_t>& b, const Shape& shape, const Strides& strides) {
  for (int64_t v : shape) put(b, v);
  for (int64_t v : strides) put(b, v);
}

}  // namespace

void coalesce_dims(Shape* shape, Strides* strides) {
  Shape s;
  Strides t;
  for (size_t d = 0; d < shape->size(); ++d) {
    if ((*shape)[d] == 1) continue;
    if (!s.empty() && t.back() == (*strides)[d] * (*shape)[d]) {
      s.back() *= (*shape)[d];
      t.back() = (*strides)[d];
    } else {
      s.push_back((*shape)[d]);
      t.push_back((*strides)[d]);
    }
  }
  *shape = std::move(s);
  *strides = std::move(t);
}

std::string index_offsets_body(int rank) {
  SourceText s;
  s << "\n// ---- advanced indexing: offsets of the index arrays' positions\n"
       "struct nf_oparams {\n  const long long* idx;\n  long long* boff;\n  long long* blin;\n"
       "  long long nb;\n  long long size;\n  long long stride;\n  long long mult;\n  long long first;\n";
  if (rank > 0) s << "  long long shape[" << rank << "];\n  long long istride[" << rank << "];\n";
  s << "};\n"
       "extern \"C\" __global__ void __launch_bounds__(256) nf_index_offsets(const nf_oparams p) {\n"
    << grid_loop("b", "p.nb") << "    long long q = b, at = 0;\n";
  emit_unravel(s, "    ", "q", "shape", "istride", "at", rank);
  s << "    long long v = p.idx[at];\n    if (v < 0) v += p.size;\n"
       // The host checked the bounds before; this only keeps a kernel inside its memory.
       "    if (v < 0 || v >= p.size) v = 0;\n"
       "    if (p.first) {\n      p.boff[b] = v * p.stride;\n      if (p.blin) p.blin[b] = v * p.mult;\n"
       "    } else {\n      p.boff[b] += v * p.stride;\n      if (p.blin) p.blin[b] += v * p.mult;\n    }\n"
       "  }\n}\n";
  return s.str();
}

std::vector<uint8_t> index_offsets_params(const void* idx, void* boff, void* blin, int64_t nb, int64_t size,
                                          int64_t stride, int64_t mult, bool first, const Shape& shape,
                                          const Strides& strides) {
  std::vector<uint8_t> b;
  put(b, idx);
  put(b, boff);
  put(b, blin);
  for (int64_t v : {nb, size, stride, mult, int64_t(first)}) put(b, v);
  put_dims(b, shape, strides);
  return b;
}

std::string gather_body(size_t itemsize, int outer_rank, int inner_rank) {
  SourceText s;
  s << "\n// ---- advanced indexing: gather and scatter\n"
       "struct nf_b16 { unsigned long long lo, hi; };\n"
       "typedef " << item_type(itemsize) << " nf_item;\n"
       "struct nf_gparams {\n  const void* src;\n  void* dst;\n  const long long* boff;\n"
       "  const long long* keep;\n  long long n;\n  long long nb;\n  long long ninner;\n";
  if (outer_rank > 0) s << "  long long oshape[" << outer_rank << "];\n  long long ostride[" << outer_rank << "];\n";
  if (inner_rank > 0) s << "  long long ishape[" << inner_rank << "];\n  long long istride[" << inner_rank << "];\n";
  s << "};\n";
  // Position r of outer x B x inner (C order) -> its strided offset and its b.
  s << "__device__ __forceinline__ long long nf_offset(const nf_gparams& p, long long r, long long* b) {\n"
       "  long long row = r / p.ninner, i = r - row * p.ninner;\n"
       "  long long o = row / p.nb;\n  *b = row - o * p.nb;\n  long long off = p.boff[*b];\n";
  emit_unravel(s, "  ", "o", "oshape", "ostride", "off", outer_rank);
  emit_unravel(s, "  ", "i", "ishape", "istride", "off", inner_rank);
  s << "  return off;\n}\n";
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_gather(const nf_gparams p) {\n"
       "  const nf_item* __restrict__ src = static_cast<const nf_item*>(p.src);\n"
       "  nf_item* __restrict__ dst = static_cast<nf_item*>(p.dst);\n"
    << grid_loop("r", "p.n") << "    long long b;\n    const long long off = nf_offset(p, r, &b);\n"
       "    dst[r] = src[off];\n  }\n}\n";
  s << "extern \"C\" __global__ void __launch_bounds__(256) nf_scatter(const nf_gparams p) {\n"
       "  const nf_item* vals = static_cast<const nf_item*>(p.src);\n"
       "  nf_item* dst = static_cast<nf_item*>(p.dst);\n"
    << grid_loop("r", "p.n") << "    long long b;\n    const long long off = nf_offset(p, r, &b);\n"
       "    if (p.keep[b]) dst[off] = vals[r];\n  }\n}\n";
  return s.str();
}

std::vector<uint8_t> gather_params(const void* src, void* dst, const void* boff, const void* keep, int64_t n,
                                   int64_t nb, int64_t ninner, const Shape& outer_shape,
                                   const Strides& outer_strides, const Shape& inner_shape,
                                   const Strides& inner_strides) {
  std::vector<uint8_t> b;
  put(b, src);
  put(b, dst);
  put(b, boff);
  put(b, keep);
  for (int64_t v : {n, nb, ninner}) put(b, v);
  put_dims(b, outer_shape, outer_strides);
  put_dims(b, inner_shape, inner_strides);
  return b;
}

std::string scatter_select_body() {
  SourceText s;
  s << "\n// ---- advanced indexing: the last of repeated indices wins\n"
       "struct nf_dparams {\n  long long* blin;\n  unsigned long long* keys;\n  unsigned long long* vals;\n"
       "  long long nb;\n  unsigned long long mask;\n};\n"
       // splitmix64's finaliser: neighbouring linear indices land far apart.
       "__device__ __forceinline__ unsigned long long nf_hash(unsigned long long x) {\n"
       "  x ^= x >> 30;\n  x *= 0xbf58476d1ce4e5b9ull;\n  x ^= x >> 27;\n  x *= 0x94d049bb133111ebull;\n"
       "  return x ^ (x >> 31);\n}\n"
       "extern \"C\" __global__ void __launch_bounds__(256) nf_scatter_claim(const nf_dparams p) {\n"
    << grid_loop("b", "p.nb")
    << "    const unsigned long long key = (unsigned long long)p.blin[b];\n"
       "    unsigned long long h = nf_hash(key) & p.mask;\n"
       "    for (;;) {\n"
       "      const unsigned long long prev = atomicCAS(p.keys + h, ~0ull, key);\n"
       "      if (prev == ~0ull || prev == key) {\n"
       "        atomicMax(p.vals + h, (unsigned long long)(b + 1));\n        break;\n      }\n"
       "      h = (h + 1) & p.mask;\n    }\n  }\n}\n"
       "extern \"C\" __global__ void __launch_bounds__(256) nf_scatter_mark(const nf_dparams p) {\n"
    << grid_loop("b", "p.nb")
    << "    const unsigned long long key = (unsigned long long)p.blin[b];\n"
       "    unsigned long long h = nf_hash(key) & p.mask;\n"
       "    while (p.keys[h] != key) h = (h + 1) & p.mask;\n"
       "    p.blin[b] = p.vals[h] == (unsigned long long)(b + 1) ? 1 : 0;\n  }\n}\n";
  return s.str();
}

std::vector<uint8_t> scatter_select_params(void* blin, void* keys, void* vals, int64_t nb, uint64_t mask) {
  std::vector<uint8_t> b;
  put(b, blin);
  put(b, keys);
  put(b, vals);
  put(b, nb);
  append_param(b, static_cast<unsigned long long>(mask));
  return b;
}

std::string nonzero_body(int ndim) {
  if (ndim < 1) throw ValueError("nonzero: a 0-d array has no coordinates");
  SourceText s;
  s << "\n// ---- nonzero: coordinates of the elements where the cumulative count steps\n"
       "struct nf_nzparams {\n  const long long* pos;\n  long long n;\n  long long* out[" << ndim
    << "];\n  long long shape[" << ndim << "];\n};\n"
       "extern \"C\" __global__ void __launch_bounds__(256) nf_nonzero(const nf_nzparams p) {\n"
    << grid_loop("i", "p.n")
    << "    const long long c = p.pos[i];\n"
       "    if (c == (i > 0 ? p.pos[i - 1] : 0)) continue;\n"
       "    long long q = i;\n";
  for (int d = ndim - 1; d >= 0; --d) {
    s << "    p.out[" << d << "][c - 1] = q % p.shape[" << d << "];\n";
    if (d > 0) s << "    q /= p.shape[" << d << "];\n";
  }
  s << "  }\n}\n";
  return s.str();
}

std::vector<uint8_t> nonzero_params(const void* pos, int64_t n, const std::vector<void*>& outs,
                                    const Shape& shape) {
  std::vector<uint8_t> b;
  put(b, pos);
  put(b, n);
  for (void* o : outs) put(b, static_cast<const void*>(o));
  for (int64_t v : shape) put(b, v);
  return b;
}

namespace {

int64_t blocks_for(int64_t n) { return (n + 255) / 256; }

// One launch per index array: the first assigns, the others add.
void add_offset_launches(std::vector<KernelLaunch>& out, const cpu::GatherGeometry& g, void* boff, void* blin) {
  const int64_t nb = numel(g.bshape);
  const size_t k = g.indices.size();
  for (size_t j = 0; j < k; ++j) {
    const Array& idx = g.indices[j];
    if (idx.dtype != DType::Int64) throw Error("advanced indexing on CUDA: index arrays must be int64");
    Shape shape = g.bshape;
    Strides strides = broadcast_strides(idx.shape, idx.strides, g.bshape);
    coalesce_dims(&shape, &strides);
    int64_t mult = 1;  // C order over the indexed dims: blin names one element of them
    for (size_t m = j + 1; m < k; ++m) mult *= g.adv_sizes[m];
    out.push_back({index_offsets_body(static_cast<int>(shape.size())), "nf_index_offsets", blocks_for(nb),
                   index_offsets_params(idx.data(), boff, blin, nb, g.adv_sizes[j], g.adv_strides[j], mult,
                                        j == 0, shape, strides)});
  }
}

// nf_gather or nf_scatter between the strided array and the contiguous one.
KernelLaunch geometry_launch(const char* entry, const cpu::GatherGeometry& g, const void* src, void* dst,
                             const void* boff, const void* keep, size_t itemsize) {
  Shape oshape = g.outer_shape, ishape = g.inner_shape;
  Strides ostrides = g.outer_strides, istrides = g.inner_strides;
  const int64_t ninner = numel(ishape), n = numel(oshape) * numel(g.bshape) * ninner;
  coalesce_dims(&oshape, &ostrides);
  coalesce_dims(&ishape, &istrides);
  return {gather_body(itemsize, static_cast<int>(oshape.size()), static_cast<int>(ishape.size())), entry,
          blocks_for(n),
          gather_params(src, dst, boff, keep, n, numel(g.bshape), ninner, oshape, ostrides, ishape, istrides)};
}

}  // namespace

std::vector<KernelLaunch> gather_launches(const cpu::GatherGeometry& g, const void* src, void* out,
                                          size_t itemsize, void* boff) {
  std::vector<KernelLaunch> l;
  add_offset_launches(l, g, boff, nullptr);
  l.push_back(geometry_launch("nf_gather", g, src, out, boff, nullptr, itemsize));
  return l;
}

int64_t scatter_slots(int64_t nb) {
  int64_t slots = 64;
  while (slots < 2 * nb) slots <<= 1;
  return slots;
}

std::vector<KernelLaunch> scatter_launches(const cpu::GatherGeometry& g, const void* values, void* dst,
                                           size_t itemsize, void* boff, void* keep, void* keys, void* vals) {
  const int64_t nb = numel(g.bshape);
  std::vector<KernelLaunch> l;
  add_offset_launches(l, g, boff, keep);
  if (!g.indices.empty()) {
    const std::vector<uint8_t> sel = scatter_select_params(keep, keys, vals, nb, uint64_t(scatter_slots(nb)) - 1);
    l.push_back({scatter_select_body(), "nf_scatter_claim", blocks_for(nb), sel});
    l.push_back({scatter_select_body(), "nf_scatter_mark", blocks_for(nb), sel});
  }
  l.push_back(geometry_launch("nf_scatter", g, values, dst, boff, keep, itemsize));
  return l;
}

KernelLaunch nonzero_launch(const void* pos, int64_t n, const std::vector<void*>& outs, const Shape& shape) {
  return {nonzero_body(static_cast<int>(shape.size())), "nf_nonzero", blocks_for(n),
          nonzero_params(pos, n, outs, shape)};
}

}  // namespace nf::cuda
