// NVRTC, opened with dlopen at first use: compiles generated CUDA C++ straight to SASS (a cubin)
// for one device architecture.
#pragma once
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda {

#define NF_NVRTC_CALLS(X)                                                                   \
  X(GetErrorString, "nvrtcGetErrorString", const char*, (nvrtcResult))                      \
  X(Version, "nvrtcVersion", nvrtcResult, (int*, int*))                                     \
  X(GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", nvrtcResult, (int*))                 \
  X(GetSupportedArchs, "nvrtcGetSupportedArchs", nvrtcResult, (int*))                       \
  X(CreateProgram, "nvrtcCreateProgram", nvrtcResult,                                       \
    (nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*)) \
  X(DestroyProgram, "nvrtcDestroyProgram", nvrtcResult, (nvrtcProgram*))                    \
  X(CompileProgram, "nvrtcCompileProgram", nvrtcResult, (nvrtcProgram, int, const char* const*)) \
  X(GetPTXSize, "nvrtcGetPTXSize", nvrtcResult, (nvrtcProgram, size_t*))                    \
  X(GetPTX, "nvrtcGetPTX", nvrtcResult, (nvrtcProgram, char*))                              \
  X(GetCUBINSize, "nvrtcGetCUBINSize", nvrtcResult, (nvrtcProgram, size_t*))                \
  X(GetCUBIN, "nvrtcGetCUBIN", nvrtcResult, (nvrtcProgram, char*))                          \
  X(GetProgramLogSize, "nvrtcGetProgramLogSize", nvrtcResult, (nvrtcProgram, size_t*))      \
  X(GetProgramLog, "nvrtcGetProgramLog", nvrtcResult, (nvrtcProgram, char*))                \
  X(AddNameExpression, "nvrtcAddNameExpression", nvrtcResult, (nvrtcProgram, const char*))  \
  X(GetLoweredName, "nvrtcGetLoweredName", nvrtcResult, (nvrtcProgram, const char*, const char**))

struct NvrtcApi {
#define NF_NVRTC_MEMBER(member, symbol, ret, params) ret(*member) params = nullptr;
  NF_NVRTC_CALLS(NF_NVRTC_MEMBER)
#undef NF_NVRTC_MEMBER
  nvrtcResult (*GetPCHCreateStatus)(nvrtcProgram) = nullptr;  // 12.8+ (nullptr before)
  std::string path;           // the libnvrtc file opened
  std::string builtins_path;  // the libnvrtc-builtins preloaded beside it ("" if none)
  int major = 0, minor = 0;
  std::vector<int> archs;     // supported SM numbers (e.g. 75, 80, ..., 120)
};

// True when NVRTC loads (no GPU needed). Never throws.
bool nvrtc_available() noexcept;
std::string nvrtc_unavailable_reason();
// True once this process has tried to load NVRTC (nvrtc_available() or nvrtc() was called).
bool nvrtc_load_attempted() noexcept;
// The loaded NVRTC; throws CUDAError saying what was tried when it cannot be loaded.
const NvrtcApi& nvrtc();
// "13.0": part of every kernel cache key.
std::string nvrtc_version_string();

struct CompiledKernel {
  std::string binary;        // a cubin, or PTX text when is_ptx
  std::string lowered_name;  // the symbol to look up in the module (one a line for several)
  bool is_ptx = false;
};

// Compiles `source` for `arch` ("sm_90"): SASS when NVRTC supports the architecture, else PTX
// for the newest one it supports (the driver finishes it). `name` is the kernel's name expression
// ("k" for an extern "C" kernel, "k<float, 2>" for a template instance), or several, one a
// line, whose lowered names come back one a line in the same order (a user's RawModule). CUDA's include
// directory is added when found. Throws CompileError with the log and the numbered source.
// With NUMFUSE_NVRTC_PCH=1 (off by default: see nvrtc.cpp), a source made of the kernel prelude
// (after kernel-selection lines) and a body is compiled with the prelude as an in-memory header
// under NVRTC's automatic PCH (12.8+) once the PCH is built, on a background thread started by
// the first such compile (warmup.h): the same cubin, the prelude parsed once per process.
CompiledKernel compile_kernel(const std::string& source, const std::string& name,
                              const std::string& arch, const std::vector<std::string>& options);
// Whether compiles now use the prelude's PCH (built after the first compile that could).
bool nvrtc_pch_ready() noexcept;
// Turns the PCH on or off for the compiles that follow (what NUMFUSE_NVRTC_PCH sets at start).
void set_nvrtc_pch(bool on) noexcept;
// Loads NVRTC and compiles an empty kernel after the prelude for `arch` (NVRTC's one-off start,
// ~225 ms on the H100's host, and the PCH's build where it is on), for warmup.h. Never throws.
void prepare_nvrtc(const std::string& arch) noexcept;
// As compile_kernel, returning the cubin only (throws CompileError if only PTX was possible).
std::string compile_to_cubin(const std::string& source, const std::string& name,
                             const std::string& arch, const std::vector<std::string>& options);

// "   1 | first line\n   2 | ...": the source as shown in compile errors.
std::string numbered_source(const std::string& source);

}  // namespace nf::cuda
