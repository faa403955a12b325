// ---- Stacks of small matrices (LinalgNode, n <= NF_SM_N): one thread per matrix, the matrix
// held in a fixed N x N array whose every index is a compile-time constant after unrolling, so
// that it lives in registers (row swaps are unrolled selects, never dynamic indexing). Expects the
// generated nf_t (the element type: float, double, nf::complex<float|double>), nf_rt (its real
// type), NF_SM_N (the padded size: 2, 4, 8 or 16) and NF_SM_OP (which kernel to compile, below).
// A matrix of n < N is padded with the identity, which LU, Cholesky and Jacobi leave decoupled
// from the n x n block. Each matrix writes its LAPACK-style info code (0, or k+1 for the first
// failing column) and counts itself in info[batch] when it failed: the host reads that one int
// after the kernel, and the codes only when it is not zero (reading 100,000 codes cost more than
// inverting the matrices).

#define NF_SM_THREADS 32  // small blocks: the staging tile below fits shared memory
#define NF_SM_INV 0       // out = inv(a)
#define NF_SM_SOLVE 1     // out = solve(a, b), b (n, nrhs)
#define NF_SM_DET 2       // out = det(a); flags & 1: slogdet, out = sign, out2 = logabsdet
#define NF_SM_CHOLESKY 3  // out = L (flags & 1: U = L^H from the upper triangle)
#define NF_SM_EIGH 4      // out = w ascending, out2 = v (flags & 2); flags & 1: upper triangle

struct nf_sm_params {
  const nf_t* a;  // batch C-order n x n matrices
  const nf_t* b;  // solve: batch C-order n x nrhs
  void* out;
  void* out2;
  int* info;  // one per matrix, then the count of nonzero ones (zeroed before the launch)
  long long batch;
  int n, nrhs, flags;
};

__device__ __forceinline__ float nf_sm_abs1(float x) { return x < 0 ? -x : x; }
__device__ __forceinline__ double nf_sm_abs1(double x) { return x < 0 ? -x : x; }
template <class R>
__device__ __forceinline__ R nf_sm_abs1(nf::complex<R> z) {  // LAPACK's pivot measure |re| + |im|
  return nf_sm_abs1(z.re) + nf_sm_abs1(z.im);
}
__device__ __forceinline__ float nf_sm_conj(float x) { return x; }
__device__ __forceinline__ double nf_sm_conj(double x) { return x; }
template <class R>
__device__ __forceinline__ nf::complex<R> nf_sm_conj(nf::complex<R> z) {
  return nf::complex<R>(z.re, -z.im);
}
__device__ __forceinline__ float nf_sm_re(float x) { return x; }
__device__ __forceinline__ double nf_sm_re(double x) { return x; }
template <class R>
__device__ __forceinline__ R nf_sm_re(nf::complex<R> z) {
  return z.re;
}
__device__ __forceinline__ float nf_sm_abs(float x) { return nf::m::fabs(x); }
__device__ __forceinline__ double nf_sm_abs(double x) { return nf::m::fabs(x); }
template <class R>
__device__ __forceinline__ R nf_sm_abs(nf::complex<R> z) {
  return nf::m::hypot(z.re, z.im);
}
__device__ __forceinline__ float nf_sm_norm(float x) { return x * x; }
__device__ __forceinline__ double nf_sm_norm(double x) { return x * x; }
template <class R>
__device__ __forceinline__ R nf_sm_norm(nf::complex<R> z) {
  return z.re * z.re + z.im * z.im;
}

// Staging through shared memory: thread t's matrix lies n*n elements from thread t+1's, so direct
// loads would touch a cache line per thread and instruction. A block instead copies its matrices
// between global memory and a tile with coalesced accesses, each matrix at an odd stride in the
// tile (no bank conflicts when every thread reads its own). Where the tile would not fit the
// 48 KB of static shared memory (N = 16 of double and complex), threads read global memory
// directly.
constexpr int nf_sm_slot = NF_SM_N * NF_SM_N + 1;
constexpr bool nf_sm_staged = NF_SM_THREADS * nf_sm_slot * sizeof(nf_t) <= 48 * 1024;
constexpr int nf_sm_tile_size = nf_sm_staged ? NF_SM_THREADS * nf_sm_slot : 1;

