// ---- Stacks of small matrices, a group of NF_SM_N threads a matrix (appended to small_linalg.cuh,
// compiled with NF_SM_GROUP 1). Where one thread cannot hold a whole matrix in registers
// (complex128 8 x 8, anything 16 x 16: 256 or more registers, which spilled kilobytes a thread),
// each thread of the group holds one row. The block's matrices are staged through the tile as in
// the one-thread kernels, each row padded to an odd length so that the group's threads, reading
// a row each, do not share banks.

#if NF_SM_GROUP
// inv, solve: Gauss-Jordan on [a | I] or [a | b] (b's nrhs <= N columns); det, slogdet: the same
// elimination below the pivots only (LU), the determinant from the pivots. getrf's partial
// pivoting: the largest |re| + |im| of the column among the rows not yet pivots, the first in
// LAPACK's row order among equals; a zero pivot gives getrf's info and is skipped. Rows never
// move: each thread keeps the position its row would have after LAPACK's swaps, and at the end
// writes its row of the right-hand part (inv(a)'s or x's row there). A group lies within one warp
// (N <= 32): the pivot search is a butterfly of xor shuffles over the group, the pivot row goes
// through shared memory between warp barriers (every thread of the block runs every step, so the
// barriers and shuffles are uniform).
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_group(const nf_sm_params p) {
  constexpr int G = NF_SM_N, MB = NF_SM_THREADS / NF_SM_N;  // threads a matrix, matrices a block
  constexpr bool kDet = NF_SM_OP == NF_SM_DET, kSolve = NF_SM_OP == NF_SM_SOLVE;
  __shared__ nf_t prow[MB][2 * G];  // the step's pivot row, [a | right-hand part]
  const int n = nf_sm_n(p), nn = n * n, rs = n | 1;     // rows at an odd stride in the tile
  const int w = kSolve ? nf_sm_nrhs(p) : kDet ? 0 : n;  // right-hand columns
  const int g = threadIdx.x / G, r = threadIdx.x % G;
  const long long first = static_cast<long long>(blockIdx.x) * MB, m = first + g;
  const long long left = p.batch - first;
  const int count = static_cast<int>(left < MB ? left : MB);
  const bool live = m < p.batch;
  nf_st* tile = nf_sm_tile();
  nf_sm_stage<true>(tile, const_cast<nf_st*>(p.a) + first * nn, count, nn, n);
  const nf_st* slot = tile + g * n * rs;
  nf_t row[G], rhs[G];
#pragma unroll
  for (int j = 0; j < G; ++j) {
    row[j] = live && r < n && j < n ? nf_t(slot[r * rs + j]) : nf_t(j == r ? 1 : 0);
    rhs[j] = nf_t(!kSolve && j == r ? 1 : 0);
  }
  const int ws = w | 1;  // b's and x's rows in the tile
  if (kSolve) {
    __syncthreads();  // every thread has read its row of a
    nf_sm_stage<true>(tile, const_cast<nf_st*>(p.b) + first * n * w, count, n * w, w);
#pragma unroll
    for (int j = 0; j < G; ++j) {
      if (live && r < n && j < w) rhs[j] = nf_t(tile[g * n * ws + r * ws + j]);
    }
  }
  int pos = r, info = 0, swaps = 0;
  nf_rt logdet = nf_rt(0);
  nf_t phase = nf_t(1);  // the determinant's sign (a unit complex number for complex)
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
      swaps += bp != k;
      const bool pivot = pos == bp;
      if (pos == k) pos = bp;  // LAPACK swaps rows k and bp
      if (pivot) {
        pos = k;
#pragma unroll
        for (int j = k; j < G; ++j) prow[g][j] = row[j];
#pragma unroll
        for (int j = 0; j < G; ++j) prow[g][G + j] = rhs[j];
      }
      __syncwarp();
      const nf_t d = prow[g][k];
      if (kDet) {
        const nf_rt mag = nf_sm_abs(d);
        phase = phase * (d / nf_t(mag));
        logdet += nf::m::log(mag);
      }
      if (d == nf_t(0)) {
        if (info == 0) info = k + 1;
      } else if (!(kDet && pos <= k)) {  // det: only the rows below the pivot
        const nf_t rd = nf_t(1) / d;
        if (pivot) {
#pragma unroll
          for (int j = k + 1; j < G; ++j) row[j] = row[j] * rd;
#pragma unroll
          for (int j = 0; j < G; ++j) {
            if (j < w) rhs[j] = rhs[j] * rd;
          }
        } else {
          const nf_t f = row[k] * rd;
#pragma unroll
          for (int j = k + 1; j < G; ++j) row[j] = row[j] - f * prow[g][j];
#pragma unroll
          for (int j = 0; j < G; ++j) {
            if (j < w) rhs[j] = rhs[j] - f * prow[g][G + j];
          }
        }
        row[k] = nf_t(pivot ? 1 : 0);
      }
      __syncwarp();  // prow is rewritten by the next step
    }
  }
  if (kDet) {  // det never fails: a zero pivot gives 0 (sign 0, logabsdet -inf), as NumPy's
    if (live && r == 0) {
      nf_t sign = (swaps & 1) ? nf_t(0) - phase : phase;
      if (info != 0) {
        sign = nf_t(0);
        logdet = -nf::m::inf(nf_rt(0));
      }
      if (p.flags & 1) {
        static_cast<nf_st*>(p.out)[m] = nf_st(sign);
        static_cast<nf_srt*>(p.out2)[m] = nf_srt(logdet);
      } else {
        static_cast<nf_st*>(p.out)[m] = nf_st(sign * nf_t(nf::m::exp(logdet)));
      }
    }
    return;  // no barrier follows
  }
  if (live && r == 0) nf_sm_report(p, m, info);
  nf_sm_factored(p, live && r == 0 && info != 0);
  const int ow = kSolve ? ws : rs;  // the right-hand part's rows in the tile
  if (live && r < n) {
#pragma unroll
    for (int j = 0; j < G; ++j) {
      if (j < w) tile[g * n * ow + pos * ow + j] = nf_st(rhs[j]);
    }
  }
  nf_sm_stage<false>(tile, static_cast<nf_st*>(p.out) + first * n * w, count, n * w, w);
}
#endif
