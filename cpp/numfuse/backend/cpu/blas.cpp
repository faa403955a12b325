// BLAS found at run time (dlopen), and the built-in cache-blocked matrix product. See blas.h.
#include "numfuse/backend/cpu/blas.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "numfuse/backend/cpu/blas_routines.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"

namespace nf::cpu {
namespace {

// ---- the library ---------------------------------------------------------------------------------

template <class I>
struct CblasFns {
  using sgemm_t = void (*)(int, int, int, I, I, I, float, const float*, I, const float*, I, float,
                           float*, I);
  using dgemm_t = void (*)(int, int, int, I, I, I, double, const double*, I, const double*, I,
                           double, double*, I);
  // complex: alpha and beta by pointer, matrices as void*.
  using cgemm_t = void (*)(int, int, int, I, I, I, const void*, const void*, I, const void*, I,
                           const void*, void*, I);
  using threads_t = void (*)(I);
};

struct Library {
  void* handle = nullptr;
  std::string path;
  std::string flavour;  // "scipy_cblas_*64_", "cblas_*", ...
  std::string config;   // openblas_get_config() where present
  bool ilp64 = false;
  bool optimized = false;  // a known tuned BLAS, not the reference (netlib) one
  void* sgemm = nullptr;
  void* dgemm = nullptr;
  void* cgemm = nullptr;
  void* zgemm = nullptr;
  void* set_threads = nullptr;  // takes the library's integer type
  BlasRoutines level12;         // gemv and dot, used by blas_level2.cpp; optional

  std::string describe() const {
    std::string s = config.empty() ? std::string("BLAS") : config;
    s += ilp64 ? " (ILP64, " : " (LP64, ";
    s += flavour + ") at " + path;
    return s;
  }
};

struct SymbolScheme {
  const char* prefix;  // before the routine name ("scipy_cblas_")
  const char* suffix;  // after it ("64_")
  const char* threads;
  const char* get_threads;
  const char* config;
  int ilp64;  // 1: 64-bit ints, 0: 32-bit, -1: ask the config string
};
const SymbolScheme kSchemes[] = {
    {"scipy_cblas_", "64_", "scipy_openblas_set_num_threads64_",
     "scipy_openblas_get_num_threads64_", "scipy_openblas_get_config64_", 1},
    {"scipy_cblas_", "", "scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads",
     "scipy_openblas_get_config", 0},
    {"cblas_", "64_", "openblas_set_num_threads64_", "openblas_get_num_threads64_",
     "openblas_get_config64_", 1},
    {"cblas_", "", "openblas_set_num_threads", "openblas_get_num_threads", "openblas_get_config",
     -1},
};

// Resolves the four ?gemm symbols in an open handle. False if no scheme has all of them.
bool resolve(void* handle, const std::string& path, Library* out) {
  for (const SymbolScheme& s : kSchemes) {
    auto sym = [&](const char* name) {
      return dlsym(handle, (std::string(s.prefix) + name + s.suffix).c_str());
    };
    Library lib;
    lib.sgemm = sym("sgemm");
    lib.dgemm = sym("dgemm");
    lib.cgemm = sym("cgemm");
    lib.zgemm = sym("zgemm");
    if (!lib.sgemm || !lib.dgemm || !lib.cgemm || !lib.zgemm) continue;
    lib.handle = handle;
    lib.path = path;
    lib.flavour = std::string(s.prefix) + "?gemm" + s.suffix;
    lib.set_threads = dlsym(handle, s.threads);
    BlasRoutines& r = lib.level12;
    r.sgemv = sym("sgemv");
    r.dgemv = sym("dgemv");
    r.cgemv = sym("cgemv");
    r.zgemv = sym("zgemv");
    r.sdot = sym("sdot");
    r.ddot = sym("ddot");
    r.cdotu_sub = sym("cdotu_sub");
    r.zdotu_sub = sym("zdotu_sub");
    r.get_threads = dlsym(handle, s.get_threads);
    r.handle = handle;
    r.lapack_prefix = std::strncmp(s.prefix, "scipy_", 6) == 0 ? "scipy_" : "";
    r.lapack_suffix = std::string("_") + s.suffix;  // dgetrf_ or dgetrf_64_
    if (auto cfg = reinterpret_cast<const char* (*)()>(dlsym(handle, s.config))) {
      if (const char* c = cfg()) lib.config = c;
    }
    if (s.ilp64 >= 0) {
      lib.ilp64 = s.ilp64 == 1;
    } else {
      lib.ilp64 = lib.config.find("USE64BITINT") != std::string::npos;
    }
    r.ilp64 = lib.ilp64;
    if (lib.config.empty()) {
      lib.config = dlsym(handle, "openblas_get_config") || dlsym(handle, "openblas_set_num_threads")
                       ? "OpenBLAS"
                       : "BLAS";
    }
    static const char* const kTuned[] = {
        "openblas_get_config", "scipy_openblas_get_config64_", "scipy_openblas_get_config",
        "openblas_get_config64_", "bli_info_get_version_str", "MKL_Get_Version",
        "flexiblas_get_num_threads", "ATL_buildinfo"};
    for (const char* t : kTuned) lib.optimized = lib.optimized || dlsym(handle, t) != nullptr;
    *out = lib;
    return true;
  }
  return false;
}

// dlopen + resolve. On failure returns false and says why in *why.
bool open_library(const std::string& path, int extra_flags, Library* out, std::string* why) {
  dlerror();
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | extra_flags);
  if (!h) {
    const char* e = dlerror();
    if (why) *why = e ? e : "dlopen failed";
    return false;
  }
  // Report the real file name (the handle may be a copy loaded earlier under another name).
  std::string real = path;
  struct link_map* lm = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) real = lm->l_name;
  if (!resolve(h, real, out)) {
    if (why) *why = "no cblas ?gemm symbols in " + real;
    dlclose(h);
    return false;
  }
  return true;
}

