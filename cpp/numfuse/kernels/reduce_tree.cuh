// ---- Reductions across a warp and a block, for any accumulator. Expects the generated nf_acc
// (the accumulator type) and nf_combine(nf_acc, nf_acc).
// Warp shuffle of any accumulator, word by word.
template <class T> __device__ __forceinline__ T nf_shfl_down(T v, int d) {
  constexpr int W = (sizeof(T) + 3) / 4;
  unsigned w[W] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], d);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}
__device__ __forceinline__ nf_acc nf_warp_reduce(nf_acc a) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) a = nf_combine(a, nf_shfl_down(a, d));
  return a;
}
// Block tree through shared memory: works for every accumulator type.
__device__ nf_acc nf_block_reduce(nf_acc a) {
  __shared__ unsigned char raw[256 * sizeof(nf_acc)];
  nf_acc* buf = reinterpret_cast<nf_acc*>(raw);
  buf[threadIdx.x] = a;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) buf[threadIdx.x] = nf_combine(buf[threadIdx.x], buf[threadIdx.x + w]);
    __syncthreads();
  }
  return buf[0];
}
