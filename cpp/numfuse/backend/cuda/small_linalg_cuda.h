// Stacks of small matrices on CUDA (kernels/small_linalg.cuh): one thread per matrix, the matrix
// in registers, one launch for the whole stack. linalg_cuda.cpp routes a LinalgNode here when
// small_linalg_size() says the kernels cover it, and keeps cuSOLVER for everything else.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/core/array.h"
#include "numfuse/ir/linalg_solve.h"

namespace nf::cuda {

constexpr int64_t kSmallLinalgMaxN = 16;  // the largest padded size compiled (see decisions.md)

// The kernels' parameter struct (nf_sm_params), byte for byte.
struct SmallLinalgParams {
  const void* a;
  const void* b;
  void* out;
  void* out2;
  int* info;
  int* failed;
  int* factored;
  int* blocks;
  long long batch;
  int n, nrhs, flags, ticket;
  int wave_sms, wave_blocks, stagger_ns, wave_flags;  // small_linalg_stagger(), _prefetch()
};

// The padded size (2, 4, 8 or 16) the kernel for `op` on n x n matrices of `dt` runs at, or 0
// where linalg_cuda.cpp keeps cuSOLVER: an operation these kernels lack (qr, svd, eig), or n
// above the bound for op and dt (4, 8 or 16, from the kernels' register use), or above
// NUMFUSE_SMALL_LINALG_MAX_N where that is set (0: never these kernels, for comparisons).
int small_linalg_size(LinalgOp op, DType dt, int64_t n);
// The kernel a call runs: op on dt at the padded size N, its matrices stored as `storage`, with
// n (exact_n) and solve's single right-hand column (nrhs 1) compiled in where they are not 0 (the
// kernels that compile fast do this), on `device`.
struct SmallLinalgVariant {
  LinalgOp op;
  DType dt, storage;
  int N;
  int64_t exact_n, nrhs;
  int device;
};
SmallLinalgVariant small_linalg_variant(const LinalgNode& node, int64_t n);
// Whether the variant's kernel is compiled and loaded in this process (no compile, no launch).
bool small_linalg_loaded(const SmallLinalgVariant& v);

// Whether the kernel runs this call of `batch` matrices, or cuSOLVER does. A loaded kernel runs;
// so does one that compiles fast (real LU, det and Cholesky up to N = 8, real Jacobi up to N = 4:
// 60-80 ms on the H100's host, compiled at the call: cuSOLVER's route would compile as many
// layout kernels), and a stack of kSmallLinalgCompileBatch matrices or more (on cuSOLVER it would
// run far longer than the compile). The others take 0.6-6.7 s to compile (complex, N = 16, Jacobi
// at 8; tools/nvrtc_compile_times.py): a small call of theirs never waits for NVRTC. cuSOLVER
// takes it, and from a loop's kSmallLinalgAskLimit-th call the kernel is compiled on a thread of
// its own, so that no step of the loop (no Hypothesis example, 800 ms deadline) pays seconds.
enum class SmallLinalgRoute {
  Kernel,                   // the kernel (compiled at the call when it is not yet)
  Solver,                   // cuSOLVER
  SolverCompileBackground,  // cuSOLVER; the caller starts the kernel's compile in the background
};
SmallLinalgRoute small_linalg_route(const SmallLinalgVariant& v, int64_t batch, bool loaded);
// The compile small_linalg_route asked for, on a background thread; the routes after it find the
// kernel loaded. One that fails leaves small calls on cuSOLVER (a large stack's call then compiles
// at the call and raises the error there).
void compile_small_linalg_in_background(const SmallLinalgVariant& v);
constexpr int64_t kSmallLinalgCompileBatch = 256;
constexpr int kSmallLinalgAskLimit = 32;
// Whether the kernel for (op, dt, N) compiles in well under a second (see small_linalg_route).
bool small_linalg_compiles_fast(LinalgOp op, DType dt, int N);

// The padded size of n x n matrices: the power of two from 2 to kSmallLinalgMaxN holding n.
int small_linalg_padded_size(int64_t n);

// Whether `op` on dt at the padded size N runs the group kernel (small_linalg_group.cuh: N threads
// a matrix, a row each; inv, solve, det and slogdet where a thread cannot hold the matrix in
// registers) rather than the one-thread-per-matrix kernels. NUMFUSE_SMALL_LINALG_GROUP=0 never,
// =1 for every inv, solve, det and slogdet (to measure one against the other).
bool small_linalg_group(LinalgOp op, DType dt, int N);
// Threads a block (NF_SM_THREADS). One thread a matrix: 128, 64 or 32, the most whose
// shared-memory tile fits 48 KB (32 where none does: those read global memory). Group kernels:
// 128, or 64 where the tile and pivot buffers would not fit. NUMFUSE_SMALL_LINALG_THREADS=32|64|128
// forces the one-thread kernels' size where the tile fits (for measurements).
unsigned small_linalg_threads(LinalgOp op, DType dt, int N);
// Matrices a block: threads, or threads / N for the group kernels.
unsigned small_linalg_matrices_per_block(LinalgOp op, DType dt, int N);
// The kernel source (without the prelude) and its entry point, for the padded size N: computed
// in dt, the arrays in memory of `storage` (dt, or its single precision: LinalgSpec::widen). With
// n == N the size is a compile-time constant, as solve's nrhs == 1 is (0: sizes from the
// parameters, any n up to N and any nrhs).
std::string small_linalg_body(LinalgOp op, DType dt, int N, DType storage, int64_t n = 0,
                              int64_t nrhs = 0);
const char* small_linalg_entry(LinalgOp op, DType dt, int N);
// The staggered first wave (small_linalg.cuh, nf_sm_stagger) of the one-thread inv and solve
// kernels: ns > 0 compiles the kernel with NF_SM_STAGGER, whose upper half of the launch's first
// wave waits ns before loading; graded: the first wave's r-th round of blocks waits r * ns;
// automatic: graded, ns the time a round's loads take at 80% of the memory's peak.
struct SmallLinalgStagger {
  int ns = 0;
  bool graded = false, automatic = false;
};
// NUMFUSE_SMALL_LINALG_STAGGER read: "" or "0" off, "<ns>", "g<ns>", "auto" (ns 1: computed a
// launch).
SmallLinalgStagger parse_small_linalg_stagger(const std::string& s);
// The kernel's stagger: NUMFUSE_SMALL_LINALG_STAGGER's for every one-thread inv and solve kernel
// where it is set, else 3 us for float64 8 x 8 inv (measured on the H100: the kernel 42.1 -> 38.9
// us) and none for the others (not measured).
SmallLinalgStagger small_linalg_stagger(LinalgOp op, DType dt, int N, DType storage);
// NUMFUSE_SMALL_LINALG_PREFETCH=1 (default off): inv and solve kernels compiled with
// NF_SM_PREFETCH, each block prefetching the next wave's matrices into L2 once it has its own
// (small_linalg.cuh, nf_sm_prefetch_next). A measurement switch until an H100 run settles it.
bool small_linalg_prefetch();
// Blocks of `threads` threads of fn resident on one SM of `device` (registers, shared memory,
// threads and the block limit; the occupancy calculator's arithmetic for sm_70 on).
int small_linalg_resident_blocks(CUfunction fn, unsigned threads, int device);
// The flags word of the kernel for `spec`.
int small_linalg_flags(const LinalgSpec& spec);

// Whether the kernels take node, whose matrices are n x n (small_linalg_size() > 0 for the dtype
// it computes in, and for the group solve at most N right-hand sides).
bool small_linalg_covers(const LinalgNode& node, int64_t n);
// Whether node's evaluation runs these kernels with no compile worth the name (the quick ones of
// small_linalg_compiles_fast), so that it only launches and waits: Backend::waits_for_device
// (false for all with NUMFUSE_SMALL_LINALG_GIL_AT_WAIT=0, to measure).
bool small_linalg_waits_only(const LinalgNode& node);
// The dtype node's kernel computes in: its inputs', or double precision where spec.widen.
DType small_linalg_compute_dtype(const LinalgNode& node);
// Enqueues the kernel for node (batch matrices of n x n, small_linalg_size() > 0 for the dtype it
// computes in: double precision for a widened single-precision node), each writing its info code
// into `infos` where that is an array (an empty Array: no codes). Returns the failure word the
// kernel sets when any matrix failed (pinned host memory, zeroed here: read it after waiting for
// the stream), or nullptr where nothing can fail (det, slogdet). The host runs it without codes
// and, only when the word is set, again with them: the kernel is deterministic, and its inputs
// are not its outputs.
const volatile int* eval_small_linalg(LinalgNode& node, const std::vector<Array>& outs,
                                      const Array& infos, int64_t batch, int64_t n);
// Waits until the failure word of this thread's last eval_small_linalg may be read: only until
// every matrix is factored, the kernel still storing its results (stream-ordered before any
// reader), or (NUMFUSE_SMALL_LINALG_EARLY=0) for the stream. Armed for Ctrl-C where the caller is.
void small_linalg_wait(int device);

}  // namespace nf::cuda