bool looks_like_blas(const char* name) {
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  static const char* const kNames[] = {"openblas", "libmkl_rt", "libflexiblas", "libblis",
                                       "libcblas", "libblas"};
  for (const char* k : kNames) {
    if (std::strstr(base, k)) return true;
  }
  return false;
}

int collect_loaded(struct dl_phdr_info* info, size_t, void* data) {
  auto* names = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name && *info->dlpi_name && looks_like_blas(info->dlpi_name)) {
    names->push_back(info->dlpi_name);
  }
  return 0;
}

const char* const kSystemNames[] = {"libopenblas.so.0", "libopenblas64_.so.0", "libopenblas.so",
                                    "libcblas.so.3", "libblas.so.3"};

struct State {
  std::mutex mu;
  bool searched = false;
  std::atomic<const Library*> lib{nullptr};  // immutable once published; never freed
  std::string search_log;                     // why nothing was found
  std::atomic<int> threads{0};
  std::function<void(const std::string&)> hook = [](const std::string& msg) {
    std::fprintf(stderr, "%s\n", msg.c_str());
  };
  std::atomic<bool> warned{false};
};
State& state() {
  static State* s = new State;  // leaked on purpose: usable during static destruction
  return *s;
}

void apply_threads(const Library* lib, int n) {
  if (!lib || !lib->set_threads) return;
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (lib->ilp64) {
    reinterpret_cast<CblasFns<int64_t>::threads_t>(lib->set_threads)(n);
  } else {
    reinterpret_cast<CblasFns<int32_t>::threads_t>(lib->set_threads)(n);
  }
}

void publish(State& st, const Library& found) {
  const Library* lib = new Library(found);
  st.lib.store(lib, std::memory_order_release);
  if (st.threads.load() > 0) apply_threads(lib, st.threads.load());
}

const Library* library() {
  State& st = state();
  const Library* lib = st.lib.load(std::memory_order_acquire);
  if (lib) return lib;
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.searched) return st.lib.load(std::memory_order_acquire);
  st.searched = true;
  std::string log;
  Library found;
  std::string why;
  if (const char* env = std::getenv("NUMFUSE_BLAS_LIBRARY"); env && *env) {
    if (std::strcmp(env, "none") == 0) {
      st.search_log = "NUMFUSE_BLAS_LIBRARY=none. ";
      return nullptr;
    }
    if (open_library(env, 0, &found, &why)) {
      publish(st, found);
      return st.lib.load();
    }
    log += "NUMFUSE_BLAS_LIBRARY=" + std::string(env) + ": " + why + "; ";
  }
  std::vector<std::string> loaded;
  dl_iterate_phdr(collect_loaded, &loaded);
  // NumPy's own OpenBLAS first, then other loaded libraries in load order.
  std::stable_partition(loaded.begin(), loaded.end(), [](const std::string& n) {
    return n.find("scipy_openblas") != std::string::npos;
  });
  // The reference (netlib) BLAS is not taken unasked: single-threaded and unblocked, it is
  // slower than the built-in loop (5.6 against 12.5 GFLOP/s for dgemm 1024^3 on 2 cores).
  auto take_tuned = [&](const std::string& name, int flags) {
    if (!open_library(name, flags, &found, &why)) return false;
    if (found.optimized) return true;
    why = "reference BLAS " + found.path + ", skipped (name it in NUMFUSE_BLAS_LIBRARY to use it)";
    dlclose(found.handle);
    return false;
  };
  for (const std::string& name : loaded) {
    if (take_tuned(name, RTLD_NOLOAD)) {
      publish(st, found);
      return st.lib.load();
    }
    log += why + "; ";
  }
  if (loaded.empty()) log += "no BLAS among the libraries loaded in this process; ";
  for (const char* name : kSystemNames) {
    if (take_tuned(name, 0)) {
      publish(st, found);
      return st.lib.load();
    }
    log += why + "; ";
  }
  st.search_log = log;
  return nullptr;
}

