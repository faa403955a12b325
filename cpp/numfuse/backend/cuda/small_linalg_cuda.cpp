// LinalgNode on stacks of small matrices: the NVRTC kernels of kernels/small_linalg.cuh, one per
// (operation, dtype, padded size), one launch for the stack and no pointer arrays, workspace
// queries or per-matrix launches (which made cuSOLVER's batched path slower than CuPy's, see
// docs/decisions.md).
#include "numfuse/backend/cuda/small_linalg_cuda.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/backend/cuda/warmup.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/core/stage_trace.h"

namespace nf::cuda {

namespace {

int kernel_op(LinalgOp op) {
  switch (op) {
    case LinalgOp::Inv:
      return 0;
    case LinalgOp::Solve:
      return 1;
    case LinalgOp::Det:
    case LinalgOp::Slogdet:
      return 2;
    case LinalgOp::Cholesky:
      return 3;
    default:
      return 4;  // Eigh, Eigvalsh
  }
}

// The largest n each kernel takes by default: the padded sizes whose matrix stays in registers, or
// spills little (ptxas -v for sm_90, see docs/decisions.md). Double LU at N=16 spills 52 KB
// (a 4.3 KB stack frame a thread), double Jacobi at 16 spills 258 KB: those stay on cuSOLVER
// until an H100 run shows the local-memory kernels still win.
bool lu_op(LinalgOp op) {
  return op == LinalgOp::Inv || op == LinalgOp::Solve || op == LinalgOp::Det ||
         op == LinalgOp::Slogdet;
}

int64_t default_max_n(LinalgOp op, DType dt) {
  if (lu_op(op)) return 16;  // the group kernel above what registers hold
  const bool cholesky = op == LinalgOp::Cholesky;
  const bool jacobi = op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh;
  switch (dt) {
    case DType::Float32:
      return jacobi ? 8 : 16;
    case DType::Float64:
    case DType::Complex64:
      return cholesky ? 16 : 8;
    default:
      return jacobi ? 4 : 8;  // complex128 Jacobi at N = 8 spills 16 KB
  }
}

// NUMFUSE_SMALL_LINALG_MAX_N overrides every bound (0: cuSOLVER for everything, for comparisons).
int64_t max_n(LinalgOp op, DType dt) {
  static const int64_t forced = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_MAX_N");
    return e && *e ? std::min<int64_t>(std::atoll(e), kSmallLinalgMaxN) : -1;
  }();
  return forced >= 0 ? forced : default_max_n(op, dt);
}

}  // namespace

int small_linalg_size(LinalgOp op, DType dt, int64_t n) {
  if (n < 1 || n > max_n(op, dt)) return 0;
  switch (op) {
    case LinalgOp::Inv:
    case LinalgOp::Solve:
    case LinalgOp::Det:
    case LinalgOp::Slogdet:
    case LinalgOp::Cholesky:
      break;
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh:
      break;
    default:
      return 0;
  }
  return small_linalg_padded_size(n);
}

int small_linalg_padded_size(int64_t n) {
  int N = 2;
  while (N < n) N *= 2;
  return N;
}

const char* small_linalg_entry(LinalgOp op, DType dt, int N) {
  if (small_linalg_group(op, dt, N)) return "nf_small_group";
  switch (kernel_op(op)) {
    case 0:
    case 1:
      return "nf_small_solve";
    case 2:
      return "nf_small_det";
    case 3:
      return "nf_small_cholesky";
    default:
      return "nf_small_eigh";
  }
}

bool small_linalg_group(LinalgOp op, DType dt, int N) {
  static const int forced = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_GROUP");
    return e && *e ? std::atoi(e) : -1;
  }();
  if (!lu_op(op) || forced == 0) return false;
  // ptxas -v for sm_90 (docs/decisions.md): one thread holding complex128 8 x 8 or any 16 x 16
  // spills 4-21 KB; a row a thread does not.
  return forced == 1 || N == 16 || (N == 8 && dt == DType::Complex128);
}

