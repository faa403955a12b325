// ---- The skeleton of every fused elementwise kernel. elementwise_body() (codegen_elementwise.cpp)
// declares nf_params and nf_idx, defines NF_VEC (elements per thread) and NF_LOOP (0: one element
// per iteration; 1: contiguous, NF_VEC elements through one vector load and store, then the tail
// one element at a time; 2: strided, runs of NF_VEC neighbours at unit stride in every operand)
// and fills each placeholder (a dollar sign and a name in braces; fill_template in source_text.h)
// with what depends on the program:
//   per_thread     operands loaded once per thread (host scalars, broadcast elements)
//   offsets        the operands' element offsets for position i; run_offsets for i * NF_VEC
//   body           element i: loads, the program's steps, stores
//   vec_loads      the operands' NF_VEC elements at vector b (NF_LOOP 1) or at the run's offsets
//   uniform_pairs  random draws made two at a time for the vector
//   vec_body       lane k: the program's steps on the loaded lanes
//   vec_stores     the outputs' NF_VEC lanes
// Grid-stride loops: any grid covers any size.
extern "C" __global__ void __launch_bounds__(256) nf_fused(const nf_params p) {
${per_thread}  const nf_idx stride = nf_idx(gridDim.x) * blockDim.x;
  nf_idx i = nf_idx(blockIdx.x) * blockDim.x + threadIdx.x;
#if NF_LOOP == 1
  const nf_idx nvec = nf_idx(p.n / NF_VEC);
  for (nf_idx b = i; b < nvec; b += stride) {
${vec_loads}${uniform_pairs}#pragma unroll
    for (int k = 0; k < NF_VEC; ++k) {
${vec_body}    }
${vec_stores}  }
  i += nvec * NF_VEC;
#endif
#if NF_LOOP == 2
  for (; i < nf_idx(p.n / NF_VEC); i += stride) {
${run_offsets}${vec_loads}#pragma unroll
    for (int k = 0; k < NF_VEC; ++k) {
${vec_body}    }
${vec_stores}  }
#else
  for (; i < p.n; i += stride) {
${offsets}${body}  }
#endif
}