// ---- the built-in loop ---------------------------------------------------------------------------

// How one dtype multiplies: the accumulator type, how an element enters it and leaves it, and the
// multiply-accumulate. NumPy's matmul loop is the model: float16 sums float32 products in ascending
// k and rounds once; integers wrap (unsigned arithmetic modulo 2^bits has the same low bits);
// complex uses the schoolbook product.
template <class T, class Enable = void>
struct Policy {
  using acc_t = T;
  static acc_t load(T v) { return v; }
  static T store(acc_t v) { return v; }
  static void mac(acc_t& c, acc_t a, acc_t b) { c = c + a * b; }  // nf::complex has no +=
};
template <>
struct Policy<half> {
  using acc_t = float;
  static float load(half v) { return static_cast<float>(v); }
  static half store(float v) { return half(v); }
  static void mac(float& c, float a, float b) { c += a * b; }
};
template <class T>
struct Policy<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  using acc_t = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
  static acc_t load(T v) { return static_cast<acc_t>(v); }
  static T store(acc_t v) { return static_cast<T>(v); }
  static void mac(acc_t& c, acc_t a, acc_t b) { c += a * b; }
};
template <>
struct Policy<bool> {
  using acc_t = uint8_t;
  static uint8_t load(bool v) {
    uint8_t byte;  // a NumPy bool is one byte; treat any nonzero byte as true
    std::memcpy(&byte, &v, 1);
    return byte != 0;
  }
  static bool store(uint8_t v) { return v != 0; }
  static void mac(uint8_t& c, uint8_t a, uint8_t b) { c |= a & b; }
};

constexpr int64_t kMC = 64;  // rows of C per task
constexpr int64_t kKC = 256;  // depth of one packed block

template <class T>
struct Builtin {
  using P = Policy<T>;
  using acc_t = typename P::acc_t;

  const T* A;
  const T* B;
  T* C;
  bool ta, tb;
  int64_t M, N, K, lda, ldb, ldc;
  int64_t NC;                // width of a packed panel of B
  std::vector<acc_t> Bp;     // B packed: panel by panel, each K x width, row-major

  T a_at(int64_t i, int64_t k) const { return ta ? A[k * lda + i] : A[i * lda + k]; }
  T b_at(int64_t k, int64_t j) const { return tb ? B[j * ldb + k] : B[k * ldb + j]; }

  void pack_b() {
    Bp.resize(static_cast<size_t>(K * N));
    acc_t* out = Bp.data();
    for (int64_t j0 = 0; j0 < N; j0 += NC) {
      const int64_t w = std::min(NC, N - j0);
      for (int64_t k = 0; k < K; ++k) {
        for (int64_t j = 0; j < w; ++j) *out++ = P::load(b_at(k, j0 + j));
      }
    }
  }