// The block's `count` matrices of `per` elements, contiguous at g, into the tile.
__device__ __forceinline__ void nf_sm_stage_in(nf_t* tile, const nf_t* g, int count, int per) {
  const int s = per | 1;
  for (int e = threadIdx.x; e < count * per; e += blockDim.x) tile[(e / per) * s + e % per] = g[e];
  __syncthreads();
}
// And back, once every thread has written its slot.
__device__ __forceinline__ void nf_sm_stage_out(const nf_t* tile, nf_t* g, int count, int per) {
  __syncthreads();
  const int s = per | 1;
  for (int e = threadIdx.x; e < count * per; e += blockDim.x) g[e] = tile[(e / per) * s + e % per];
}

// This thread's matrix index, whether it has one, and how many matrices its block holds.
struct nf_sm_place {
  long long first, m;
  bool live;
  int count;
};
__device__ __forceinline__ nf_sm_place nf_sm_where(long long batch) {
  nf_sm_place w;
  w.first = static_cast<long long>(blockIdx.x) * blockDim.x;
  w.m = w.first + threadIdx.x;
  w.live = w.m < batch;
  const long long left = batch - w.first;
  w.count = static_cast<int>(
      left < static_cast<long long>(blockDim.x) ? left : static_cast<long long>(blockDim.x));
  return w;
}

// Matrix m's info code, counted in info[batch] when it is a failure.
__device__ __forceinline__ void nf_sm_report(const nf_sm_params& p, long long m, int info) {
  p.info[m] = info;
  if (info != 0) atomicAdd(p.info + p.batch, 1);
}

// Matrix `m` of the stack into a[][] (the identity beyond n).
__device__ __forceinline__ void nf_sm_load(const nf_t* src, int n, nf_t (&a)[NF_SM_N][NF_SM_N]) {
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < NF_SM_N; ++j) {
      a[i][j] = (i < n && j < n) ? src[i * n + j] : nf_t(i == j ? 1 : 0);
    }
  }
}

// Partial pivoting at step k (LAPACK's: the largest |re| + |im| of column k at or below row k, the
// first of equals): swaps that row with row k, whole rows, and returns its index.
__device__ __forceinline__ int nf_sm_pivot(nf_t (&a)[NF_SM_N][NF_SM_N], int k) {
  int p = k;
  nf_rt best = nf_sm_abs1(a[k][k]);
#pragma unroll
  for (int i = k + 1; i < NF_SM_N; ++i) {
    const nf_rt v = nf_sm_abs1(a[i][k]);
    if (v > best) best = v, p = i;
  }
#pragma unroll
  for (int i = k + 1; i < NF_SM_N; ++i) {
    if (i == p) {
#pragma unroll
      for (int j = 0; j < NF_SM_N; ++j) {
        const nf_t t = a[k][j];
        a[k][j] = a[i][j];
        a[i][j] = t;
      }
    }
  }
  return p;
}

// LU with partial pivoting in place (LAPACK's getrf: L unit lower, U upper, whole rows swapped);
// piv[k] is the row swapped with row k. Returns getrf's info: 0, or k+1 for the first zero pivot.
__device__ __forceinline__ int nf_sm_lu(nf_t (&a)[NF_SM_N][NF_SM_N], int (&piv)[NF_SM_N]) {
  int info = 0;
#pragma unroll
  for (int k = 0; k < NF_SM_N; ++k) {
    piv[k] = nf_sm_pivot(a, k);
    if (a[k][k] == nf_t(0)) {
      if (info == 0) info = k + 1;
      continue;  // getf2 leaves the column as it is
    }
    const nf_t r = nf_t(1) / a[k][k];
#pragma unroll
    for (int i = k + 1; i < NF_SM_N; ++i) {
      a[i][k] = a[i][k] * r;
#pragma unroll
      for (int j = k + 1; j < NF_SM_N; ++j) a[i][j] = a[i][j] - a[i][k] * a[k][j];
    }
  }
  return info;
}

