// ---- Stacks of small matrices (LinalgNode, n <= NF_SM_N): one thread per matrix, the matrix
// held in a fixed N x N array whose every index is a compile-time constant after unrolling, so
// that it lives in registers (row swaps are unrolled selects, never dynamic indexing). Expects the
// generated nf_t (the element type computed in: float, double, nf::complex<float|double>), nf_rt
// (its real type), nf_st and nf_srt (the type and real type of the arrays in memory: nf_t and
// nf_rt, or their single precision where numpy.linalg's float32 and complex64 are computed in
// double precision, LinalgSpec::widen: converted on load and store, no cast passes), NF_SM_N (the
// padded size: 2, 4, 8 or 16), NF_SM_THREADS (threads, so matrices, a block: small_linalg_threads()
// on the host) and NF_SM_OP (which kernel to compile, below). A matrix of n < N is padded with the
// identity, which LU, Cholesky and Jacobi leave decoupled from the n x n block. Each matrix writes
// its LAPACK-style info code (0, or k+1 for the first failing column) and, when it failed, sets
// *failed: a word of pinned host memory (mapped: its device address is its host address) that the
// host zeroes before the launch and reads after its wait for the stream, with no memset launch and
// no device-to-host copy; it reads the codes only when the word is set (reading 100,000 codes
// cost more than inverting the matrices).

#define NF_SM_INV 0       // out = inv(a)
#define NF_SM_SOLVE 1     // out = solve(a, b), b (n, nrhs)
#define NF_SM_DET 2       // out = det(a); flags & 1: slogdet, out = sign, out2 = logabsdet
#define NF_SM_CHOLESKY 3  // out = L (flags & 1: U = L^H from the upper triangle)
#define NF_SM_EIGH 4      // out = w ascending, out2 = v (flags & 2); flags & 1: upper triangle

struct nf_sm_params {
  const nf_st* a;  // batch C-order n x n matrices
  const nf_st* b;  // solve: batch C-order n x nrhs
  void* out;
  void* out2;
  int* info;    // one per matrix, or null: no codes (the failure word alone)
  int* failed;  // set to 1 by every failing matrix (all store the same value: no atomics)
  int* factored;  // null, or pinned host memory set to `ticket` once every matrix is factored
  int* blocks;    // with factored: a device counter of the blocks past their factorisation (0)
  long long batch;
  int n, nrhs, flags, ticket;
  // NF_SM_STAGGER and NF_SM_PREFETCH (inv and solve): the SMs and the blocks of a full wave (0: no
  // second wave follows), the first wave's wait (nf_sm_stagger), wave_flags 1: graded, 2: each
  // block prefetches the next wave's block into L2 (nf_sm_prefetch_next). Unread without them.
  int wave_sms, wave_blocks, stagger_ns, wave_flags;
};

// Sizes known when the kernel is compiled (small_linalg_body): NF_SM_EXACT 1 where every matrix of
// the stack is N x N, NF_SM_NRHS where solve's b has that many columns (1: a vector a matrix);
// else the parameters' (one kernel for every n padded to N). A compile-time n turns the loops'
// bounds, guards and index arithmetic into constants: ~30% fewer instructions for float64 8 x 8
// inv (NVRTC's PTX), whose kernel the memory, not the arithmetic, should bound.
#ifndef NF_SM_EXACT
#define NF_SM_EXACT 0
#endif
#ifndef NF_SM_NRHS
#define NF_SM_NRHS 0
#endif
__device__ __forceinline__ int nf_sm_n(const nf_sm_params& p) {
  return NF_SM_EXACT ? NF_SM_N : p.n;
}
__device__ __forceinline__ int nf_sm_nrhs(const nf_sm_params& p) {
  return NF_SM_NRHS ? NF_SM_NRHS : p.nrhs;
}

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

