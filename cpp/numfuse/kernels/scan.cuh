// ---- Scan kernels (cumsum, cumprod) along one axis. Expects the generated nf_t (stored type),
// NF_SCAN_THREADS, NF_SCAN_ITEMS, NF_SCAN_TILE, nf_sparams, nf_step(a, b) (one step, rounded to
// nf_t as NumPy's accumulate stores each result) and nf_line_in(p, l) (where line l starts in the
// input). Launched by scan_launches() in codegen_scan.cpp.

// One padding slot every 32 elements: the threads of a warp reading their own run of
// NF_SCAN_ITEMS neighbours then hit different shared-memory banks.
#define NF_PAD(k) ((k) + ((k) >> 5))

// The output is C-contiguous: line l is (outer o, inner i), its first element o*n*inner + i.
__device__ __forceinline__ long long nf_line_out(const nf_sparams& p, long long l) {
  const long long o = l / p.inner;
  return o * p.n * p.inner + (l - o * p.inner);
}

// Hillis-Steele over the block: the earlier value always on the left of nf_step.
__device__ __forceinline__ nf_t nf_block_scan(nf_t v, nf_t* buf) {
  const int t = threadIdx.x;
  buf[t] = v;
  __syncthreads();
  for (int d = 1; d < NF_SCAN_THREADS; d <<= 1) {
    const nf_t prev = t >= d ? buf[t - d] : v;
    __syncthreads();
    if (t >= d) v = nf_step(prev, v);
    buf[t] = v;
    __syncthreads();
  }
  return v;
}

// A thread per line, in order: NumPy's association exactly. Loads come in batches so that
// several are in flight while the additions wait on each other.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scan_lines)
extern "C" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_lines(const nf_sparams p) {
  const nf_t* __restrict__ in = static_cast<const nf_t*>(p.in);
  nf_t* __restrict__ out = static_cast<nf_t*>(p.out);
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < p.lines;
       l += (long long)gridDim.x * blockDim.x) {
    const nf_t* src = in + nf_line_in(p, l);
    nf_t* dst = out + nf_line_out(p, l);
    nf_t acc = src[0];
    dst[0] = acc;
    for (long long k0 = 1; k0 < p.n; k0 += NF_SCAN_ITEMS) {
      nf_t x[NF_SCAN_ITEMS];
#pragma unroll
      for (int j = 0; j < NF_SCAN_ITEMS; ++j) if (k0 + j < p.n) x[j] = src[(k0 + j) * p.astride];
#pragma unroll
      for (int j = 0; j < NF_SCAN_ITEMS; ++j) {
        if (k0 + j < p.n) {
          acc = nf_step(acc, x[j]);
          dst[(k0 + j) * p.inner] = acc;
        }
      }
    }
  }
}
#endif

// One tile (block `bid` = line * tiles + tile). Loads are striped across the block (neighbouring
// threads read neighbouring elements) into shared memory; each thread then takes its run of
// NF_SCAN_ITEMS elements. kTotals: only the tile's total, into partial[bid]. Else the scan, each
// thread starting from its carry: the tile's (partial[bid - 1], the inclusive scan of the earlier
// tiles of the line) and the earlier threads' totals.
template <bool kTotals>
__device__ __forceinline__ void nf_scan_tile(const nf_sparams& p, long long bid, nf_t* sh, nf_t* buf) {
  const nf_t* __restrict__ in = static_cast<const nf_t*>(p.in);
  nf_t* partial = static_cast<nf_t*>(p.partial);
  const int t = threadIdx.x;
  const long long line = bid / p.tiles, tile = bid - line * p.tiles;
  const long long k0 = tile * NF_SCAN_TILE;
  const long long left = p.n - k0;
  const int cnt = left < NF_SCAN_TILE ? (int)left : NF_SCAN_TILE;
  const nf_t* src = in + nf_line_in(p, line) + k0 * p.astride;
  __syncthreads();  // the block's previous tile is done with sh and buf
#pragma unroll
  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {
    const int k = j * NF_SCAN_THREADS + t;
    if (k < cnt) sh[NF_PAD(k)] = src[k * p.astride];
  }
  __syncthreads();
  const int first = t * NF_SCAN_ITEMS;
  const int mine = cnt - first < 0 ? 0 : (cnt - first < NF_SCAN_ITEMS ? cnt - first : NF_SCAN_ITEMS);
  nf_t x[NF_SCAN_ITEMS];
  nf_t total{};
#pragma unroll
  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {
    if (j < mine) {
      x[j] = sh[NF_PAD(first + j)];
      total = j == 0 ? x[j] : nf_step(total, x[j]);
    }
  }
  const nf_t incl = nf_block_scan(total, buf);
  if (kTotals) {
    if (mine > 0 && first + mine == cnt) partial[bid] = incl;
    return;
  }
  bool carried = tile > 0;
  nf_t acc{};
  if (carried) acc = partial[bid - 1];
  if (t > 0) {
    const nf_t e = buf[t - 1];
    acc = carried ? nf_step(acc, e) : e;
    carried = true;
  }
#pragma unroll
  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {
    if (j < mine) {
      acc = (carried || j > 0) ? nf_step(acc, x[j]) : x[j];
      sh[NF_PAD(first + j)] = acc;
    }
  }
  __syncthreads();
  nf_t* dst = static_cast<nf_t*>(p.out) + nf_line_out(p, line) + k0 * p.inner;
#pragma unroll
  for (int j = 0; j < NF_SCAN_ITEMS; ++j) {
    const int k = j * NF_SCAN_THREADS + t;
    if (k < cnt) dst[k * p.inner] = sh[NF_PAD(k)];
  }
}

#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scan_totals)
extern "C" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_totals(const nf_sparams p) {
  __shared__ nf_t sh[NF_PAD(NF_SCAN_TILE)];
  __shared__ nf_t buf[NF_SCAN_THREADS];
  for (long long bid = blockIdx.x; bid < p.lines * p.tiles; bid += gridDim.x)
    nf_scan_tile<true>(p, bid, sh, buf);
}
#endif
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scan_tiles)
extern "C" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_tiles(const nf_sparams p) {
  __shared__ nf_t sh[NF_PAD(NF_SCAN_TILE)];
  __shared__ nf_t buf[NF_SCAN_THREADS];
  for (long long bid = blockIdx.x; bid < p.lines * p.tiles; bid += gridDim.x)
    nf_scan_tile<false>(p, bid, sh, buf);
}
#endif

// Per line, the tile totals become their inclusive scan, in place, a block-wide chunk at a time.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scan_carries)
extern "C" __global__ void __launch_bounds__(NF_SCAN_THREADS) nf_scan_carries(const nf_sparams p) {
  __shared__ nf_t buf[NF_SCAN_THREADS];
  const int t = threadIdx.x;
  for (long long line = blockIdx.x; line < p.lines; line += gridDim.x) {
    nf_t* row = static_cast<nf_t*>(p.partial) + line * p.tiles;
    nf_t carry{};
    for (long long c = 0; c < p.tiles; c += NF_SCAN_THREADS) {
      const long long b = c + t;
      nf_t v{};
      if (b < p.tiles) v = row[b];
      __syncthreads();  // everyone has read buf's last chunk
      v = nf_block_scan(v, buf);
      if (c > 0) v = nf_step(carry, v);
      if (b < p.tiles) row[b] = v;
      // Only a full chunk has more after it: its last slot is a real total.
      if (c + NF_SCAN_THREADS < p.tiles) {
        const nf_t last = buf[NF_SCAN_THREADS - 1];
        carry = c > 0 ? nf_step(carry, last) : last;
      }
    }
  }
}
#endif