// x = A^-1 x with the factors of nf_sm_lu (nonsingular U).
__device__ __forceinline__ void nf_sm_lu_solve(const nf_t (&a)[NF_SM_N][NF_SM_N],
                                               const int (&piv)[NF_SM_N], nf_t (&x)[NF_SM_N]) {
#pragma unroll
  for (int k = 0; k < NF_SM_N; ++k) {
#pragma unroll
    for (int i = k + 1; i < NF_SM_N; ++i) {
      if (i == piv[k]) {
        const nf_t t = x[k];
        x[k] = x[i];
        x[i] = t;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < i; ++j) x[i] = x[i] - a[i][j] * x[j];
  }
#pragma unroll
  for (int i = NF_SM_N - 1; i >= 0; --i) {
#pragma unroll
    for (int j = i + 1; j < NF_SM_N; ++j) x[i] = x[i] - a[i][j] * x[j];
    x[i] = x[i] / a[i][i];
  }
}

#if NF_SM_OP == NF_SM_INV || NF_SM_OP == NF_SM_SOLVE
// inv: the columns of the identity solved one after another; solve: the columns of b.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_solve(const nf_sm_params p) {
  const nf_sm_place w = nf_sm_where(p.batch);
  const long long m = w.m;
  const int n = p.n, nn = n * n;
  __shared__ nf_t tile[nf_sm_tile_size];
  const nf_t* src = p.a + m * nn;
  if (nf_sm_staged) {
    nf_sm_stage_in(tile, p.a + w.first * nn, w.count, nn);
    src = tile + threadIdx.x * (nn | 1);
  }
  nf_t a[NF_SM_N][NF_SM_N];
  int piv[NF_SM_N];
  int info = 1;
  if (w.live) {
    nf_sm_load(src, n, a);
    info = nf_sm_lu(a, piv);
    nf_sm_report(p, m, info);  // nonzero: the host raises, or writes NaN (raise_on_failure false)
  }
#if NF_SM_OP == NF_SM_INV
  const int cols = n;
  nf_t* out = nf_sm_staged ? tile + threadIdx.x * (nn | 1) : static_cast<nf_t*>(p.out) + m * nn;
#else
  const int cols = info == 0 ? p.nrhs : 0;
  const nf_t* b = p.b + m * n * p.nrhs;
  nf_t* out = static_cast<nf_t*>(p.out) + m * n * p.nrhs;
#endif
  for (int c = 0; c < cols && info == 0; ++c) {
    nf_t x[NF_SM_N];
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
#if NF_SM_OP == NF_SM_INV
      x[i] = nf_t(i == c ? 1 : 0);
#else
      x[i] = i < n ? b[i * cols + c] : nf_t(0);
#endif
    }
    nf_sm_lu_solve(a, piv, x);
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
      if (i < n) out[i * cols + c] = x[i];
    }
  }
#if NF_SM_OP == NF_SM_INV
  if (nf_sm_staged) nf_sm_stage_out(tile, static_cast<nf_t*>(p.out) + w.first * nn, w.count, nn);
#endif
}
#endif

#if NF_SM_OP == NF_SM_DET
// det, or slogdet's (sign, logabsdet), from the LU diagonal and the pivots; a singular matrix
// gives 0 (sign 0, logabsdet -inf), never an error, as NumPy's.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_det(const nf_sm_params p) {
  const nf_sm_place w = nf_sm_where(p.batch);
  const long long m = w.m;
  const int n = p.n, nn = n * n;
  __shared__ nf_t tile[nf_sm_tile_size];
  const nf_t* src = p.a + m * nn;
  if (nf_sm_staged) {
    nf_sm_stage_in(tile, p.a + w.first * nn, w.count, nn);
    src = tile + threadIdx.x * (nn | 1);
  }
  if (!w.live) return;  // no barrier follows
  nf_t a[NF_SM_N][NF_SM_N];
  int piv[NF_SM_N];
  nf_sm_load(src, n, a);
  const int info = nf_sm_lu(a, piv);
  p.info[m] = 0;
  nf_t sign = nf_t(1);
  nf_rt logdet = nf_rt(0);
#pragma unroll
  for (int k = 0; k < NF_SM_N; ++k) {
    if (piv[k] != k) sign = nf_t(0) - sign;
    const nf_rt mag = nf_sm_abs(a[k][k]);
    sign = sign * (a[k][k] / nf_t(mag));
    logdet += nf::m::log(mag);
  }
  if (info != 0) {
    sign = nf_t(0);
    logdet = -nf::m::inf(nf_rt(0));
  }
  if (p.flags & 1) {
    static_cast<nf_t*>(p.out)[m] = sign;
    static_cast<nf_rt*>(p.out2)[m] = logdet;
  } else {
    static_cast<nf_t*>(p.out)[m] = sign * nf_t(nf::m::exp(logdet));
  }
}
#endif