// ---- Staging: the block's matrices between global memory and a shared-memory tile.
// Thread t's matrix lies n*n elements from thread t+1's, so direct loads would touch a cache line
// per thread and instruction. A block instead copies its matrices, one contiguous span, with
// coalesced accesses, all of them in flight at once (cp.async into the tile), or 16-byte words
// through registers, several a thread before any is stored (one load at a time a thread, as the
// first version had, kept ~3 KB in flight per SM: 0.7 TB/s on the H100 for det).
// In the tile each matrix sits at an odd stride of elements (no bank conflicts when every thread
// reads its own). Where the tile would not fit the 48 KB of static shared memory (N = 16 of double
// and complex), threads read and write global memory directly.
#ifndef NF_SM_GROUP
#define NF_SM_GROUP 0  // 1: the group kernels below (NF_SM_N threads a matrix, a row each)
#endif
constexpr int nf_sm_slot = NF_SM_N * NF_SM_N + 1;
constexpr bool nf_sm_staged =
    NF_SM_GROUP || NF_SM_THREADS * nf_sm_slot * sizeof(nf_st) <= 48 * 1024;
constexpr int nf_sm_tile_size = NF_SM_GROUP    ? NF_SM_THREADS * (NF_SM_N + 1)
                                : nf_sm_staged ? NF_SM_THREADS * nf_sm_slot
                                               : 1;
constexpr int nf_sm_word = sizeof(nf_st) < 16 ? 16 / sizeof(nf_st) : 1;  // elements a 16-byte word
// cp.async (sm_80 on) loads the tile on the device, element by element (plain copies in the
// emulator, which so runs the same loop); the register path loads it before sm_80 and for an
// unaligned view. Units a thread in flight on the register path: 8 where nothing else loads, 1
// beside cp.async (ptxas for sm_90: float64 8 x 8 inv 168 registers a thread with 1 load and 8
// stores in flight, 228 with 8 and 8, i.e. 6 blocks of 64 an SM instead of 4; the float64
// 16 x 16 group kernel 96 instead of 171).
#if defined(__CUDACC_RTC__) && __CUDA_ARCH__ >= 800
#define NF_SM_ASYNC 1
#define NF_SM_DIRECT 1
constexpr int nf_sm_load_in_flight = 1;
#elif defined(__CUDACC_RTC__)
#define NF_SM_ASYNC 0
#define NF_SM_DIRECT 0
constexpr int nf_sm_load_in_flight = 8;
#else
#define NF_SM_ASYNC 0
#define NF_SM_DIRECT 1
constexpr int nf_sm_load_in_flight = 8;
#endif
constexpr int nf_sm_store_in_flight = 8;

// The block's tile (one per block: a __shared__ variable of a function is one allocation).
// static: the CUDA emulator's host compiler would make the variable of an inline function one
// object for every kernel loaded into the process, whatever its size.
struct alignas(16) nf_sm_tile_t {  // cp.async of 16 bytes needs a 16-byte aligned destination
  nf_st v[nf_sm_tile_size];
};
static __device__ __forceinline__ nf_st* nf_sm_tile() {
  __shared__ nf_sm_tile_t tile;
  return tile.v;
}

// Where element e of the block's span sits in the tile: runs of `per` elements (the items, or the
// rows of the group kernels) padded to per | 1, so e + e / per when per is even. The quotient is a
// multiply-high by magic = ceil(2^32 / per) (nf_sm_magic): e magic / 2^32 = e / per + d with
// 0 <= d < e / 2^32, which stays below the 1 / per separating e / per from the next integer while
// e per < 2^32 (here e < 12,288, the largest tile, and per <= 256: below 2^22). Two integer
// instructions an element, where a float reciprocal took two conversions (quarter rate) and a
// multiply; where per is a compile-time constant (NF_SM_EXACT) the compiler folds it further.
__device__ __forceinline__ unsigned nf_sm_magic(int per) {
  return 0xffffffffu / static_cast<unsigned>(per) + 1u;  // ceil(2^32 / per); unused for odd per
}
__device__ __forceinline__ int nf_sm_tile_index(int e, int per, unsigned magic) {
  return (per & 1) ? e : e + static_cast<int>((static_cast<unsigned long long>(e) * magic) >> 32);
}

template <int K, int A>
struct alignas(A) nf_sm_pack {
  nf_st v[K];
};