unsigned small_linalg_threads(LinalgOp op, DType dt, int N) {
  const size_t s = itemsize(dt);
  if (small_linalg_group(op, dt, N)) {
    // Blocks of 128: five an SM at ~100 registers a thread. The tile and the pivot rows must fit
    // 48 KB (they do for every dtype up to 16 x 16).
    const unsigned t = 128;
    const size_t bytes = t * (N + 1) * s + t / N * 2 * N * s;
    return bytes <= 48 * 1024 ? t : 64;
  }
  // A block's matrices are copied as one span with 16-byte words in flight, so more of them a
  // block keeps more bytes in flight; registers (not the tile) then bound the blocks an SM holds.
  // NUMFUSE_SMALL_LINALG_THREADS (32, 64 or 128, where its tile fits) forces the size, to measure
  // smaller blocks: as many warps an SM, in more blocks whose load, compute and store phases
  // overlap one another's.
  static const unsigned forced = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_THREADS");
    const int t = e && *e ? std::atoi(e) : 0;
    return t == 32 || t == 64 || t == 128 ? static_cast<unsigned>(t) : 0u;
  }();
  const size_t slot_bytes = static_cast<size_t>(N * N + 1) * s;
  if (forced && forced * slot_bytes <= 48 * 1024) return forced;
  for (unsigned t : {128u, 64u}) {
    if (t * slot_bytes <= 48 * 1024) return t;
  }
  return 32;
}

unsigned small_linalg_matrices_per_block(LinalgOp op, DType dt, int N) {
  const unsigned t = small_linalg_threads(op, dt, N);
  return small_linalg_group(op, dt, N) ? t / N : t;
}

SmallLinalgStagger parse_small_linalg_stagger(const std::string& s) {
  SmallLinalgStagger r;
  if (s == "auto") {
    r.ns = 1;  // on; the wait is computed a launch
    r.graded = r.automatic = true;
    return r;
  }
  r.graded = !s.empty() && s[0] == 'g';
  const char* e = s.c_str() + (r.graded ? 1 : 0);
  r.ns = *e ? std::clamp(std::atoi(e), 0, 1000000) : 0;
  return r;
}

bool small_linalg_prefetch() {
  constexpr bool kDefaultPrefetch = false;  // when NUMFUSE_SMALL_LINALG_PREFETCH is not set
  static const bool on = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_PREFETCH");
    return e && *e ? *e == '1' : kDefaultPrefetch;
  }();
  return on;
}

namespace {
// The kernels the stagger and the prefetch apply to: the one-thread inv and solve.
bool wave_kernel(LinalgOp op, DType dt, int N) {
  return (op == LinalgOp::Inv || op == LinalgOp::Solve) && !small_linalg_group(op, dt, N);
}

// NUMFUSE_SMALL_LINALG_STAGGER where set.
struct StaggerSwitch {
  bool set = false;
  SmallLinalgStagger value;
};
const StaggerSwitch& stagger_switch() {
  static const StaggerSwitch s = [] {
    StaggerSwitch r;
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_STAGGER");
    if (e && *e) {
      r.set = true;
      r.value = parse_small_linalg_stagger(e);
    }
    return r;
  }();
  return s;
}

// The default's wait for the upper half of the first wave of float64 8 x 8 inv. H100 round 2
// (helper J, bench/RESULTS.md): the kernel 42.1 -> 38.9 us under CUPTI (graded 1.5 us a round
// 39.4, auto 39.9, with the next wave prefetched 42.8-43.9), the call 55.0 -> 52.5 us.
constexpr int kDefaultStaggerNs = 3000;

bool stagger_applies(LinalgOp op, DType dt, int N, DType storage) {
  return small_linalg_stagger(op, dt, N, storage).ns > 0;
}
bool prefetch_applies(LinalgOp op, DType dt, int N) {
  return small_linalg_prefetch() && wave_kernel(op, dt, N);
}
}  // namespace

SmallLinalgStagger small_linalg_stagger(LinalgOp op, DType dt, int N, DType storage) {
  if (!wave_kernel(op, dt, N)) return {};
  const StaggerSwitch& s = stagger_switch();
  if (s.set) return s.value;
  SmallLinalgStagger d;
  if (op == LinalgOp::Inv && dt == DType::Float64 && storage == DType::Float64 && N == 8) {
    d.ns = kDefaultStaggerNs;
  }
  return d;
}

