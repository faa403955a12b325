// ---- Advanced indexing (gather and scatter): the parameter struct and the index helpers. Expects
// the generated nf_elem (how an element is copied), nf_ix (the position type) and the coalesced
// ranks NF_RO (outer dims), NF_RI (inner dims), NF_RB (index broadcast dims) and NF_K (index
// arrays). The host side lays the struct out in codegen_gather.cpp (layout_params).
#define NF_K1 (NF_K > 0 ? NF_K : 1)
struct nf_gparams {
  void* strided;
  void* contig;
  void* table;
  long long n;
  long long nb;
  long long ninner;
  long long slots;
  long long shift;
  long long oshape[NF_RO];
  long long ostride[NF_RO];
  long long ishape[NF_RI];
  long long istride[NF_RI];
  long long bshape[NF_RB];
  const long long* idx[NF_K1];
  long long bstride[NF_K1][NF_RB];
  long long size[NF_K1];
  long long astride[NF_K1];
  long long kmul[NF_K1];
};
// Offset of position i of a coalesced part (C order).
__device__ __forceinline__ long long nf_outer_offset(const nf_gparams& p, nf_ix i) {
  long long off = 0;
#pragma unroll
  for (int d = NF_RO - 1; d >= 0; --d) {
    const nf_ix c = i % (nf_ix)p.oshape[d];
    i /= (nf_ix)p.oshape[d];
    off += (long long)c * p.ostride[d];
  }
  return off;
}
__device__ __forceinline__ long long nf_inner_offset(const nf_gparams& p, nf_ix i) {
  long long off = 0;
#pragma unroll
  for (int d = NF_RI - 1; d >= 0; --d) {
    const nf_ix c = i % (nf_ix)p.ishape[d];
    i /= (nf_ix)p.ishape[d];
    off += (long long)c * p.istride[d];
  }
  return off;
}
// B position b -> the element offset the index arrays select (off) and the target's linear key
// over the indexed dims (key); false when an index is out of bounds (the host checked them all;
// this only keeps a kernel from ever touching memory outside the array).
__device__ __forceinline__ bool nf_target(const nf_gparams& p, nf_ix b, long long& off, long long& key) {
  long long io[NF_K1] = {};
#pragma unroll
  for (int d = NF_RB - 1; d >= 0; --d) {
    const nf_ix c = b % (nf_ix)p.bshape[d];
    b /= (nf_ix)p.bshape[d];
#pragma unroll
    for (int j = 0; j < NF_K; ++j) io[j] += (long long)c * p.bstride[j][d];
  }
  off = 0;
  key = 0;
#pragma unroll
  for (int j = 0; j < NF_K; ++j) {
    long long v = p.idx[j][io[j]];
    if (v < 0) v += p.size[j];
    if (v < 0 || v >= p.size[j]) return false;
    off += v * p.astride[j];
    key += v * p.kmul[j];
  }
  return true;
}
// Result / value position i -> (outer, b, inner) and the strided element's offset apart from the
// index arrays' part.
__device__ __forceinline__ long long nf_split(const nf_gparams& p, nf_ix i, nf_ix& b) {
  const nf_ix in = i % (nf_ix)p.ninner;
  i /= (nf_ix)p.ninner;
  b = i % (nf_ix)p.nb;
  const nf_ix o = i / (nf_ix)p.nb;
  return nf_outer_offset(p, o) + nf_inner_offset(p, in);
}
#define NF_GRID_LOOP(i, n) for (nf_ix i = (nf_ix)blockIdx.x * blockDim.x + threadIdx.x; i < (nf_ix)(n); i += (nf_ix)gridDim.x * blockDim.x)
