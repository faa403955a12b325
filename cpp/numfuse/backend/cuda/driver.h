// The CUDA driver API, opened with dlopen at first use: a table of the calls numfuse makes, error
// checking, device information, and per-thread activation of each device's primary context.
#pragma once
#include <cstddef>
#include <string>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

// X(member, exported symbol, return, parameters). `_v2` symbols where the driver exports them.
#define NF_CUDA_DRIVER_CALLS(X)                                                                  \
  X(Init, "cuInit", CUresult, (unsigned))                                                        \
  X(DriverGetVersion, "cuDriverGetVersion", CUresult, (int*))                                    \
  X(GetErrorName, "cuGetErrorName", CUresult, (CUresult, const char**))                         \
  X(GetErrorString, "cuGetErrorString", CUresult, (CUresult, const char**))                     \
  X(DeviceGet, "cuDeviceGet", CUresult, (CUdevice*, int))                                        \
  X(DeviceGetCount, "cuDeviceGetCount", CUresult, (int*))                                        \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int*, CUdevice_attribute, CUdevice)) \
  X(DeviceGetName, "cuDeviceGetName", CUresult, (char*, int, CUdevice))                         \
  X(DeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t*, CUdevice))                        \
  X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext*, CUdevice))       \
  X(CtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                     \
  X(CtxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext*))                                    \
  X(CtxSynchronize, "cuCtxSynchronize", CUresult, ())                                            \
  X(MemGetInfo, "cuMemGetInfo_v2", CUresult, (size_t*, size_t*))                                 \
  X(DeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", CUresult, (CUmemoryPool*, CUdevice))  \
  X(MemPoolSetAttribute, "cuMemPoolSetAttribute", CUresult,                                      \
    (CUmemoryPool, CUmemPool_attribute, void*))                                                  \
  X(MemPoolGetAttribute, "cuMemPoolGetAttribute", CUresult,                                      \
    (CUmemoryPool, CUmemPool_attribute, void*))                                                  \
  X(MemPoolTrimTo, "cuMemPoolTrimTo", CUresult, (CUmemoryPool, size_t))                          \
  X(MemAllocAsync, "cuMemAllocAsync", CUresult, (CUdeviceptr*, size_t, CUstream))                \
  X(MemFreeAsync, "cuMemFreeAsync", CUresult, (CUdeviceptr, CUstream))                           \
  X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult,                                           \
    (CUdeviceptr, const void*, size_t, CUstream))                                                \
  X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult, (void*, CUdeviceptr, size_t, CUstream))  \
  X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult,                                           \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                                \
  X(MemsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X(MemHostAlloc, "cuMemHostAlloc", CUresult, (void**, size_t, unsigned))                        \
  X(MemFreeHost, "cuMemFreeHost", CUresult, (void*))                                             \
  X(StreamCreate, "cuStreamCreate", CUresult, (CUstream*, unsigned))                             \
  X(StreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))                                   \
  X(StreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                              \
  X(StreamQuery, "cuStreamQuery", CUresult, (CUstream))                                          \
  X(StreamWaitEvent, "cuStreamWaitEvent", CUresult, (CUstream, CUevent, unsigned))               \
  X(EventCreate, "cuEventCreate", CUresult, (CUevent*, unsigned))                                \
  X(EventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                                      \
  X(EventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))                                 \
  X(EventSynchronize, "cuEventSynchronize", CUresult, (CUevent))                                 \
  X(EventQuery, "cuEventQuery", CUresult, (CUevent))                                             \
  X(EventElapsedTime, "cuEventElapsedTime", CUresult, (float*, CUevent, CUevent))                \
  X(ModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule*, const void*))                      \
  X(ModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction*, CUmodule, const char*))   \
  X(ModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                                        \
  X(FuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, CUfunction_attribute, int))  \
  X(FuncGetAttribute, "cuFuncGetAttribute", CUresult, (int*, CUfunction_attribute, CUfunction)) \
  X(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", CUresult,                              \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
     void**))                                                                                    \
  X(PointerGetAttribute, "cuPointerGetAttribute", CUresult,                                     \
    (void*, CUpointer_attribute, CUdeviceptr))                                                   \
  X(DeviceCanAccessPeer, "cuDeviceCanAccessPeer", CUresult, (int*, CUdevice, CUdevice))         \
  X(CtxEnablePeerAccess, "cuCtxEnablePeerAccess", CUresult, (CUcontext, unsigned))               \
  X(MemcpyPeerAsync, "cuMemcpyPeerAsync", CUresult,                                              \
    (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))                         \
  X(LaunchKernel, "cuLaunchKernel", CUresult,                                                    \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
     void**, void**))

