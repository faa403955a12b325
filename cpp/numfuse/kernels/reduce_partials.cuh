// ---- Second pass of a reduction spread over several blocks per output: one block per output
// over its partial results, in order. Expects the generated nf_rparams (partial, bpo), nf_acc,
// nf_identity, nf_combine, nf_finish (store the result of output o) and reduce_tree.cuh.
extern "C" __global__ void __launch_bounds__(256) nf_reduce_partials(const nf_rparams p) {
  const long long o = blockIdx.x;
  nf_acc acc = nf_identity(p);
  const nf_acc* part = static_cast<const nf_acc*>(p.partial) + o * p.bpo;
  for (long long r = threadIdx.x; r < p.bpo; r += blockDim.x) acc = nf_combine(acc, part[r]);
  acc = nf_block_reduce(acc);
  if (threadIdx.x == 0) nf_finish(p, o, acc);
}