int small_linalg_resident_blocks(CUfunction fn, unsigned threads, int device) {
  const DeviceProperties& d = device_properties(device);
  int regs = 0, smem = 0;
  check(driver().FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn), "cuFuncGetAttribute");
  check(driver().FuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
        "cuFuncGetAttribute");
  // Registers are allocated a warp at a time in units of 256; a block's shared memory carries
  // 1 KB the system reserves (sm_80 on).
  const int warps = static_cast<int>((threads + 31) / 32);
  const int warp_regs = (std::max(regs, 1) * 32 + 255) / 256 * 256;
  int blocks = d.max_blocks_per_multiprocessor > 0 ? d.max_blocks_per_multiprocessor : 16;
  blocks = std::min(blocks, d.max_registers_per_multiprocessor / (warp_regs * warps));
  blocks = std::min(blocks, d.max_threads_per_multiprocessor / static_cast<int>(threads));
  if (smem > 0) blocks = std::min(blocks, d.max_shared_memory_per_multiprocessor / (smem + 1024));
  return std::max(blocks, 1);
}

std::string small_linalg_body(LinalgOp op, DType dt, int N, DType storage, int64_t n,
                              int64_t nrhs) {
  const bool group = small_linalg_group(op, dt, N);
  // Sizes as compile-time constants (small_linalg.cuh: NF_SM_EXACT, NF_SM_NRHS).
  const std::string sizes = std::string(n == N ? "#define NF_SM_EXACT 1\n" : "") +
                            (op == LinalgOp::Solve && nrhs == 1 ? "#define NF_SM_NRHS 1\n" : "") +
                            (stagger_applies(op, dt, N, storage) ? "#define NF_SM_STAGGER 1\n"
                                                                 : "") +
                            (prefetch_applies(op, dt, N) ? "#define NF_SM_PREFETCH 1\n" : "");
  auto single = [](DType d) { return d == DType::Float32 || d == DType::Complex64; };
  return std::string("typedef ") + cuda_storage_type(dt) + " nf_t;\ntypedef " +
         (single(dt) ? "float" : "double") + " nf_rt;\ntypedef " + cuda_storage_type(storage) +
         " nf_st;\ntypedef " + (single(storage) ? "float" : "double") +
         " nf_srt;\n#define NF_SM_N " + std::to_string(N) + "\n#define NF_SM_THREADS " +
         std::to_string(small_linalg_threads(op, dt, N)) + "\n#define NF_SM_OP " +
         std::to_string(kernel_op(op)) + "\n#define NF_SM_GROUP " + (group ? "1" : "0") + "\n" +
         sizes + kernel_templates::small_linalg +
         (group ? kernel_templates::small_linalg_group : "");
}

int small_linalg_flags(const LinalgSpec& spec) {
  switch (spec.op) {
    case LinalgOp::Slogdet:
      return 1;
    case LinalgOp::Cholesky:
      return spec.upper ? 1 : 0;
    case LinalgOp::Eigh:
      return (spec.upper ? 1 : 0) | 2;
    case LinalgOp::Eigvalsh:
      return spec.upper ? 1 : 0;
    default:
      return 0;
  }
}