#if NF_SM_OP == NF_SM_CHOLESKY
// a = L L^H from the lower triangle (or, flags & 1, a = U^H U from the upper one: the same
// algorithm on the conjugate transpose, U = L^H written back). The other triangle is zero.
// potrf's info: k+1 for the first column whose diagonal is not positive.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS)
    nf_small_cholesky(const nf_sm_params p) {
  const nf_sm_place w = nf_sm_where(p.batch);
  const long long m = w.m;
  const int n = p.n, nn = n * n;
  const bool upper = (p.flags & 1) != 0;
  __shared__ nf_t tile[nf_sm_tile_size];
  const nf_t* src = p.a + m * nn;
  nf_t* out = static_cast<nf_t*>(p.out) + m * nn;
  if (nf_sm_staged) {
    nf_sm_stage_in(tile, p.a + w.first * nn, w.count, nn);
    src = out = tile + threadIdx.x * (nn | 1);
  }
  nf_t a[NF_SM_N][NF_SM_N];
  nf_sm_load(w.live ? src : tile, w.live ? n : 0, a);
  if (upper) {
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
      for (int j = 0; j < i; ++j) a[i][j] = nf_sm_conj(a[j][i]);
    }
  }
  int info = 0;
#pragma unroll
  for (int j = 0; j < NF_SM_N; ++j) {
    nf_rt d = nf_sm_re(a[j][j]);
#pragma unroll
    for (int k = 0; k < j; ++k) d -= nf_sm_norm(a[j][k]);
    if (d <= nf_rt(0)) {  // a NaN goes on as NaN, as NumPy's OpenBLAS potrf does
      if (info == 0) info = j + 1;
      d = nf_rt(1);  // go on with finite values; the host raises or writes NaN
    }
    const nf_rt djj = nf::m::sqrt(d);
    a[j][j] = nf_t(djj);
    const nf_t r = nf_t(nf_rt(1) / djj);
#pragma unroll
    for (int i = j + 1; i < NF_SM_N; ++i) {
      nf_t s = a[i][j];
#pragma unroll
      for (int k = 0; k < j; ++k) s = s - a[i][k] * nf_sm_conj(a[j][k]);
      a[i][j] = s * r;
    }
  }
  if (w.live) {
    nf_sm_report(p, m, info);
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
      for (int j = 0; j < NF_SM_N; ++j) {
        if (i < n && j < n)
          out[i * n + j] =
              upper ? (i <= j ? nf_sm_conj(a[j][i]) : nf_t(0)) : (j <= i ? a[i][j] : nf_t(0));
      }
    }
  }
  if (nf_sm_staged) nf_sm_stage_out(tile, static_cast<nf_t*>(p.out) + w.first * nn, w.count, nn);
}
#endif

#if NF_SM_OP == NF_SM_EIGH
// Hermitian (real symmetric) eigenproblem by cyclic Jacobi (every pair each sweep), until the
// off-diagonal Frobenius norm is below eps * the matrix's norm (LAPACK-grade: the eigenvalues are
// then exact to a few eps * ||a||). Info 1 when 30 sweeps did not get there. A complex pair is
// first made real by the phase e of a[p][q] (the unitary diag(1, conj(e)) on column q), then
// rotated as a real one: U = diag(1, conj(e)) J, a <- U^H a U, v <- v U.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_eigh(const nf_sm_params p) {
  const nf_sm_place place = nf_sm_where(p.batch);
  const long long m = place.m;
  const int n = p.n, nn = n * n;
  const bool upper = (p.flags & 1) != 0, vectors = (p.flags & 2) != 0;
  __shared__ nf_t tile[nf_sm_tile_size];
  const nf_t* src = p.a + m * nn;
  nf_t* vout = static_cast<nf_t*>(p.out2) + m * nn;
  if (nf_sm_staged) {
    nf_sm_stage_in(tile, p.a + place.first * nn, place.count, nn);
    src = vout = tile + threadIdx.x * (nn | 1);
  }
  nf_t a[NF_SM_N][NF_SM_N], v[NF_SM_N][NF_SM_N];
  nf_sm_load(place.live ? src : tile, place.live ? n : 0, a);  // the identity: converged at once
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < NF_SM_N; ++j) {
      if (j > i) {  // only the chosen triangle is read
        if (upper)
          a[j][i] = nf_sm_conj(a[i][j]);
        else
          a[i][j] = nf_sm_conj(a[j][i]);
      }
      if (j == i)
        a[i][i] = nf_t(nf_sm_re(a[i][i]));  // LAPACK ignores the diagonal's imaginary part
      v[i][j] = nf_t(i == j ? 1 : 0);
    }
  }
  nf_rt total = nf_rt(0);
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < NF_SM_N; ++j) {
      if (i < n && j < n) total += nf_sm_norm(a[i][j]);
    }
  }
  const nf_rt eps = sizeof(nf_rt) == 4 ? nf_rt(5.9604645e-08f) : nf_rt(1.1102230246251565e-16);
  const nf_rt tol = eps * eps * total;
  int info = 1;
  for (int sweep = 0; sweep < 30; ++sweep) {
    nf_rt off = nf_rt(0);
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
      for (int j = i + 1; j < NF_SM_N; ++j) off += nf_sm_norm(a[i][j]);
    }
    if (!(off > tol)) {  // converged, or NaN (handled below)
      info = 0;
      break;
    }
