// ---- Integer and bool matrix products: a 16 x 16 tiled kernel reading any strides. Expects the
// generated nf_T (the dtype), nf_acc, nf_load, nf_step, nf_store and IntGemmParams (the struct
// of codegen_matmul.h). Grid-stride over batch (z), tile rows (y) and tile columns (x): every
// bound is uniform over the block, so all its threads reach each __syncthreads together.
extern "C" __global__ void __launch_bounds__(256) nf_int_gemm(const IntGemmParams p) {
  __shared__ nf_acc as[16][17];
  __shared__ nf_acc bs[16][17];
  const nf_T* a = (const nf_T*)p.a;
  const nf_T* b = (const nf_T*)p.b;
  nf_T* c = (nf_T*)p.c;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (long long z = blockIdx.z; z < p.batch; z += gridDim.z) {
    long long rem = z, oa = 0, ob = 0;
    for (int d = (int)p.nbatch - 1; d >= 0; --d) {
      const long long i = rem % p.bshape[d];
      rem /= p.bshape[d];
      oa += i * p.abstride[d];
      ob += i * p.bbstride[d];
    }
    for (long long ti = (long long)blockIdx.y * 16; ti < p.M; ti += (long long)gridDim.y * 16) {
      for (long long tj = (long long)blockIdx.x * 16; tj < p.N; tj += (long long)gridDim.x * 16) {
        const long long i = ti + ty, j = tj + tx;
        nf_acc acc = 0;
        for (long long k0 = 0; k0 < p.K; k0 += 16) {
          as[ty][tx] = (i < p.M && k0 + tx < p.K) ? nf_load(a[oa + i * p.ars + (k0 + tx) * p.acs]) : nf_acc(0);
          bs[ty][tx] = (k0 + ty < p.K && j < p.N) ? nf_load(b[ob + (k0 + ty) * p.brs + j * p.bcs]) : nf_acc(0);
          __syncthreads();
#pragma unroll
          for (int kk = 0; kk < 16; ++kk) acc = nf_step(acc, as[ty][kk], bs[kk][tx]);
          __syncthreads();
        }
        if (i < p.M && j < p.N) c[(z * p.M + i) * p.N + j] = nf_store(acc);
      }
    }
  }
}