  // Rows [i0, i1) of C, i1 - i0 <= kMC. Each element sums its products in ascending k.
  void rows(int64_t i0, int64_t i1, std::vector<acc_t>& acc, std::vector<acc_t>& ap) const {
    const int64_t mr = i1 - i0;
    for (int64_t j0 = 0; j0 < N; j0 += NC) {
      const int64_t w = std::min(NC, N - j0);
      const acc_t* panel = Bp.data() + j0 * K;
      std::fill(acc.begin(), acc.begin() + mr * w, acc_t{});
      for (int64_t k0 = 0; k0 < K; k0 += kKC) {
        const int64_t kc = std::min(kKC, K - k0);
        for (int64_t i = 0; i < mr; ++i) {
          for (int64_t k = 0; k < kc; ++k) ap[i * kc + k] = P::load(a_at(i0 + i, k0 + k));
        }
        int64_t i = 0;
        // Four rows at a time share each load of B.
        for (; i + 4 <= mr; i += 4) {
          acc_t* c0 = &acc[(i + 0) * w];
          acc_t* c1 = &acc[(i + 1) * w];
          acc_t* c2 = &acc[(i + 2) * w];
          acc_t* c3 = &acc[(i + 3) * w];
          for (int64_t k = 0; k < kc; ++k) {
            const acc_t a0 = ap[(i + 0) * kc + k], a1 = ap[(i + 1) * kc + k];
            const acc_t a2 = ap[(i + 2) * kc + k], a3 = ap[(i + 3) * kc + k];
            const acc_t* b = panel + (k0 + k) * w;
#pragma GCC ivdep
            for (int64_t j = 0; j < w; ++j) {
              const acc_t bj = b[j];
              P::mac(c0[j], a0, bj);
              P::mac(c1[j], a1, bj);
              P::mac(c2[j], a2, bj);
              P::mac(c3[j], a3, bj);
            }
          }
        }
        for (; i < mr; ++i) {
          acc_t* c0 = &acc[i * w];
          for (int64_t k = 0; k < kc; ++k) {
            const acc_t a0 = ap[i * kc + k];
            const acc_t* b = panel + (k0 + k) * w;
#pragma GCC ivdep
            for (int64_t j = 0; j < w; ++j) P::mac(c0[j], a0, b[j]);
          }
        }
      }
      for (int64_t i = 0; i < mr; ++i) {
        T* crow = C + (i0 + i) * ldc + j0;
        for (int64_t j = 0; j < w; ++j) crow[j] = P::store(acc[i * w + j]);
      }
    }
  }

  void run(int threads) {
    // Panels of B about 128 KiB wide-by-block, at least 16 columns.
    NC = std::max<int64_t>(16, (int64_t{128} * 1024) / (kKC * static_cast<int64_t>(sizeof(acc_t))));
    NC = std::min(NC, N);
    pack_b();
    const int64_t tasks = (M + kMC - 1) / kMC;
    const double flops = static_cast<double>(M) * N * K;
    int nt = threads;
    if (flops < 4e6) nt = 1;  // thread start-up would cost more than it saves
    nt = static_cast<int>(std::min<int64_t>(nt, tasks));
    std::atomic<int64_t> next{0};
    auto worker = [&] {
      std::vector<acc_t> acc(static_cast<size_t>(kMC * NC)), ap(static_cast<size_t>(kMC * kKC));
      for (int64_t t; (t = next.fetch_add(1)) < tasks;) {
        rows(t * kMC, std::min(M, (t + 1) * kMC), acc, ap);
      }
    };
    if (nt <= 1) {
      worker();
      return;
    }
    std::vector<std::thread> pool;
    pool.reserve(nt - 1);
    for (int t = 1; t < nt; ++t) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
  }
};