#pragma unroll
    for (int q = 1; q < NF_SM_N; ++q) {
#pragma unroll
      for (int pp = 0; pp < q; ++pp) {
        const nf_rt r = nf_sm_abs(a[pp][q]);
        if (r == nf_rt(0)) continue;
        const nf_t ce_ = nf_sm_conj(a[pp][q] / nf_t(r));  // conj(e)
        // The rotation that zeroes the real pair (Rutishauser's formulas, the smaller angle).
        const nf_rt theta = (nf_sm_re(a[q][q]) - nf_sm_re(a[pp][pp])) / (nf_rt(2) * r);
        const nf_rt t = (theta >= 0 ? nf_rt(1) : nf_rt(-1)) /
                        (nf::m::fabs(theta) + nf::m::sqrt(theta * theta + nf_rt(1)));
        const nf_rt c = nf_rt(1) / nf::m::sqrt(t * t + nf_rt(1)), s = t * c;
        const nf_t sc = nf_t(s) * ce_, cc = nf_t(c) * ce_;  // s conj(e), c conj(e)
        const nf_t scc = nf_sm_conj(sc), ccc = nf_sm_conj(cc);
#pragma unroll
        for (int k = 0; k < NF_SM_N; ++k) {  // columns pp, q: a U
          const nf_t x = a[k][pp], y = a[k][q];
          a[k][pp] = nf_t(c) * x - sc * y;
          a[k][q] = nf_t(s) * x + cc * y;
        }
#pragma unroll
        for (int k = 0; k < NF_SM_N; ++k) {  // rows pp, q: U^H a
          const nf_t x = a[pp][k], y = a[q][k];
          a[pp][k] = nf_t(c) * x - scc * y;
          a[q][k] = nf_t(s) * x + ccc * y;
        }
        a[pp][q] = nf_t(0);
        a[q][pp] = nf_t(0);
        a[pp][pp] = nf_t(nf_sm_re(a[pp][pp]));
        a[q][q] = nf_t(nf_sm_re(a[q][q]));
        if (vectors) {
#pragma unroll
          for (int k = 0; k < NF_SM_N; ++k) {
            const nf_t x = v[k][pp], y = v[k][q];
            v[k][pp] = nf_t(c) * x - sc * y;
            v[k][q] = nf_t(s) * x + cc * y;
          }
        }
      }
    }
  }
  if (place.live) nf_sm_report(p, m, info);
  if (!(total < nf::m::inf(total))) {  // NaN or inf in the matrix: no rotation is meaningful
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
      a[i][i] = nf_t(nf::m::nan(total));
#pragma unroll
      for (int j = 0; j < NF_SM_N; ++j) v[i][j] = nf_t(nf::m::nan(total));
    }
  }
  // Ascending order (NumPy's): an unrolled exchange sort of the first n, moving vectors along.
  nf_rt w[NF_SM_N];
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) w[i] = nf_sm_re(a[i][i]);
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = i + 1; j < NF_SM_N; ++j) {
      if (j < n && w[j] < w[i]) {
        const nf_rt t = w[i];
        w[i] = w[j];
        w[j] = t;
        if (vectors) {
#pragma unroll
          for (int k = 0; k < NF_SM_N; ++k) {
            const nf_t x = v[k][i];
            v[k][i] = v[k][j];
            v[k][j] = x;
          }
        }
      }
    }
  }
  nf_rt* wout = static_cast<nf_rt*>(p.out) + m * n;
  if (place.live) {
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
      if (i < n) wout[i] = w[i];
      if (vectors) {
#pragma unroll
        for (int j = 0; j < NF_SM_N; ++j) {
          if (i < n && j < n) vout[i * n + j] = v[i][j];
        }
      }
    }
  }
  if (nf_sm_staged && vectors)
    nf_sm_stage_out(tile, static_cast<nf_t*>(p.out2) + place.first * nn, place.count, nn);
}
#endif