// Elements [from, total) of the span at g, K at a time (P = nf_sm_pack<K, ...>), into the tile
// (kIn) or out of it: every thread loads its nf_sm_in_flight units before it stores any.
template <bool kIn, int K, class P, int F>
__device__ __forceinline__ void nf_sm_copy(nf_st* tile, nf_st* g, int from, int total, int per,
                                           unsigned magic) {
  const int units = (total - from) / K;
  P* gp = reinterpret_cast<P*>(g + from);
  for (int u0 = threadIdx.x; u0 < units; u0 += F * blockDim.x) {
    P v[F];
#pragma unroll
    for (int j = 0; j < F; ++j) {
      const int u = u0 + j * blockDim.x;
      if (u < units) {
        if (kIn) {
          v[j] = gp[u];
        } else {
#pragma unroll
          for (int i = 0; i < K; ++i)
            v[j].v[i] = tile[nf_sm_tile_index(from + u * K + i, per, magic)];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < F; ++j) {
      const int u = u0 + j * blockDim.x;
      if (u < units) {
        if (kIn) {
#pragma unroll
          for (int i = 0; i < K; ++i)
            tile[nf_sm_tile_index(from + u * K + i, per, magic)] = v[j].v[i];
        } else {
          gp[u] = v[j];
        }
      }
    }
  }
}

// One element from global memory into the tile: asynchronously on the device (cp.async, waited
// for by nf_sm_copy_wait), a plain copy in the emulator.
__device__ __forceinline__ void nf_sm_elem_copy(nf_st* dst, const nf_st* src) {
#if NF_SM_ASYNC
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (sizeof(nf_st) == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
  else if (sizeof(nf_st) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
#else
  *dst = *src;
#endif
}
__device__ __forceinline__ void nf_sm_copy_wait() {
#if NF_SM_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// The block's `count` items of `per` elements, contiguous at g, into the tile (kIn) or back out:
// 16-byte words where g is 16-byte aligned (the block's span starts a multiple of 4 items after
// the stack's, itself aligned unless it is an offset view), single elements for the rest. In the
// tile, every run of `run` elements (an item; a matrix row for the group kernels, whose threads
// read a row each) is padded to an odd length.
template <bool kIn>
__device__ __forceinline__ void nf_sm_stage(nf_st* tile, nf_st* g, int count, int per, int run) {
  if (!kIn) __syncthreads();  // every thread has written its slot
  const int total = count * per;
  const unsigned magic = nf_sm_magic(run);
  // Into the tile: cp.async (sm_80 on) puts every element of the block's span in flight at once
  // and holds no registers: the bytes in flight a block are its whole span (32 KB for 64 float64
  // 8 x 8), not a few words a thread. Elements must be aligned to their size (not so for an
  // offset view of complex64 / complex128, whose alignment is their part's): the register path.
  if (NF_SM_DIRECT && kIn && reinterpret_cast<unsigned long long>(g) % sizeof(nf_st) == 0) {
#pragma unroll 4
    for (int e = threadIdx.x; e < total; e += blockDim.x)
      nf_sm_elem_copy(tile + nf_sm_tile_index(e, run, magic), g + e);
    nf_sm_copy_wait();
    __syncthreads();
    return;
  }
  constexpr int F = kIn ? nf_sm_load_in_flight : nf_sm_store_in_flight;
  int from = 0;
  if ((reinterpret_cast<unsigned long long>(g) & 15) == 0) {
    nf_sm_copy<kIn, nf_sm_word, nf_sm_pack<nf_sm_word, 16>, F>(tile, g, 0, total, run, magic);
    from = total / nf_sm_word * nf_sm_word;
  }
  nf_sm_copy<kIn, 1, nf_sm_pack<1, alignof(nf_st)>, F>(tile, g, from, total, run, magic);
  if (kIn) __syncthreads();
}

// The block's place in the stack: matrices first .. first + count - 1, this thread's m = first +
// threadIdx.x (live when m < batch), and this thread's slot of the tile (null where the kernel
// works on global memory).
struct nf_sm_block {
  long long first, m;
  int count;
  bool live;
  nf_st* slot;
};

// The prologue of every kernel: where the block and the thread are, and (staged) the block's
// matrices of `per` elements at `a` copied into the tile.
__device__ __forceinline__ nf_sm_block nf_sm_enter(const nf_st* a, long long batch, int per) {
  nf_sm_block b;
  b.first = static_cast<long long>(blockIdx.x) * blockDim.x;
  b.m = b.first + threadIdx.x;
  b.live = b.m < batch;
  const long long left = batch - b.first;
  b.count = static_cast<int>(
      left < static_cast<long long>(blockDim.x) ? left : static_cast<long long>(blockDim.x));
  b.slot = nullptr;
  if (nf_sm_staged) {
    nf_sm_stage<true>(nf_sm_tile(), const_cast<nf_st*>(a) + b.first * per, b.count, per, per);
    b.slot = nf_sm_tile() + threadIdx.x * (per | 1);
  }
  return b;
}
// Where this thread reads (or writes) its item of `per` elements of the stack at g.
__device__ __forceinline__ nf_st* nf_sm_item(const nf_sm_block& b, const void* g, int per) {
  return nf_sm_staged ? b.slot : static_cast<nf_st*>(const_cast<void*>(g)) + b.m * per;
}
// The epilogue: (staged) the block's slots, items of `per` elements, copied out to the stack at g.
__device__ __forceinline__ void nf_sm_leave(const nf_sm_block& b, void* g, int per) {
  if (nf_sm_staged)
    nf_sm_stage<false>(nf_sm_tile(), static_cast<nf_st*>(g) + b.first * per, b.count, per, per);
}

// Matrix m's info code (where the host asked for codes: p.info null on a first run, which the
// host repeats with codes only when the word says a matrix failed), and the failure word set when
// it is a failure. A plain store: the word is host memory, where device atomics are not
// guaranteed over PCIe; every writer stores 1.
__device__ __forceinline__ void nf_sm_report(const nf_sm_params& p, long long m, int info) {
  if (p.info) p.info[m] = info;
  if (info != 0) *p.failed = 1;
}

// Early completion (p.factored set: NUMFUSE_SMALL_LINALG_EARLY,
// backend/cuda/small_linalg_cuda.cpp): once every block's matrices are factored, and so every
// failure stored, the last block to get there writes the call's ticket into the pinned word
// p.factored; the host, waiting on that word instead of the stream, returns while the blocks still
// store their results (ordered on the stream before anything that reads them). Called by every
// thread of the block after its nf_sm_report, the same for the whole grid; `stored`: this thread
// stored to the failure word. The fence of such a thread orders that store before its block's
// count (the threadFenceReduction pattern, at system scope), and the last block's fence orders
// every counted block's stores before the ticket. Only those threads fence: a system-scope fence
// by every thread made the float64 8 x 8 inv kernel 4 us slower on the H100 (44.3 against 40.2
// us). The last block zeroes the counter before the ticket, so nothing of this launch touches it
// once the host has seen the ticket.
__device__ __forceinline__ void nf_sm_fence_system() {
#ifdef __CUDACC_RTC__
  __threadfence_system();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}
__device__ __forceinline__ void nf_sm_factored(const nf_sm_params& p, bool stored) {
  if (!p.factored) return;
  if (stored) nf_sm_fence_system();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(p.blocks, 1) == static_cast<int>(gridDim.x) - 1) {
    *static_cast<volatile int*>(p.blocks) = 0;
    nf_sm_fence_system();
    *static_cast<volatile int*>(p.factored) = p.ticket;
  }
}

// An n x n matrix at src (row stride n) into a[][] (the identity beyond n; all of it for n = 0).
__device__ __forceinline__ void nf_sm_load(const nf_st* src, int n, nf_t (&a)[NF_SM_N][NF_SM_N]) {
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < NF_SM_N; ++j) {
      a[i][j] = (i < n && j < n) ? nf_t(src[i * n + j]) : nf_t(i == j ? 1 : 0);
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
// piv[k] is the row swapped with row k, rd[k] the reciprocal of U's diagonal (the triangular
// solves multiply by it, as OpenBLAS's trsm kernels do: a division costs ten multiplications).
// Returns getrf's info: 0, or k+1 for the first zero pivot.
__device__ __forceinline__ int nf_sm_lu(nf_t (&a)[NF_SM_N][NF_SM_N], int (&piv)[NF_SM_N],
                                        nf_t (&rd)[NF_SM_N]) {
  int info = 0;
#pragma unroll
  for (int k = 0; k < NF_SM_N; ++k) {
    piv[k] = nf_sm_pivot(a, k);
    rd[k] = nf_t(1) / a[k][k];
    if (a[k][k] == nf_t(0)) {
      if (info == 0) info = k + 1;
      continue;  // getf2 leaves the column as it is
    }
#pragma unroll
    for (int i = k + 1; i < NF_SM_N; ++i) {
      a[i][k] = a[i][k] * rd[k];
#pragma unroll
      for (int j = k + 1; j < NF_SM_N; ++j) a[i][j] = a[i][j] - a[i][k] * a[k][j];
    }
  }
  return info;
}

// The row permutation of the pivots: row i of P a is row r[i] of a.
__device__ __forceinline__ void nf_sm_rows(const int (&piv)[NF_SM_N], int (&r)[NF_SM_N]) {
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) r[i] = i;
#pragma unroll
  for (int k = 0; k < NF_SM_N; ++k) {
#pragma unroll
    for (int i = k + 1; i < NF_SM_N; ++i) {
      if (i == piv[k]) {
        const int t = r[k];
        r[k] = r[i];
        r[i] = t;
      }
    }
  }
}

// x = U^-1 L^-1 x with the factors of nf_sm_lu (rows already permuted), from row `from` on: the
// entries of x above it are zero and stay zero through L^-1 (inv's unit columns).
__device__ __forceinline__ void nf_sm_lu_solve(const nf_t (&a)[NF_SM_N][NF_SM_N],
                                               const nf_t (&rd)[NF_SM_N], nf_t (&x)[NF_SM_N],
                                               int from) {
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < i; ++j) {
      if (j >= from) x[i] = x[i] - a[i][j] * x[j];
    }
  }
#pragma unroll
  for (int i = NF_SM_N - 1; i >= 0; --i) {
#pragma unroll
    for (int j = i + 1; j < NF_SM_N; ++j) x[i] = x[i] - a[i][j] * x[j];
    x[i] = x[i] * rd[i];
  }
}

// Staggered first wave (NF_SM_STAGGER 1, NUMFUSE_SMALL_LINALG_STAGGER on the host; H100
// measurement, issue 13): every block resident at the launch starts its loads at once, so they all
// end together (9.3 us for float64 8 x 8 inv, 6 blocks an SM), and all compute at once (5.1 us)
// while memory idles. Blocks fill the SMs round by round in block order, so block b of the first
// wave is its SM's (b / wave_sms)-th: the upper half of the rounds waits stagger_ns before
// loading (or, graded, round r waits r * stagger_ns), so that the others get the bandwidth first,
// compute while the late ones load, and free their slots for the next wave earlier.
#ifndef NF_SM_STAGGER
#define NF_SM_STAGGER 0
#endif
__device__ __forceinline__ void nf_sm_stagger(const nf_sm_params& p) {
#if NF_SM_STAGGER && defined(__CUDACC_RTC__)
  const int b = static_cast<int>(blockIdx.x);
  if (b >= p.wave_blocks || p.wave_sms <= 0) return;
  const int round = b / p.wave_sms, rounds = p.wave_blocks / p.wave_sms;
  const unsigned long long wait = static_cast<unsigned long long>(p.stagger_ns) *
                                  ((p.wave_flags & 1) ? round : round >= (rounds + 1) / 2 ? 1 : 0);
  if (wait == 0) return;
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(256);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < wait);
#endif
}

// Prefetch of the next wave (NF_SM_PREFETCH 1, NUMFUSE_SMALL_LINALG_PREFETCH=1): once a block
// has its matrices, it asks L2 for the matrices of the block that will take its place a wave
// later (evict_last, so that the stores streaming past do not push them out), so that the memory
// works through the compute phase that otherwise leaves it idle, and the next wave loads from L2.
#ifndef NF_SM_PREFETCH
#define NF_SM_PREFETCH 0
#endif
__device__ __forceinline__ void nf_sm_prefetch_next(const nf_sm_params& p, int per) {
#if NF_SM_PREFETCH && defined(__CUDACC_RTC__)
  if (!(p.wave_flags & 2) || p.wave_blocks <= 0) return;
  const long long first = (static_cast<long long>(blockIdx.x) + p.wave_blocks) * blockDim.x;
  if (first >= p.batch) return;
  const long long left = p.batch - first;
  const long long count = left < static_cast<long long>(blockDim.x) ? left : blockDim.x;
  const char* g = reinterpret_cast<const char*>(p.a + first * per);
  const long long bytes = count * per * static_cast<long long>(sizeof(nf_st));
  for (long long off = threadIdx.x * 128LL; off < bytes; off += blockDim.x * 128LL)
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(g + off));
#endif
}