namespace {

// The kernels read whole C-contiguous stacks: a strided, transposed or broadcast input (solve's b
// broadcast against a's stack has zero batch strides) is copied dense first, as the cuSOLVER
// path's copies do. The copies are freed stream-ordered, after the kernel.
Array dense_stack(const Array& x) {
  if (x.c_contiguous()) return x;
  Array d = Array::empty(x.shape, x.dtype, x.device());
  copy_on_device(x, d);
  return d;
}

// Per kernel (its key, small_linalg_key): how many small calls asked for it, and whether its
// background compile was started.
struct Demand {
  int asked = 0;
  bool compiling = false;  // started (it stays set: a compile that failed is not tried again)
};
struct DemandTable {
  std::mutex mutex;
  std::map<std::string, Demand> table;
};
DemandTable& demand_table() {
  static auto* t = new DemandTable();  // lives until exit
  return *t;
}

// This thread's failure word: a word of pinned, mapped host memory (under unified addressing,
// which every platform of CUDA 12 has, its device address is its host address), written by the
// kernel and read by the host after its wait for the stream. It replaces a memset launch before
// the kernel and a device-to-host copy after it. One a thread: each call of a thread waits for
// its kernel before the thread's next call zeroes the word (a wait ended by Ctrl-C can leave a
// late write, which only makes the next call read its codes, all zero, for nothing).
// Kept for the thread's life: a pinned page each, and few threads evaluate.
int* failure_word(int device) {
  thread_local int* word = [device] {
    activate(device);  // cuMemHostAlloc needs a current context (PORTABLE: every device's)
    void* p = nullptr;
    check(driver().MemHostAlloc(&p, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
          "cuMemHostAlloc");
    return static_cast<int*>(p);
  }();
  return word;
}

// Early completion (small_linalg.cuh's nf_sm_factored): the host waits for the word after the
// failure word (the same pinned page), which the kernel's last block sets to the call's ticket
// once every matrix is factored, and returns while the blocks still store their results (every
// reader of them, numfuse's or another library's through the exchange protocols, is ordered
// after the kernel on a stream). On by default since H100 round 3 (the cuda tests pass with it,
// the wait ~2 us shorter); NUMFUSE_SMALL_LINALG_EARLY=0 waits for the stream instead.
bool early_completion() {
  static const bool on = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_EARLY");
    return !(e && *e == '0');
  }();
  return on;
}

// This thread's early-completion state: the ticket of its last launch (0: it waits for the
// stream) and, per device, the kernels' block counter (device memory, zero between launches,
// kept for the thread's life). A wait given up (Ctrl-C) leaves its kernel counting: the counter
// is then dropped (4 bytes kept) and a fresh one zeroed for the next call.
struct EarlyState {
  int ticket = 0;
  CUstream stream = nullptr;  // the stream of this thread's last launch
  bool launched = false;      // stream is set: the wait needs no enqueue_stream of its own
  std::map<int, int*> counters;
};
EarlyState& early_state() {
  thread_local EarlyState state;
  return state;
}

int* block_counter(int device) {
  int*& c = early_state().counters[device];
  if (!c) {
    const Stream s = enqueue_stream(device);
    const CUdeviceptr p = device_malloc(sizeof(int), s);
    check(driver().MemsetD8Async(p, 0, sizeof(int), s.handle()), "cuMemsetD8Async");
    c = reinterpret_cast<int*>(p);
  }
  return c;
}

struct EarlyWait {
  const volatile int* word;
  int ticket;  // 0: the stream alone
  CUstream stream;
  unsigned polls;
};
// Done when the word holds the ticket, or when the stream has finished (every poll without a
// ticket, every 16th with one: a kernel that failed, or a word never written, ends the wait
// through the stream's status).
CUresult query_call(void* h) {
  EarlyWait& w = *static_cast<EarlyWait*>(h);
  if (w.ticket != 0) {
    if (*w.word == w.ticket) {
      // The failure word is read after the ticket (the kernel stored it first): an acquire keeps
      // that order on hosts whose loads may pass one another (a no-op on x86).
      std::atomic_thread_fence(std::memory_order_acquire);
      return CUDA_SUCCESS;
    }
    if (++w.polls % 16 != 0) return CUDA_ERROR_NOT_READY;
  }
  return driver().StreamQuery(w.stream);
}
CUresult block_call(void* h) {  // unarmed: the stream's blocking wait
  return driver().StreamSynchronize(static_cast<EarlyWait*>(h)->stream);
}

// A call's kernel, by what selects it: this thread's last few, looked up before the kernel cache
// (whose key is a string of ~40 characters built with five to_string, its options a vector built
// each call, its body a std::function) and the demand table's lock, none of which a loop of one
// operation needs after its first call.
struct KernelChoice {
  const char* entry;  // one of small_linalg_entry's literals
  int op, dt, storage, N;
  bool exact, nrhs1;
  int device;
  bool operator==(const KernelChoice& o) const {
    return entry == o.entry && op == o.op && dt == o.dt && storage == o.storage && N == o.N &&
           exact == o.exact && nrhs1 == o.nrhs1 && device == o.device;
  }
};
struct RecentKernels {
  KernelChoice choice[4];
  CUfunction fn[4] = {};
  int resident[4] = {};  // blocks an SM (NUMFUSE_SMALL_LINALG_STAGGER only)
  unsigned next = 0;
};
thread_local RecentKernels t_recent;

CUfunction recent_kernel(const KernelChoice& c, int* resident) {
  for (int i = 0; i < 4; ++i) {
    if (t_recent.fn[i] && t_recent.choice[i] == c) {
      *resident = t_recent.resident[i];
      return t_recent.fn[i];
    }
  }
  return nullptr;
}

void remember_kernel(const KernelChoice& c, CUfunction fn, int resident) {
  const unsigned i = t_recent.next++ % 4;
  t_recent.choice[i] = c;
  t_recent.fn[i] = fn;
  t_recent.resident[i] = resident;
}

std::string small_linalg_key(const SmallLinalgVariant& v) {
  return std::string("small_linalg:") + small_linalg_entry(v.op, v.dt, v.N) + ':' +
         std::to_string(kernel_op(v.op)) + ':' + std::to_string(static_cast<int>(v.dt)) + ':' +
         std::to_string(static_cast<int>(v.storage)) + ':' + std::to_string(v.N) +
         (v.exact_n ? ":exact" : "") + (v.nrhs == 1 ? ":nrhs1" : "") +
         (stagger_applies(v.op, v.dt, v.N, v.storage) ? ":stagger" : "") +
         (prefetch_applies(v.op, v.dt, v.N) ? ":prefetch" : "");
}

const std::vector<std::string>& small_linalg_options() {
  static const std::vector<std::string> options{"-std=c++17"};
  return options;
}

// The compiled, loaded kernel of the variant (compiled here when it is not yet).
CUfunction small_linalg_kernel(const SmallLinalgVariant& v) {
  return keyed_kernel(small_linalg_key(v), small_linalg_entry(v.op, v.dt, v.N),
                      small_linalg_options(), v.device, [&] {
                        return small_linalg_body(v.op, v.dt, v.N, v.storage, v.exact_n, v.nrhs);
                      });
}

KernelChoice choice_of(const SmallLinalgVariant& v) {
  return KernelChoice{small_linalg_entry(v.op, v.dt, v.N), kernel_op(v.op), static_cast<int>(v.dt),
                      static_cast<int>(v.storage), v.N, v.exact_n != 0, v.nrhs == 1, v.device};
}

void run_background_compile(void* arg) {
  const std::unique_ptr<SmallLinalgVariant> v(static_cast<SmallLinalgVariant*>(arg));
  try {
    small_linalg_kernel(*v);
  } catch (...) {  // not loaded: small calls stay on cuSOLVER
  }
}

}  // namespace

