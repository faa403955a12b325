// ---- Stacks of small matrices, a group of NF_SM_N threads a matrix (appended to small_linalg.cuh,
// compiled with NF_SM_GROUP 1). Where one thread cannot hold a whole matrix in registers
// (complex128 8 x 8, anything 16 x 16: 256 or more registers, which spilled kilobytes a thread),
// each thread of the group holds one row. The block's matrices are staged through the tile as in
// the one-thread kernels, each row padded to an odd length so that the group's threads, reading
// a row each, do not share banks.

#if NF_SM_GROUP && NF_SM_OP == NF_SM_INV
// inv by Gauss-Jordan on [a | I] with getrf's partial pivoting (the largest |re| + |im| of the
// column among the rows not yet pivots, the first in LAPACK's row order among equals; a zero pivot
// gives getrf's info and is skipped). Rows never move: each thread keeps the position its row
// would have after LAPACK's swaps, and at the end writes its half of I, now inv(a)'s row there.
// A group lies within one warp (N <= 32): the pivot search is a butterfly of xor shuffles over the
// group, the pivot row goes through shared memory between warp barriers (every thread of the
// block runs every step, so the barriers and shuffles are uniform).
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS)
    nf_small_inv_group(const nf_sm_params p) {
  constexpr int G = NF_SM_N, MB = NF_SM_THREADS / NF_SM_N;  // threads a matrix, matrices a block
  __shared__ nf_t prow[MB][2 * G];                          // the step's pivot row, [a | I]
  const int n = p.n, nn = n * n, rs = n | 1;  // rows at an odd stride in the tile
  const int g = threadIdx.x / G, r = threadIdx.x % G;
  const long long first = static_cast<long long>(blockIdx.x) * MB, m = first + g;
  const long long left = p.batch - first;
  const int count = static_cast<int>(left < MB ? left : MB);
  const bool live = m < p.batch;
  nf_st* tile = nf_sm_tile();
  nf_sm_stage<true>(tile, const_cast<nf_st*>(p.a) + first * nn, count, nn, n);
  nf_st* slot = tile + g * n * rs;
  nf_t row[G], inv[G];
#pragma unroll
  for (int j = 0; j < G; ++j) {
    row[j] = live && r < n && j < n ? nf_t(slot[r * rs + j]) : nf_t(j == r ? 1 : 0);
    inv[j] = nf_t(j == r ? 1 : 0);
  }
  int pos = r, info = 0;
#pragma unroll
  for (int k = 0; k < G; ++k) {
    if (k < n) {  // the same for the whole block
      const nf_rt v = nf_sm_abs1(row[k]);
      nf_rt best = pos < k ? nf_rt(-1) : v == v ? v : nf_rt(0);  // a NaN pivots last
      int bp = pos;
#pragma unroll
      for (int off = G / 2; off > 0; off /= 2) {  // the group's largest, the first among equals
        const nf_rt ov = __shfl_xor_sync(0xffffffffu, best, off, G);
        const int op = __shfl_xor_sync(0xffffffffu, bp, off, G);
        if (ov > best || (ov == best && op < bp)) best = ov, bp = op;
      }
      const bool pivot = pos == bp;
      if (pos == k) pos = bp;  // LAPACK swaps rows k and bp
      if (pivot) {
        pos = k;
#pragma unroll
        for (int j = k; j < G; ++j) prow[g][j] = row[j];
#pragma unroll
        for (int j = 0; j < G; ++j) prow[g][G + j] = inv[j];
      }
      __syncwarp();
      const nf_t d = prow[g][k];
      if (d == nf_t(0)) {
        if (info == 0) info = k + 1;
      } else {
        const nf_t rd = nf_t(1) / d;
        if (pivot) {
#pragma unroll
          for (int j = k + 1; j < G; ++j) row[j] = row[j] * rd;
#pragma unroll
          for (int j = 0; j < G; ++j) inv[j] = inv[j] * rd;
        } else {
          const nf_t f = row[k] * rd;
#pragma unroll
          for (int j = k + 1; j < G; ++j) row[j] = row[j] - f * prow[g][j];
#pragma unroll
          for (int j = 0; j < G; ++j) inv[j] = inv[j] - f * prow[g][G + j];
        }
        row[k] = nf_t(pivot ? 1 : 0);
      }
      __syncwarp();  // prow is rewritten by the next step
    }
  }
  if (live && r == 0) nf_sm_report(p, m, info);
  if (live && r < n) {
#pragma unroll
    for (int j = 0; j < G; ++j) {
      if (j < n) slot[pos * rs + j] = nf_st(inv[j]);
    }
  }
  nf_sm_stage<false>(tile, static_cast<nf_st*>(p.out) + first * nn, count, nn, n);
}
#endif
