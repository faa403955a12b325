// ---- nonzero: from the inclusive count of non-zero elements (pos), each non-zero element's
// coordinates into the NF_ND output index arrays. Expects the generated nf_ix and NF_ND.
struct nf_nzparams {
  const long long* pos;
  long long n;
  long long shape[NF_ND];
  long long* out[NF_ND];
};
extern "C" __global__ void __launch_bounds__(256) nf_nonzero_fill(const nf_nzparams p) {
  for (nf_ix i = (nf_ix)blockIdx.x * blockDim.x + threadIdx.x; i < (nf_ix)p.n;
       i += (nf_ix)gridDim.x * blockDim.x) {
    const long long c = p.pos[i];
    if (c == (i ? p.pos[i - 1] : 0)) continue;
    const long long k = c - 1;
    nf_ix r = i;
#pragma unroll
    for (int d = NF_ND - 1; d > 0; --d) {
      p.out[d][k] = (long long)(r % (nf_ix)p.shape[d]);
      r /= (nf_ix)p.shape[d];
    }
    p.out[0][k] = (long long)r;
  }
}
