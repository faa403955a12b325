#include "numfuse/backend/cuda/driver.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/warmup.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

struct DriverState {
  DriverApi api;
  bool usable = false;
  bool loaded = false;  // libcuda opened and every symbol found (cuInit may still have failed)
  std::string reason;
  int count = 0;
};

// "CUDA_ERROR_X: description" through `api` (nullptr or unloaded: the number only). Used inside
// state()'s initialisation, which must not call state() again (call_once would deadlock).
std::string describe(const DriverApi* api, CUresult r) {
  const char* name = nullptr;
  const char* desc = nullptr;
  if (api && api->GetErrorName && api->GetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (api && api->GetErrorString && api->GetErrorString(r, &desc) != CUDA_SUCCESS) desc = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(r);
  if (desc) out += std::string(": ") + desc;
  return out;
}

// Whether this process started initialising CUDA, and whether it is a child forked after that:
// a CUDA context does not survive fork (as with CuPy and PyTorch), so a child may not use one.
std::atomic<bool> g_init_started{false};
std::atomic<bool> g_forked_after_init{false};

DriverState& state() {
  static DriverState s;
  static std::once_flag once;
  std::call_once(once, [] {
    g_init_started.store(true);
    const LoadedLibrary& lib = load_library(CudaLibrary::Driver);
    if (!lib.ok()) {
      s.reason = lib.reason();
      return;
    }
    s.api.path = lib.path();
#define NF_CUDA_LOAD(member, symbol, ret, params) \
  if (!lib.bind(s.api.member, symbol, &s.reason)) return;
    NF_CUDA_DRIVER_CALLS(NF_CUDA_LOAD)
#undef NF_CUDA_LOAD
    s.loaded = true;
    CUresult r = s.api.Init(0);
    if (r != CUDA_SUCCESS) {
      s.reason = "cuInit failed: " + describe(&s.api, r);
      return;
    }
    r = s.api.DeviceGetCount(&s.count);
    if (r != CUDA_SUCCESS) {
      s.reason = "cuDeviceGetCount failed: " + describe(&s.api, r);
      s.count = 0;
      return;
    }
    if (s.count == 0) {
      s.reason = "no CUDA device was found";
      return;
    }
    s.usable = true;
    start_nvrtc_warmup();  // a process that starts CUDA will compile: NVRTC starts now
  });
  return s;
}

thread_local int t_current_device = 0;

std::mutex g_ctx_mutex;
std::vector<CUcontext> g_contexts;  // primary context per device, retained on first use

std::mutex g_props_mutex;
std::map<int, std::unique_ptr<DeviceProperties>> g_props;

}  // namespace

bool cuda_available() noexcept {
  try {
    return state().usable;
  } catch (...) {
    return false;
  }
}

std::string cuda_unavailable_reason() { return state().usable ? "" : state().reason; }

void cuda_after_fork_child() {
  if (g_init_started.load()) g_forked_after_init.store(true);
}

const DriverApi& driver() {
  if (g_forked_after_init.load(std::memory_order_relaxed)) {
    throw CUDAError(
        "CUDA cannot be used in a process made by fork() after its parent initialised CUDA (as "
        "with CuPy and PyTorch): use multiprocessing's 'spawn' or 'forkserver' start method, or "
        "keep the child on the CPU");
  }
  DriverState& s = state();
  if (!s.usable) throw CUDAError("CUDA is not available: " + s.reason);
  return s.api;
}

std::string error_text(CUresult r) {
  DriverState& s = state();
  return describe(s.loaded ? &s.api : nullptr, r);
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  std::string msg = std::string(call) + " failed: " + error_text(r);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw CUDAOutOfMemoryError(msg);
  throw CUDAError(msg);
}

int device_count() noexcept {
  try {
    return state().usable ? state().count : 0;
  } catch (...) {
    return 0;
  }
}