#if !NF_SM_GROUP && (NF_SM_OP == NF_SM_INV || NF_SM_OP == NF_SM_SOLVE)
// inv: X = U^-1 L^-1 column by column (unit columns), then inv(a) = X P: X's column c lands in
// column pos[c] (the row swaps applied to the columns in reverse order), written there in the
// thread's tile slot over the matrix it read. solve: the columns of P b solved one by one, b
// staged through the tile after a when a thread's b fits a slot.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_solve(const nf_sm_params p) {
  const int n = nf_sm_n(p), nn = n * n;
  nf_sm_stagger(p);
  const nf_sm_block blk = nf_sm_enter(p.a, p.batch, nn);
  nf_sm_prefetch_next(p, nn);
  nf_t a[NF_SM_N][NF_SM_N], rd[NF_SM_N];
  int piv[NF_SM_N];
  nf_sm_load(nf_sm_item(blk, p.a, nn), blk.live ? n : 0, a);
  const int info = nf_sm_lu(a, piv, rd);
  if (blk.live) nf_sm_report(p, blk.m, info);  // nonzero: the host raises, or writes NaN
  nf_sm_factored(p, blk.live && info != 0);
#if NF_SM_OP == NF_SM_INV
  int pos[NF_SM_N];
#pragma unroll
  for (int c = 0; c < NF_SM_N; ++c) pos[c] = c;
