// ---- The reduction kernels, for plain and fused reductions alike. The generator (reduce_kernels()
// in codegen_reduce.cpp) defines NF_REDUCE_SCHEME (0: a warp per output; 1: a thread per output;
// 2: one or more blocks per output, then nf_reduce_partials over the blocks' partial results) and
// fills each placeholder (fill_template in source_text.h):
//   setup       the output's state from its index o (where its elements start)
//   element     the accumulator of reduced element r, an expression
//   block_loop  scheme 2's accumulation of the block's share of the elements into acc
// Expects nf_rparams (partial, nout, nred, bpo), nf_acc, nf_identity, nf_combine, nf_finish (store
// output o's result), reduce_tree.cuh and nf_ri: the index type of outputs, reduced elements and
// their offsets (int when the whole input space fits 32-bit indices, else long long).
#if NF_REDUCE_SCHEME == 0
extern "C" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {
  const long long o64 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (o64 >= p.nout) return;
  const nf_ri o = nf_ri(o64);
${setup}  nf_acc acc = nf_identity(p);
  for (nf_ri r = lane; r < nf_ri(p.nred); r += 32) acc = nf_combine(acc, ${element});
  acc = nf_warp_reduce(acc);
  if (lane == 0) nf_finish(p, o, acc);
}
#elif NF_REDUCE_SCHEME == 1
extern "C" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {
  for (nf_ri o = nf_ri(blockIdx.x) * blockDim.x + threadIdx.x; o < nf_ri(p.nout);
       o += nf_ri(gridDim.x) * blockDim.x) {
${setup}    nf_acc acc = nf_identity(p);
    for (nf_ri r = 0; r < nf_ri(p.nred); ++r) acc = nf_combine(acc, ${element});
    nf_finish(p, o, acc);
  }
}
#else
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_reduce_main)
extern "C" __global__ void __launch_bounds__(256) nf_reduce_main(const nf_rparams p) {
  const nf_ri o = nf_ri(blockIdx.x / unsigned(p.bpo)), part = nf_ri(blockIdx.x % unsigned(p.bpo));
${setup}  nf_acc acc = nf_identity(p);
${block_loop}  acc = nf_block_reduce(acc);
  if (threadIdx.x == 0) {
    if (p.bpo == 1) nf_finish(p, o, acc);
    else static_cast<nf_acc*>(p.partial)[blockIdx.x] = acc;
  }
}
#endif
// Second pass: one block per output over its partial results, in order.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_reduce_partials)
extern "C" __global__ void __launch_bounds__(256) nf_reduce_partials(const nf_rparams p) {
  const long long o = blockIdx.x;
  nf_acc acc = nf_identity(p);
  const nf_acc* part = static_cast<const nf_acc*>(p.partial) + o * p.bpo;
  for (long long r = threadIdx.x; r < p.bpo; r += blockDim.x) acc = nf_combine(acc, part[r]);
  acc = nf_block_reduce(acc);
  if (threadIdx.x == 0) nf_finish(p, o, acc);
}
#endif
#endif