SmallLinalgVariant small_linalg_variant(const LinalgNode& node, int64_t n) {
  SmallLinalgVariant v{};
  v.op = node.spec.op;
  v.dt = small_linalg_compute_dtype(node);
  v.storage = node.inputs[0].dtype;
  v.N = small_linalg_size(v.op, v.dt, n);
  v.device = node.device.index;
  // n == N and solve's single column compile their own kernels (sizes as constants), where a
  // kernel compiles fast: a second build of the slow ones (seconds) would cost more than it saves.
  // NUMFUSE_SMALL_LINALG_CONSTANT_SIZES=0 turns it off (to measure one against the other).
  static const bool constant_sizes = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_CONSTANT_SIZES");
    return !(e && *e == '0');
  }();
  const bool fast = constant_sizes && small_linalg_compiles_fast(v.op, v.dt, v.N);
  v.exact_n = fast && n == v.N ? n : 0;
  v.nrhs = fast && v.op == LinalgOp::Solve ? node.inputs[1].shape.back() : 0;
  return v;
}

bool small_linalg_loaded(const SmallLinalgVariant& v) {
  int resident = 0;
  return recent_kernel(choice_of(v), &resident) != nullptr ||
         loaded_keyed_kernel(small_linalg_key(v), small_linalg_entry(v.op, v.dt, v.N),
                             small_linalg_options(), v.device) != nullptr;
}

void compile_small_linalg_in_background(const SmallLinalgVariant& v) {
  auto* job = new SmallLinalgVariant(v);
  if (!run_in_background(run_background_compile, job)) {
    delete job;  // no thread: a stack of kSmallLinalgCompileBatch compiles it at its call
  }
}