int builtin_threads() {
  const int n = state().threads.load();
  if (n > 0) return n;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <class T>
void builtin_typed(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void* A, int64_t lda,
                   const void* B, int64_t ldb, void* C, int64_t ldc) {
  Builtin<T> g{static_cast<const T*>(A), static_cast<const T*>(B), static_cast<T*>(C), ta, tb,
               M, N, K, lda, ldb, ldc, 0, {}};
  g.run(builtin_threads());
}

// ---- BLAS calls ----------------------------------------------------------------------------------

// A row-major matrix of `rows` x `cols` with `ld` between rows, in BLAS's terms: ld >= max(1, cols).
// With one row the stride is never used, so any ld is replaced. False if BLAS cannot take it.
bool blas_ld(int64_t rows, int64_t cols, int64_t* ld) {
  if (rows <= 1) {
    *ld = std::max<int64_t>(1, cols);
    return true;
  }
  return *ld >= std::max<int64_t>(1, cols);
}

template <class I>
void call_blas(const Library& lib, DType dt, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
               const void* A, int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc) {
  using F = CblasFns<I>;
  const int opa = ta ? kTrans : kNoTrans, opb = tb ? kTrans : kNoTrans;
  switch (dt) {
    case DType::Float32:
      reinterpret_cast<typename F::sgemm_t>(lib.sgemm)(
          kRowMajor, opa, opb, I(M), I(N), I(K), 1.0f, static_cast<const float*>(A), I(lda),
          static_cast<const float*>(B), I(ldb), 0.0f, static_cast<float*>(C), I(ldc));
      break;
    case DType::Float64:
      reinterpret_cast<typename F::dgemm_t>(lib.dgemm)(
          kRowMajor, opa, opb, I(M), I(N), I(K), 1.0, static_cast<const double*>(A), I(lda),
          static_cast<const double*>(B), I(ldb), 0.0, static_cast<double*>(C), I(ldc));
      break;
    case DType::Complex64: {
      const complex64 one(1.0f, 0.0f), zero(0.0f, 0.0f);
      reinterpret_cast<typename F::cgemm_t>(lib.cgemm)(kRowMajor, opa, opb, I(M), I(N), I(K),
                                                       &one, A, I(lda), B, I(ldb), &zero, C, I(ldc));
      break;
    }
    case DType::Complex128: {
      const complex128 one(1.0, 0.0), zero(0.0, 0.0);
      reinterpret_cast<typename F::cgemm_t>(lib.zgemm)(kRowMajor, opa, opb, I(M), I(N), I(K),
                                                       &one, A, I(lda), B, I(ldb), &zero, C, I(ldc));
      break;
    }
    default:
      break;
  }
}

bool is_blas_dtype(DType dt) {
  return dt == DType::Float32 || dt == DType::Float64 || dt == DType::Complex64 ||
         dt == DType::Complex128;
}

size_t elem_size(DType dt) {
  switch (dt) {
#define NF_SIZE_CASE_(E, T, C, N) \
  case DType::E:                  \
    return sizeof(T);
    NF_FOR_EACH_DTYPE(NF_SIZE_CASE_)
#undef NF_SIZE_CASE_
  }
  return 0;
}

void zero_fill(DType dt, int64_t M, int64_t N, void* C, int64_t ldc) {
  const size_t es = elem_size(dt);
  char* c = static_cast<char*>(C);
  for (int64_t i = 0; i < M; ++i) std::memset(c + i * ldc * es, 0, static_cast<size_t>(N) * es);
}

void warn_fallback(DType dt) {
  State& st = state();
  if (st.warned.exchange(true)) return;
  std::function<void(const std::string&)> hook;
  std::string log;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    hook = st.hook;
    log = st.search_log;
  }
  if (hook) {
    hook("numfuse: no BLAS library found, so matrix products of float and complex arrays use a "
         "slower built-in loop (set NUMFUSE_BLAS_LIBRARY to a BLAS library to fix this). Searched: " +
         log);
  }
}

}  // namespace

bool blas_available() { return library() != nullptr; }

const BlasRoutines* blas_routines() {
  const Library* lib = library();
  return lib ? &lib->level12 : nullptr;
}

std::string blas_description() {
  const Library* lib = library();
  if (lib) return lib->describe();
  std::lock_guard<std::mutex> lock(state().mu);
  return "no BLAS library found (built-in loop in use). Searched: " + state().search_log;
}

void blas_require() {
  if (library()) return;
  std::lock_guard<std::mutex> lock(state().mu);
  throw Error("numfuse: no BLAS library found. Searched: " + state().search_log +
              "Set NUMFUSE_BLAS_LIBRARY to the path of an OpenBLAS/cblas library, or install one "
              "(e.g. libopenblas0).");
}

void blas_set_library_path(const std::string& path) {
  State& st = state();
  Library found;
  std::string why;
  if (!open_library(path, 0, &found, &why)) {
    throw Error("numfuse: cannot use BLAS library '" + path + "': " + why);
  }
  std::lock_guard<std::mutex> lock(st.mu);
  st.searched = true;
  publish(st, found);  // the previous Library stays allocated: another thread may be using it
}

void set_blas_threads(int n) {
  State& st = state();
  st.threads.store(n > 0 ? n : 0);
  apply_threads(library(), n);
}

int blas_threads() { return builtin_threads(); }

void set_blas_fallback_hook(std::function<void(const std::string&)> hook) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().hook = std::move(hook);
}

void gemm_builtin(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                  const void* A, int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    zero_fill(dt, M, N, C, ldc);
    return;
  }
  switch (dt) {
#define NF_GEMM_CASE_(E, T, CH, NAME)                                           \
  case DType::E:                                                                \
    builtin_typed<T>(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc);        \
    break;
    NF_FOR_EACH_DTYPE(NF_GEMM_CASE_)
#undef NF_GEMM_CASE_
  }
}

