// ---- Gather: out[i] = the strided element that result position i selects (after
// gather_common.cuh).
extern "C" __global__ void __launch_bounds__(256) nf_gather(const nf_gparams p) {
  const nf_elem* src = static_cast<const nf_elem*>(p.strided);
  nf_elem* out = static_cast<nf_elem*>(p.contig);
  NF_GRID_LOOP(i, p.n) {
    nf_ix b;
    const long long base = nf_split(p, i, b);
    long long off, key;
    if (nf_target(p, b, off, key)) out[i] = src[base + off];
    else out[i] = nf_elem();
  }
}