#pragma unroll
  for (int k = NF_SM_N - 1; k >= 0; --k) {
#pragma unroll
    for (int c = 0; c < NF_SM_N; ++c) pos[c] = pos[c] == k ? piv[k] : pos[c] == piv[k] ? k : pos[c];
  }
  nf_st* out = nf_sm_item(blk, p.out, nn);
  if (blk.live && info == 0) {
#pragma unroll
    for (int c = 0; c < NF_SM_N; ++c) {
      if (c < n) {
        nf_t x[NF_SM_N];
#pragma unroll
        for (int i = 0; i < NF_SM_N; ++i) x[i] = nf_t(i == c ? 1 : 0);
        nf_sm_lu_solve(a, rd, x, c);
#pragma unroll
        for (int i = 0; i < NF_SM_N; ++i) {
          if (i < n) out[i * n + pos[c]] = nf_st(x[i]);
        }
      }
    }
  }
  nf_sm_leave(blk, p.out, nn);
#else
  const int nrhs = nf_sm_nrhs(p), per = n * nrhs;
  // b through the tile when a thread's b fits its slot (the same for the whole block), else
  // straight from global memory.
  const bool staged = nf_sm_staged && per <= NF_SM_N * NF_SM_N;
  nf_st* x = static_cast<nf_st*>(p.out) + blk.m * per;
  if (staged) {
    __syncthreads();  // every thread has read its a from the tile
    nf_sm_stage<true>(nf_sm_tile(), const_cast<nf_st*>(p.b) + blk.first * per, blk.count, per, per);
    x = nf_sm_tile() + threadIdx.x * (per | 1);
  }
  const nf_st* b = staged ? x : p.b + blk.m * per;
  int r[NF_SM_N];
  nf_sm_rows(piv, r);
  if (blk.live && info == 0) {
    for (int c = 0; c < nrhs; ++c) {
      nf_t y[NF_SM_N];
#pragma unroll
      for (int i = 0; i < NF_SM_N; ++i) y[i] = i < n ? nf_t(b[r[i] * nrhs + c]) : nf_t(0);
      nf_sm_lu_solve(a, rd, y, 0);
#pragma unroll
      for (int i = 0; i < NF_SM_N; ++i) {
        if (i < n) x[i * nrhs + c] = nf_st(y[i]);
      }
    }
  }
  if (staged)
    nf_sm_stage<false>(nf_sm_tile(), static_cast<nf_st*>(p.out) + blk.first * per, blk.count, per,
                       per);