struct DriverApi {
#define NF_CUDA_MEMBER(member, symbol, ret, params) ret(*member) params = nullptr;
  NF_CUDA_DRIVER_CALLS(NF_CUDA_MEMBER)
#undef NF_CUDA_MEMBER
  std::string path;  // the libcuda file opened
};

// True when the driver loads, cuInit succeeds and at least one device exists. Never throws.
bool cuda_available() noexcept;
// Why cuda_available() is false ("" when it is true).
std::string cuda_unavailable_reason();
// The loaded driver; throws CUDAError with the reason when CUDA is not usable.
const DriverApi& driver();
// In a child after fork(): when the parent had initialised CUDA, every later driver() throws a
// CUDAError that says why (graph/fork.cpp).
void cuda_after_fork_child();
// Throws CUDAError (CUDAOutOfMemoryError for CUDA_ERROR_OUT_OF_MEMORY) naming `call` and the
// driver's error name and string, when r is not CUDA_SUCCESS.
void check(CUresult r, const char* call);
// "CUDA_ERROR_X: description" for r (or the number when the driver cannot say).
std::string error_text(CUresult r);

// Number of devices (0 when CUDA is not usable).
int device_count() noexcept;
// Throws CUDAError unless 0 <= device < device_count().
void check_device(int device);

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  size_t total_memory = 0;
  int multiprocessor_count = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  int max_shared_memory_per_block = 0;
  int max_shared_memory_per_block_optin = 0;
  int max_shared_memory_per_multiprocessor = 0;
  int total_constant_memory = 0;
  int warp_size = 0;
  int max_registers_per_block = 0;
  int max_registers_per_multiprocessor = 0;
  int clock_rate_khz = 0;
  int memory_clock_rate_khz = 0;
  int memory_bus_width = 0;
  int l2_cache_size = 0;
  int async_engine_count = 0;
  int concurrent_kernels = 0;
  int ecc_enabled = 0;
  int integrated = 0;
  int can_map_host_memory = 0;
  int compute_mode = 0;
  int unified_addressing = 0;
  int managed_memory = 0;
  int concurrent_managed_access = 0;
  int pageable_memory_access = 0;
  int cooperative_launch = 0;
  int memory_pools_supported = 0;
  int max_blocks_per_multiprocessor = 0;
  int pci_bus_id = 0, pci_device_id = 0, pci_domain_id = 0;
  int kernel_exec_timeout = 0;
  int multi_gpu_board = 0;
  int texture_alignment = 0;
  int max_pitch = 0;
  int stream_priorities_supported = 0;
  int global_l1_cache_supported = 0;
  int local_l1_cache_supported = 0;
};
// Properties of a device (cached after the first query).
const DeviceProperties& device_properties(int device);
// One attribute of a device.
int device_attribute(int device, CUdevice_attribute attr);
// The architecture NVRTC compiles for: "sm_90" for compute capability 9.0.
std::string device_arch(int device);
// (free, total) bytes of the device.
void device_mem_info(int device, size_t* free_bytes, size_t* total_bytes);
// The driver's version (e.g. 13000).
int driver_version();

// The calling thread's current device (0 unless set; as cudaSetDevice, per thread).
int current_device();
void set_current_device(int device);
// `device`'s primary context (retained on first use, once per process, one per device).
CUcontext primary_context(int device);
// Makes `device`'s primary context current on the calling thread (retained once per process).
void activate(int device);
// Waits for all work on the device.
void device_synchronize(int device);

}  // namespace nf::cuda