void small_linalg_wait(int device) {
  device_wait_begins();  // other threads run from here (Backend::waits_for_device)
  EarlyState& st = early_state();
  activate(device);
  EarlyWait w{failure_word(device) + 1, st.ticket,
              st.launched ? st.stream : enqueue_stream(device).handle(), 0};
  st.ticket = 0;
  st.launched = false;
  try {
    // Armed (Ctrl-C can end it), wait_interruptible spins 200 us and then sleeps, which a large
    // stack's kernel outlasts (eigh of 100,000 8x8 float64: a 380 us kernel, the call ~170 us
    // longer on the H100): these kernels are short, so spin (yielding) up to 2 ms first.
    // NUMFUSE_SMALL_LINALG_WAIT (to measure the wait's share of a call's fixed cost on a GPU):
    // "spin" polls without yielding, "block" is the driver's blocking wait (not interruptible).
    static const int mode = [] {
      const char* e = std::getenv("NUMFUSE_SMALL_LINALG_WAIT");
      const std::string m = e ? e : "";
      return m == "spin" ? 1 : m == "block" ? 2 : 0;
    }();
    if (mode == 2) {
      while (w.ticket != 0) {  // the word, then the stream (its stores)
        const CUresult r = query_call(&w);
        if (r == CUDA_SUCCESS) return;
        if (r != CUDA_ERROR_NOT_READY) check(r, "cuStreamQuery");
      }
      check(block_call(&w), "cuStreamSynchronize");
      return;
    }
    if (interrupt_flag()) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
      for (;;) {
        const CUresult r = query_call(&w);
        if (r == CUDA_SUCCESS) return;
        if (r != CUDA_ERROR_NOT_READY) check(r, "cuStreamQuery");
        check_interrupt();
        if (std::chrono::steady_clock::now() >= until) break;
        if (mode == 0) std::this_thread::yield();
      }
    }
    wait_interruptible(query_call, block_call, &w, "cuStreamSynchronize");
  } catch (...) {
    if (w.ticket != 0) st.counters.erase(device);  // its kernel may still count
    throw;
  }
}

bool small_linalg_compiles_fast(LinalgOp op, DType dt, int N) {
  if (is_complex(dt)) return false;
  const bool jacobi = op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh;
  return N <= (jacobi ? 4 : 8);
}

SmallLinalgRoute small_linalg_route(const SmallLinalgVariant& v, int64_t batch, bool loaded) {
  if (loaded || batch >= kSmallLinalgCompileBatch || small_linalg_compiles_fast(v.op, v.dt, v.N)) {
    return SmallLinalgRoute::Kernel;
  }
  DemandTable& d = demand_table();
  std::lock_guard<std::mutex> lock(d.mutex);
  Demand& k = d.table[small_linalg_key(v)];
  ++k.asked;
  if (k.compiling) return SmallLinalgRoute::Solver;
  if (k.asked >= kSmallLinalgAskLimit) {
    k.compiling = true;
    return SmallLinalgRoute::SolverCompileBackground;
  }
  return SmallLinalgRoute::Solver;
}

bool small_linalg_covers(const LinalgNode& node, int64_t n) {
  const LinalgOp op = node.spec.op;
  const DType dt = small_linalg_compute_dtype(node);
  const int N = small_linalg_size(op, dt, n);
  if (N == 0) return false;
  // The group kernel's threads hold a row of b each: nrhs <= N.
  return !(op == LinalgOp::Solve && small_linalg_group(op, dt, N) &&
           node.inputs[1].shape.back() > N);
}

bool small_linalg_waits_only(const LinalgNode& node) {
  // NUMFUSE_SMALL_LINALG_GIL_AT_WAIT=0: the GIL released before the launch, as before (to measure).
  static const bool on = [] {
    const char* e = std::getenv("NUMFUSE_SMALL_LINALG_GIL_AT_WAIT");
    return !(e && *e == '0');
  }();
  if (!on) return false;
  const Array& a = node.inputs[0];
  if (a.ndim() < 2) return false;
  const int64_t m = a.shape[a.ndim() - 2], n = a.shape[a.ndim() - 1];
  if (m != n || !small_linalg_covers(node, n)) return false;
  const DType dt = small_linalg_compute_dtype(node);
  return small_linalg_compiles_fast(node.spec.op, dt, small_linalg_size(node.spec.op, dt, n));
}

DType small_linalg_compute_dtype(const LinalgNode& node) {
  const DType dt = node.inputs[0].dtype;
  if (!node.spec.widen) return dt;
  return dt == DType::Float32 ? DType::Float64 : dt == DType::Complex64 ? DType::Complex128 : dt;
}