#endif
}
#endif

#if NF_SM_OP == NF_SM_DET
// det, or slogdet's (sign, logabsdet), from the LU diagonal and the pivots; a singular matrix
// gives 0 (sign 0, logabsdet -inf), never an error, as NumPy's (whose det is sign * exp(logdet)).
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_det(const nf_sm_params p) {
  const int n = nf_sm_n(p), nn = n * n;
  const nf_sm_block blk = nf_sm_enter(p.a, p.batch, nn);
  if (!blk.live) return;  // no barrier follows
  const long long m = blk.m;
  nf_t a[NF_SM_N][NF_SM_N], rd[NF_SM_N];
  int piv[NF_SM_N];
  nf_sm_load(nf_sm_item(blk, p.a, nn), n, a);
  const int info = nf_sm_lu(a, piv, rd);
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
    static_cast<nf_st*>(p.out)[m] = nf_st(sign);
    static_cast<nf_srt*>(p.out2)[m] = nf_srt(logdet);
  } else {
    static_cast<nf_st*>(p.out)[m] = nf_st(sign * nf_t(nf::m::exp(logdet)));
  }
}
#endif

#if NF_SM_OP == NF_SM_CHOLESKY
// a = L L^H from the lower triangle (or, flags & 1, a = U^H U from the upper one: the same
// algorithm on the conjugate transpose, U = L^H written back). The other triangle is zero.
// potrf's info: k+1 for the first column whose diagonal is not positive.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS)
    nf_small_cholesky(const nf_sm_params p) {
  const int n = nf_sm_n(p), nn = n * n;
  const bool upper = (p.flags & 1) != 0;
  const nf_sm_block blk = nf_sm_enter(p.a, p.batch, nn);
  nf_t a[NF_SM_N][NF_SM_N];
  nf_sm_load(nf_sm_item(blk, p.a, nn), blk.live ? n : 0, a);
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
  if (blk.live) nf_sm_report(p, blk.m, info);
  nf_sm_factored(p, blk.live && info != 0);
  if (blk.live) {
    nf_st* out = nf_sm_item(blk, p.out, nn);
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
      for (int j = 0; j < NF_SM_N; ++j) {
        if (i < n && j < n)
          out[i * n + j] = nf_st(upper ? (i <= j ? nf_sm_conj(a[j][i]) : nf_t(0))
                                       : (j <= i ? a[i][j] : nf_t(0)));
      }
    }
  }
  nf_sm_leave(blk, p.out, nn);
}
#endif

