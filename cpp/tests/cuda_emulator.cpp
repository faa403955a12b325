#include "cuda_emulator.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

namespace nf::test {

namespace {

// The CUDA built-ins the generated kernels use, for the host compiler. __shared__ variables
// become function statics: blocks run one at a time, so a block's threads share them.
const char* const kEmulationHeader = R"emu(
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
struct nf_emu_dim3 { unsigned x = 0, y = 1, z = 1; };
static thread_local nf_emu_dim3 threadIdx, blockIdx;
static nf_emu_dim3 blockDim, gridDim;
struct nf_emu_barrier {
  std::mutex m;
  std::condition_variable cv;
  unsigned count, waiting = 0, generation = 0;
  explicit nf_emu_barrier(unsigned n) : count(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    const unsigned g = generation;
    if (++waiting == count) {
      waiting = 0;
      ++generation;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != g; });
    }
  }
};
static nf_emu_barrier* nf_emu_bar = nullptr;
static inline void __syncthreads() { nf_emu_bar->wait(); }
// Warp operations, for kernels whose every thread of the block reaches them together (they are
// block barriers here): __syncwarp, and the xor shuffle through a per-type exchange buffer.
static inline void __syncwarp(unsigned = 0xffffffffu) { nf_emu_bar->wait(); }
template <class T>
static inline T __shfl_xor_sync(unsigned, T v, int lane_mask, int = 32) {
  static T exchange[1024];
  exchange[threadIdx.x] = v;
  nf_emu_bar->wait();
  const T r = exchange[(threadIdx.x & ~31u) | ((threadIdx.x & 31u) ^ static_cast<unsigned>(lane_mask))];
  nf_emu_bar->wait();
  return r;
}
static inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long cmp, unsigned long long v) {
  __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
static inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v) {
  unsigned long long old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (old < v && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
static inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
static inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
// The kernel prelude (CMakeLists.txt's NUMFUSE_KERNEL_HEADERS), as headers: the host compiler
// follows their own includes, which the embedded text would repeat.
#include "numfuse/kernels/nf_types.h"
#include "numfuse/kernels/scalar_math.h"
#include "numfuse/kernels/complex_math.h"
#include "numfuse/kernels/scalar_ops.h"
// A kernel judges its conditions from values (kernels/fp_check.h): the host loops' hooks for
// floor_divide of NaN and inf (core/divmod_flags.cpp) have nothing to do here.
namespace nf {
uint8_t divmod_nonfinite_enter() { return 0; }
void divmod_nonfinite_leave(uint8_t, int, int, int, int) {}
}  // namespace nf
#include "numfuse/kernels/fp_check.h"
#include "numfuse/kernels/philox.h"
#include "numfuse/kernels/generators.h"
)emu";

const char* const kEmulationFooter = R"emu(
typedef void (*nf_emu_kernel)(NF_EMU_PARAMS);
extern "C" unsigned long nf_emu_params_size() { return sizeof(NF_EMU_PARAMS); }
extern "C" int nf_emu_launch(const char* name, unsigned grid, unsigned block, const void* bytes) {
  NF_EMU_PARAMS p;
  std::memcpy(&p, bytes, sizeof p);
  nf_emu_kernel fn = nullptr;
#define X(k) if (!std::strcmp(name, #k)) fn = k;
  NF_EMU_KERNELS
#undef X
  if (!fn) return 1;
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    nf_emu_barrier bar(block);
    nf_emu_bar = &bar;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < block; ++t) {
      threads.emplace_back([=] {
        blockIdx.x = b;
        threadIdx.x = t;
        fn(p);
      });
    }
    for (auto& th : threads) th.join();
  }
  return 0;
}
)emu";

struct Module {
  void* handle = nullptr;
  unsigned long (*params_size)() = nullptr;
  int (*launch)(const char*, unsigned, unsigned, const void*) = nullptr;
};

Module& module_for(const std::string& body, const std::string& params_type, const std::vector<std::string>& entries) {
  static std::mutex mutex;
  static std::map<std::string, Module> modules;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = params_type + '\0' + body;  // the entries too: each list is its own module
  for (const std::string& e : entries) key += '\0' + e;
  auto it = modules.find(key);
  if (it != modules.end()) return it->second;
  const std::string root = emulation_root();
  const std::string base = "/tmp/nf_emu_" + std::to_string(getpid()) + "_" + std::to_string(modules.size()) + "_" +
                           std::to_string(std::hash<std::string>{}(key));
  {
    std::ofstream f(base + ".cpp");
    f << kEmulationHeader << body << "\n#define NF_EMU_PARAMS " << params_type
      << "\n#define NF_EMU_KERNELS";
    for (const std::string& e : entries) f << " X(" << e << ")";
    f << "\n" << kEmulationFooter;
  }
  const char* cxx = std::getenv("CXX");
  // -fpermissive: generated sources pass `unsigned long long` words (NVRTC's uint64_t) where the
  // host's uint64_t is `unsigned long`, the same 64 bits.
  const std::string cmd = std::string(cxx && *cxx ? cxx : "g++") +
                          " -std=c++17 -O1 -w -fpermissive -shared -fPIC -pthread -I" + root +
                          "/cpp -o " + base + ".so " + base + ".cpp 2> " + base + ".log";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(base + ".log");
    throw std::runtime_error("emulated kernel does not compile (" + base + ".cpp):\n" +
                             std::string(std::istreambuf_iterator<char>(log), {}));
  }
  Module m;
  m.handle = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m.handle) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  m.params_size = reinterpret_cast<unsigned long (*)()>(dlsym(m.handle, "nf_emu_params_size"));
  m.launch = reinterpret_cast<int (*)(const char*, unsigned, unsigned, const void*)>(dlsym(m.handle, "nf_emu_launch"));
  std::remove((base + ".cpp").c_str());
  std::remove((base + ".log").c_str());
  std::remove((base + ".so").c_str());
  return modules.emplace(key, m).first->second;
}

}  // namespace

std::string emulation_root() {
  const char* r = std::getenv("NUMFUSE_EMULATE_CUDA");
  return r ? std::string(r) : std::string();
}

void emulate_launch(const std::string& body, const std::string& params_type, const std::vector<std::string>& entries,
                    const std::string& entry, unsigned grid, unsigned block, const std::vector<uint8_t>& params) {
  Module& m = module_for(body, params_type, entries);
  if (m.params_size() != params.size()) {
    throw std::runtime_error(params_type + " is " + std::to_string(m.params_size()) + " bytes, the host laid out " +
                             std::to_string(params.size()));
  }
  if (m.launch(entry.c_str(), grid, block, params.data()) != 0) throw std::runtime_error("no kernel " + entry);
}

}  // namespace nf::test
