#include "numfuse/backend/cuda/nvrtc.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <sstream>

#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

struct NvrtcState {
  NvrtcApi api;
  bool ok = false;
  std::string reason;
};

std::atomic<bool> g_load_attempted{false};

NvrtcState& state() {
  static NvrtcState s;
  static std::once_flag once;
  std::call_once(once, [] {
    g_load_attempted = true;
    const LoadedLibrary& lib = load_library(CudaLibrary::Nvrtc);
    if (!lib.ok()) {
      s.reason = lib.reason();
      return;
    }
    s.api.path = lib.path();
    // NVRTC dlopens its builtins library by soname; when NVRTC itself came from a directory the
    // loader does not search (CUDA_HOME, pip), preloading the builtins from beside it lets that
    // work.
    s.api.builtins_path = open_beside(lib.path(), "libnvrtc-builtins.so.");
#define NF_NVRTC_LOAD(member, symbol, ret, params) \
  if (!lib.bind(s.api.member, symbol, &s.reason)) return;
    NF_NVRTC_CALLS(NF_NVRTC_LOAD)
#undef NF_NVRTC_LOAD
    if (s.api.Version(&s.api.major, &s.api.minor) != NVRTC_SUCCESS) {
      s.reason = "nvrtcVersion failed for " + lib.path();
      return;
    }
    int n = 0;
    if (s.api.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
      s.api.archs.resize(n);
      if (s.api.GetSupportedArchs(s.api.archs.data()) != NVRTC_SUCCESS) s.api.archs.clear();
    }
    s.ok = true;
  });
  return s;
}

int arch_number(const std::string& arch) {
  size_t i = arch.find_first_of("0123456789");
  if (i == std::string::npos) throw ValueError("invalid CUDA architecture '" + arch + "'");
  return std::atoi(arch.c_str() + i);
}

std::string program_log(const NvrtcApi& n, nvrtcProgram prog) {
  size_t size = 0;
  if (n.GetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (n.GetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct ProgramGuard {
  const NvrtcApi& n;
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog) n.DestroyProgram(&prog);
  }
};

}  // namespace

bool nvrtc_available() noexcept {
  try {
    return state().ok;
  } catch (...) {
    return false;
  }
}

bool nvrtc_load_attempted() noexcept { return g_load_attempted; }

std::string nvrtc_unavailable_reason() { return state().ok ? "" : state().reason; }

const NvrtcApi& nvrtc() {
  NvrtcState& s = state();
  if (!s.ok) throw CUDAError(s.reason);
  return s.api;
}

std::string nvrtc_version_string() {
  const NvrtcApi& n = nvrtc();
  return std::to_string(n.major) + "." + std::to_string(n.minor);
}

std::string numbered_source(const std::string& source) {
  std::ostringstream out;
  std::istringstream in(source);
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%4d | ", ++no);
    out << buf << line << '\n';
  }
  return out.str();
}

CompiledKernel compile_kernel(const std::string& source, const std::string& name,
                              const std::string& arch, const std::vector<std::string>& options) {
  const NvrtcApi& n = nvrtc();
  const int want = arch_number(arch);
  // SASS when NVRTC knows the architecture; else PTX for the newest one below it, which the
  // driver compiles for the device on load.
  bool sass = n.archs.empty() ||
              std::find(n.archs.begin(), n.archs.end(), want) != n.archs.end();
  int target = want;
  if (!sass) {
    target = 0;
    for (int a : n.archs)
      if (a <= want) target = std::max(target, a);
    if (target == 0) {
      throw CompileError("NVRTC " + nvrtc_version_string() + " cannot compile for " + arch);
    }
  }
  std::vector<std::string> opts;
  opts.push_back((sass ? "--gpu-architecture=sm_" : "--gpu-architecture=compute_") +
                 std::to_string(target));
  for (const auto& dir : cuda_include_dirs()) opts.push_back("--include-path=" + dir);
  for (const auto& o : options) opts.push_back(o);
  std::vector<const char*> copts;
  for (const auto& o : opts) copts.push_back(o.c_str());

  // `name` may hold several name expressions, one a line (a user module's), or none.
  std::vector<std::string> exprs;
  for (size_t start = 0; start < name.size();) {
    size_t end = name.find('\n', start);
    if (end == std::string::npos) end = name.size();
    if (end > start) exprs.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  ProgramGuard g{n};
  const std::string file = (exprs.empty() ? std::string("module") : exprs[0]) + ".cu";
  nvrtcResult r = n.CreateProgram(&g.prog, source.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    throw CUDAError(std::string("nvrtcCreateProgram failed: ") + n.GetErrorString(r));
  }
  for (const auto& e : exprs) {
    r = n.AddNameExpression(g.prog, e.c_str());
    if (r != NVRTC_SUCCESS) {
      throw CUDAError("nvrtcAddNameExpression('" + e + "') failed: " + n.GetErrorString(r));
    }
  }
  r = n.CompileProgram(g.prog, static_cast<int>(copts.size()), copts.data());
  if (r != NVRTC_SUCCESS) {
    std::string what = exprs.size() == 1 ? "kernel '" + exprs[0] + "'" : std::string("module");
    std::string msg = "NVRTC failed to compile " + what + " for " + arch + " (" +
                      n.GetErrorString(r) + ")";
    std::string options_text;
    for (const auto& o : opts) options_text += " " + o;
    msg += "\noptions:" + options_text;
    msg += "\nlog:\n" + program_log(n, g.prog);
    msg += "\nsource:\n" + numbered_source(source);
    throw CompileError(msg);
  }
  CompiledKernel out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const char* lowered = nullptr;
    r = n.GetLoweredName(g.prog, exprs[i].c_str(), &lowered);
    if (r != NVRTC_SUCCESS || !lowered) {
      throw CUDAError("nvrtcGetLoweredName failed for '" + exprs[i] + "': " + n.GetErrorString(r));
    }
    if (i) out.lowered_name += '\n';
    out.lowered_name += lowered;
  }
  size_t size = 0;
  if (sass) {
    r = n.GetCUBINSize(g.prog, &size);
    if (r == NVRTC_SUCCESS) {
      out.binary.resize(size);
      r = n.GetCUBIN(g.prog, &out.binary[0]);
    }
    if (r != NVRTC_SUCCESS) throw CUDAError(std::string("nvrtcGetCUBIN failed: ") + n.GetErrorString(r));
  } else {
    r = n.GetPTXSize(g.prog, &size);
    if (r == NVRTC_SUCCESS) {
      out.binary.resize(size);
      r = n.GetPTX(g.prog, &out.binary[0]);
    }
    if (r != NVRTC_SUCCESS) throw CUDAError(std::string("nvrtcGetPTX failed: ") + n.GetErrorString(r));
    out.is_ptx = true;
  }
  return out;
}

std::string compile_to_cubin(const std::string& source, const std::string& name,
                             const std::string& arch, const std::vector<std::string>& options) {
  CompiledKernel k = compile_kernel(source, name, arch, options);
  if (k.is_ptx) {
    throw CompileError("NVRTC " + nvrtc_version_string() + " cannot emit SASS for " + arch +
                       " (only PTX)");
  }
  return std::move(k.binary);
}

}  // namespace nf::cuda