const volatile int* eval_small_linalg(LinalgNode& node, const std::vector<Array>& outs,
                                      const Array& infos, int64_t batch, int64_t n) {
  const LinalgOp op = node.spec.op;
  const DType storage = node.inputs[0].dtype;
  const DType dt = small_linalg_compute_dtype(node);
  const int N = small_linalg_size(op, dt, n);
  const Array a = dense_stack(node.inputs[0]);
  const Array b = op == LinalgOp::Solve ? dense_stack(node.inputs[1]) : Array();
  SmallLinalgParams p{};
  p.a = a.data();
  p.out = outs[0].data();
  p.out2 = outs.size() > 1 ? outs[1].data() : nullptr;
  p.info = infos.storage ? infos.data_as<int>() : nullptr;
  p.batch = batch;
  p.n = static_cast<int>(n);
  p.flags = small_linalg_flags(node.spec);
  if (op == LinalgOp::Solve) {
    p.b = b.data();
    p.nrhs = static_cast<int>(b.shape.back());
    if (p.nrhs == 0) return nullptr;
  }
  stage_mark("params");
  const bool can_fail = op != LinalgOp::Det && op != LinalgOp::Slogdet;
  volatile int* failed = nullptr;
  EarlyState& early = early_state();
  early.ticket = 0;
  early.launched = false;
  if (can_fail) {
    p.failed = failure_word(node.device.index);
    failed = p.failed;
    *failed = 0;  // before the launch: the kernel's stores come after it
    if (early_completion()) {
      static std::atomic<int> tickets{0};
      int t = tickets.fetch_add(1) + 1;
      if (t <= 0) t = tickets = 1;  // never 0 (no ticket) nor negative after a wrap
      p.factored = p.failed + 1;
      p.blocks = block_counter(node.device.index);
      p.ticket = t;
      early.ticket = t;
    }
  }
  const int dev = node.device.index;
  const SmallLinalgVariant variant = small_linalg_variant(node, n);
  const KernelChoice choice = choice_of(variant);
  int resident = 0;
  CUfunction fn = recent_kernel(choice, &resident);
  if (!fn) {
    device_wait_begins();  // a compile (tens of ms) lets other threads run
    fn = small_linalg_kernel(variant);
    if (stagger_applies(op, dt, N, storage) || prefetch_applies(op, dt, N)) {
      resident = small_linalg_resident_blocks(fn, small_linalg_threads(op, dt, N), dev);
    }
    remember_kernel(choice, fn, resident);
  }
  stage_mark("kernel found");
  const unsigned per_block = small_linalg_matrices_per_block(op, dt, N);
  const unsigned grid = static_cast<unsigned>((batch + per_block - 1) / per_block);
  // The first wave's later rounds wait (nf_sm_stagger), and blocks prefetch the next wave
  // (nf_sm_prefetch_next), where a second wave follows: a launch of one wave or less would only
  // start later, and has nothing to prefetch.
  if (resident > 0) {
    const int sms = device_properties(dev).multiprocessor_count;
    if (static_cast<int64_t>(grid) > static_cast<int64_t>(resident) * sms) {
      const SmallLinalgStagger st = small_linalg_stagger(op, dt, N, storage);
      p.wave_sms = sms;
      p.wave_blocks = resident * sms;
      p.stagger_ns = st.ns;
      p.wave_flags = (st.graded ? 1 : 0) | (prefetch_applies(op, dt, N) ? 2 : 0);
      if (st.automatic) {
        // A round of blocks' loads at 80% of the memory's peak shared by every SM: the time one
        // round of the first wave takes to load alone (1.6 us for float64 8 x 8 on the H100).
        const DeviceProperties& d = device_properties(dev);
        const double bytes_per_ns = 0.8 * 2.0 * d.memory_clock_rate_khz * 1e3 *
                                    (d.memory_bus_width / 8.0) / 1e9 / sms;
        const double block_bytes = static_cast<double>(per_block) * n * n * itemsize(storage);
        p.stagger_ns = bytes_per_ns > 0 ? static_cast<int>(std::min(block_bytes / bytes_per_ns,
                                                                     100000.0))
                                        : 0;
      }
    }
  }
  // launch()'s work, with the stream kept for the wait (one enqueue_stream a call, not two).
  const Stream stream = enqueue_stream(dev);
  void* args[] = {&p};
  check(driver().LaunchKernel(fn, grid, 1, 1, small_linalg_threads(op, dt, N), 1, 1, 0,
                              stream.handle(), args, nullptr),
        "cuLaunchKernel");
  early.stream = stream.handle();
  early.launched = true;
  stage_mark("launched");
  return failed;
}

}  // namespace nf::cuda