#if NF_SM_OP == NF_SM_EIGH
// 1 / sqrt(x): the device's reciprocal square root (one rounding more than sqrt and a division,
// a third of their instructions); the host compiler of the CUDA emulator has none.
__device__ __forceinline__ float nf_sm_rsqrt(float x) {
#ifdef __CUDACC_RTC__
  return rsqrtf(x);
#else
  return 1.0f / nf::m::sqrt(x);
#endif
}
__device__ __forceinline__ double nf_sm_rsqrt(double x) {
#ifdef __CUDACC_RTC__
  return rsqrt(x);
#else
  return 1.0 / nf::m::sqrt(x);
#endif
}
// Element (i, j) of a Hermitian matrix of which a[][] holds the upper triangle (i <= j) only.
__device__ __forceinline__ nf_t nf_sm_herm(const nf_t (&a)[NF_SM_N][NF_SM_N], int i, int j) {
  return i <= j ? a[i][j] : nf_sm_conj(a[j][i]);
}
__device__ __forceinline__ void nf_sm_set_herm(nf_t (&a)[NF_SM_N][NF_SM_N], int i, int j, nf_t v) {
  if (i <= j)
    a[i][j] = v;
  else
    a[j][i] = nf_sm_conj(v);
}

// Hermitian (real symmetric) eigenproblem by cyclic Jacobi (every pair each sweep), until the
// off-diagonal Frobenius norm is below eps * the matrix's norm (LAPACK-grade: the eigenvalues are
// then exact to a few eps * ||a||). Info 1 when 30 sweeps did not get there. A complex pair is
// first made real by the phase e of a[p][q] (the unitary diag(1, conj(e)) on column q), then
// rotated as a real one: U = diag(1, conj(e)) J, a <- U^H a U, v <- v U. Only the upper triangle
// of a is kept (half the registers, which kept float64 N = 8 from spilling, and half the
// updates): the pair's own 2 x 2 block takes Rutishauser's a_pp - t |a_pq|, a_qq + t |a_pq|.
extern "C" __global__ void __launch_bounds__(NF_SM_THREADS) nf_small_eigh(const nf_sm_params p) {
  const int n = nf_sm_n(p), nn = n * n;
  const bool upper = (p.flags & 1) != 0, vectors = (p.flags & 2) != 0;
  const nf_sm_block blk = nf_sm_enter(p.a, p.batch, nn);
  const nf_st* src = nf_sm_item(blk, p.a, nn);
  const int live_n = blk.live ? n : 0;  // the identity for a thread without a matrix: converged
  nf_t a[NF_SM_N][NF_SM_N], v[NF_SM_N][NF_SM_N];
  nf_rt total = nf_rt(0);
#pragma unroll
  for (int i = 0; i < NF_SM_N; ++i) {
#pragma unroll
    for (int j = 0; j < NF_SM_N; ++j) {
      if (j >= i) {  // only the chosen triangle is read
        nf_t x = nf_t(i == j ? 1 : 0);
        if (j < live_n) x = upper ? nf_t(src[i * n + j]) : nf_sm_conj(nf_t(src[j * n + i]));
        if (j == i) x = nf_t(nf_sm_re(x));  // LAPACK ignores the diagonal's imaginary part
        a[i][j] = x;
        if (j < live_n) total += (j == i ? nf_rt(1) : nf_rt(2)) * nf_sm_norm(x);
      }
      v[i][j] = nf_t(i == j ? 1 : 0);
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
        const nf_rt app = nf_sm_re(a[pp][pp]), aqq = nf_sm_re(a[q][q]);
        // A pair below eps / 100 of both its diagonal entries (after the first sweeps) changes the
        // eigenvalues by less than their rounding: zeroed without a rotation (Rutishauser's
        // threshold; the last sweeps are mostly such pairs).
        if (r == nf_rt(0) ||
            (sweep > 2 && app + nf_rt(100) * r == app && aqq + nf_rt(100) * r == aqq)) {
          a[pp][q] = nf_t(0);
          continue;
        }
        const nf_t ce_ = nf_sm_conj(a[pp][q] * nf_t(nf_rt(1) / r));  // conj(e)
        // The rotation that zeroes the real pair (Rutishauser's, the smaller angle): with
        // theta = (a_qq - a_pp) / 2r, t = sign(theta) / (|theta| + sqrt(theta^2 + 1)), written
        // as sign(d) 2r / (|d| + sqrt(d^2 + 4r^2)) on d and 2r scaled by the larger (no
        // overflow): one division and one square root fewer, c by a reciprocal square root.
        const nf_rt d = aqq - app, ad = nf::m::fabs(d);
        const nf_rt scale = nf_rt(1) / (ad > r + r ? ad : r + r);
        const nf_rt ds = d * scale, rs = (r + r) * scale;
        const nf_rt t = (d >= 0 ? rs : -rs) / (nf::m::fabs(ds) + nf::m::sqrt(ds * ds + rs * rs));
        const nf_rt c = nf_sm_rsqrt(t * t + nf_rt(1)), s = t * c;
        const nf_t sc = nf_t(s) * ce_, cc = nf_t(c) * ce_;  // s conj(e), c conj(e)
#pragma unroll
        for (int k = 0; k < NF_SM_N; ++k) {  // columns pp, q of a U (rows pp, q: their conjugates)
          if (k != pp && k != q) {
            const nf_t x = nf_sm_herm(a, k, pp), y = nf_sm_herm(a, k, q);
            nf_sm_set_herm(a, k, pp, nf_t(c) * x - sc * y);
            nf_sm_set_herm(a, k, q, nf_t(s) * x + cc * y);
          }
        }
        a[pp][pp] = nf_t(app - t * r);
        a[q][q] = nf_t(aqq + t * r);
        a[pp][q] = nf_t(0);
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
  if (blk.live) nf_sm_report(p, blk.m, info);
  nf_sm_factored(p, blk.live && info != 0);
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
  if (blk.live) {
    nf_srt* wout = static_cast<nf_srt*>(p.out) + blk.m * n;
    nf_st* vout = nf_sm_item(blk, p.out2, nn);
#pragma unroll
    for (int i = 0; i < NF_SM_N; ++i) {
      if (i < n) wout[i] = nf_srt(w[i]);
      if (vectors) {
#pragma unroll
        for (int j = 0; j < NF_SM_N; ++j) {
          if (i < n && j < n) vout[i * n + j] = nf_st(v[i][j]);
        }
      }
    }
  }
  if (vectors) nf_sm_leave(blk, p.out2, nn);
}
#endif