namespace {

// C through the library: in one call, or, where the library runs single-threaded and the product
// is large, in blocks of C's rows (or columns, when C is wider than tall) computed side by side
// on numfuse's pool, each block a gemm of its own (2048^2 float64: 1.9x one thread).
void blas_gemm_blocks(const Library& lib, DType dt, bool ta, bool tb, int64_t M, int64_t N,
                      int64_t K, const void* A, int64_t lda, const void* B, int64_t ldb, void* C,
                      int64_t ldc) {
  auto one = [&](int64_t m, int64_t n, const void* a, const void* b, void* c) {
    if (lib.ilp64) {
      call_blas<int64_t>(lib, dt, ta, tb, m, n, K, a, lda, b, ldb, c, ldc);
    } else {
      call_blas<int32_t>(lib, dt, ta, tb, m, n, K, a, lda, b, ldb, c, ldc);
    }
  };
  constexpr double kSplitFlops = 1 << 20;  // a 100^3 product: ~50 us, far above the hand-off
  const int64_t threads = cpu::num_threads();
  const bool by_rows = M >= N;
  const int64_t n = by_rows ? M : N;
  if (threads < 2 || n < 64 || double(M) * double(N) * double(K) < kSplitFlops ||
      !blas_single_threaded(lib.level12)) {
    one(M, N, A, B, C);
    return;
  }
  const int64_t es = static_cast<int64_t>(elem_size(dt));
  const int64_t grain = (n + threads - 1) / threads;  // one block per thread
  const char* a0 = static_cast<const char*>(A);
  const char* b0 = static_cast<const char*>(B);
  char* c0 = static_cast<char*>(C);
  cpu::parallel_for(n, grain, [&](int64_t b, int64_t e) {
    if (by_rows) {  // C[b:e, :] = op(A)[b:e, :] op(B)
      one(e - b, N, a0 + (ta ? b : b * lda) * es, B, c0 + b * ldc * es);
    } else {  // C[:, b:e] = op(A) op(B)[:, b:e]
      one(M, e - b, A, b0 + (tb ? b * ldb : b) * es, c0 + b * es);
    }
  });
}

}  // namespace

void gemm(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const void* A,
          int64_t lda, const void* B, int64_t ldb, void* C, int64_t ldc) {
  if (M < 0 || N < 0 || K < 0) {
    throw ValueError("gemm: negative dimension (M=" + std::to_string(M) + ", N=" +
                     std::to_string(N) + ", K=" + std::to_string(K) + ")");
  }
  if (M == 0 || N == 0) return;
  if (K == 0) {
    zero_fill(dt, M, N, C, ldc);
    return;
  }
  if (is_blas_dtype(dt)) {
    const Library* lib = library();
    if (!lib) {
      warn_fallback(dt);
    } else {
      int64_t la = lda, lb = ldb, lc = ldc;
      const bool ok = blas_ld(trans_a ? K : M, trans_a ? M : K, &la) &&
                      blas_ld(trans_b ? N : K, trans_b ? K : N, &lb) && blas_ld(M, N, &lc);
      const int64_t big = std::max({M, N, K, la, lb, lc});
      if (ok && (lib->ilp64 || big <= INT32_MAX)) {
        blas_gemm_blocks(*lib, dt, trans_a, trans_b, M, N, K, A, la, B, lb, C, lc);
        return;
      }
    }
  }
  gemm_builtin(dt, trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc);
}

void gemm_strided_batched(DType dt, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                          const void* A, int64_t lda, int64_t stride_a, const void* B, int64_t ldb,
                          int64_t stride_b, void* C, int64_t ldc, int64_t stride_c, int64_t batch) {
  if (batch < 0) throw ValueError("gemm_strided_batched: negative batch " + std::to_string(batch));
  const int64_t es = static_cast<int64_t>(elem_size(dt));
  const char* a = static_cast<const char*>(A);
  const char* b = static_cast<const char*>(B);
  char* c = static_cast<char*>(C);
  for (int64_t i = 0; i < batch; ++i) {
    gemm(dt, trans_a, trans_b, M, N, K, a + i * stride_a * es, lda, b + i * stride_b * es, ldb,
         c + i * stride_c * es, ldc);
  }
}

}  // namespace nf::cpu