void check_device(int device) {
  driver();
  if (device < 0 || device >= state().count) {
    throw CUDAError("invalid CUDA device " + std::to_string(device) + ": " +
                    std::to_string(state().count) + " device(s) present");
  }
}

int device_attribute(int device, CUdevice_attribute attr) {
  check_device(device);
  int v = 0;
  check(driver().DeviceGetAttribute(&v, attr, device), "cuDeviceGetAttribute");
  return v;
}

const DeviceProperties& device_properties(int device) {
  check_device(device);
  std::lock_guard<std::mutex> lock(g_props_mutex);
  auto it = g_props.find(device);
  if (it != g_props.end()) return *it->second;
  const DriverApi& d = driver();
  auto p = std::make_unique<DeviceProperties>();
  char name[256] = {0};
  check(d.DeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
  p->name = name;
  check(d.DeviceTotalMem(&p->total_memory, device), "cuDeviceTotalMem");
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    check(d.DeviceGetAttribute(&v, a, device), "cuDeviceGetAttribute");
    return v;
  };
  p->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p->multiprocessor_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p->max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p->max_threads_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p->max_block_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  p->max_block_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  p->max_block_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  p->max_grid_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  p->max_grid_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  p->max_grid_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  p->max_shared_memory_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p->max_shared_memory_per_block_optin =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  p->max_shared_memory_per_multiprocessor =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p->total_constant_memory = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  p->warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p->max_registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p->max_registers_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  p->clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p->memory_clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p->memory_bus_width = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p->l2_cache_size = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p->async_engine_count = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  p->concurrent_kernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  p->ecc_enabled = attr(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  p->integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED);
  p->can_map_host_memory = attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  p->compute_mode = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
  p->unified_addressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  p->managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  p->concurrent_managed_access = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  p->pageable_memory_access = attr(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  p->cooperative_launch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  p->memory_pools_supported = attr(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  p->max_blocks_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p->pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  p->pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  p->pci_domain_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  p->kernel_exec_timeout = attr(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT);
  p->multi_gpu_board = attr(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
  p->texture_alignment = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  p->max_pitch = attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  p->stream_priorities_supported = attr(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  p->global_l1_cache_supported = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  p->local_l1_cache_supported = attr(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  const DeviceProperties& ref = *p;
  g_props.emplace(device, std::move(p));
  return ref;
}

std::string device_arch(int device) {
  const DeviceProperties& p = device_properties(device);
  return "sm_" + std::to_string(p.major) + std::to_string(p.minor);
}

void device_mem_info(int device, size_t* free_bytes, size_t* total_bytes) {
  activate(device);
  check(driver().MemGetInfo(free_bytes, total_bytes), "cuMemGetInfo");
}

int driver_version() {
  int v = 0;
  check(driver().DriverGetVersion(&v), "cuDriverGetVersion");
  return v;
}

int current_device() { return t_current_device; }

void set_current_device(int device) {
  check_device(device);
  t_current_device = device;
}

CUcontext primary_context(int device) {
  const DriverApi& d = driver();
  std::lock_guard<std::mutex> lock(g_ctx_mutex);
  if (g_contexts.empty()) g_contexts.assign(state().count, nullptr);
  check_device(device);
  if (!g_contexts[device]) {
    check(d.DevicePrimaryCtxRetain(&g_contexts[device], device), "cuDevicePrimaryCtxRetain");
    start_warmup(device);  // the process uses CUDA: its first calls' one-off work starts now
  }
  return g_contexts[device];
}

void activate(int device) {
  const DriverApi& d = driver();
  CUcontext ctx = primary_context(device);
  // Asked every time rather than cached: libraries (cuBLAS, user code) may switch contexts.
  CUcontext cur = nullptr;
  check(d.CtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (cur != ctx) check(d.CtxSetCurrent(ctx), "cuCtxSetCurrent");
}

void device_synchronize(int device) {
  activate(device);
  check(driver().CtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace nf::cuda
