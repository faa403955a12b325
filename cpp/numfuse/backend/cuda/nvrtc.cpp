#include "numfuse/backend/cuda/nvrtc.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>

#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/backend/cuda/warmup.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

extern const char* const kKernelPrelude;  // generated/embedded_kernels.cpp

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
    lib.bind_optional(s.api.GetPCHCreateStatus, "nvrtcGetPCHCreateStatus");
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

// NVRTC's automatic precompiled header (12.8+, `-pch`): a source made of numfuse's kernel
// prelude (~80 KB, every generated kernel's first part) and a body is compiled as
// `#include "nf_prelude.h"` + body, the prelude an in-memory header, so NVRTC parses the prelude
// once per process and loads its PCH for every later kernel: the same cubin, ~10 ms less per
// compile on the development machine, 26 ms (40 -> 14) on the H100's host (docs/decisions.md,
// "Cold first calls on the GPU").
// Off unless NUMFUSE_NVRTC_PCH=1 (or set_nvrtc_pch): on the H100 a compile that met the PCH's
// build in flight (a cold process's first compiles) waited for it, 250-290 ms against 55-80 ms
// whole, more than the ~20 ms each later compile saves (docs/decisions.md).
constexpr const char* kPreludeHeader = "nf_prelude.h";

std::atomic<int> g_pch_mode{-1};  // -1: not read yet, 0: off, 1: on

bool pch_wanted(const NvrtcApi& n) {
  int mode = g_pch_mode.load();
  if (mode < 0) {
    const char* e = std::getenv("NUMFUSE_NVRTC_PCH");
    int from_env = e && std::string(e) == "1" ? 1 : 0;
    g_pch_mode.compare_exchange_strong(mode, from_env);
    mode = g_pch_mode.load();
  }
  return mode == 1 && n.GetPCHCreateStatus && (n.major > 12 || (n.major == 12 && n.minor >= 8));
}

// The PCH is built apart (an empty kernel after the prelude, on a background thread started by
// the first compile that could use it): building it inside a compile made that compile ~40 ms
// slower, more than one compile saves. Compiles before it is ready take the prelude whole.
enum class Pch { None, Building, Ready, Off };
std::atomic<Pch> g_pch{Pch::None};

struct PchJob {
  std::vector<std::string> options;  // the architecture, include paths, -std: those of the compile
};

void build_pch(void* p) {
  std::unique_ptr<PchJob> job(static_cast<PchJob*>(p));
  Pch result = Pch::Off;
  try {
    const NvrtcApi& n = nvrtc();
    nvrtcProgram prog = nullptr;
    const char* header_text = kKernelPrelude;
    const std::string text = std::string("#include \"") + kPreludeHeader +
                             "\"\nextern \"C\" __global__ void nf_pch() {}\n";
    if (n.CreateProgram(&prog, text.c_str(), "nf_kernel.cu", 1, &header_text, &kPreludeHeader) ==
        NVRTC_SUCCESS) {
      std::vector<const char*> opts;
      for (const auto& o : job->options) opts.push_back(o.c_str());
      opts.push_back("-pch");
      if (n.CompileProgram(prog, static_cast<int>(opts.size()), opts.data()) == NVRTC_SUCCESS &&
          n.GetPCHCreateStatus(prog) == NVRTC_SUCCESS) {
        result = Pch::Ready;
      }
      n.DestroyProgram(&prog);
    }
  } catch (...) {
  }
  g_pch = result;
}

// Whether this compile may use the PCH; the first call that could starts building it.
bool pch_ready(const std::vector<std::string>& opts) {
  Pch st = g_pch.load();
  if (st == Pch::None && g_pch.compare_exchange_strong(st, Pch::Building)) {
    auto job = std::make_unique<PchJob>();
    for (const auto& o : opts) {
      if (o.rfind("--gpu-architecture=", 0) == 0 || o.rfind("--include-path=", 0) == 0 ||
          o.rfind("-std=", 0) == 0) {
        job->options.push_back(o);
      }
    }
    // A forked child does not use the parent's PCH: NVRTC keeps it in a file of the parent's
    // (/tmp/__nvrtc_auto_pch_<pid>_*), removed when the parent exits.
    pthread_atfork(nullptr, nullptr, [] {
      Pch ready = Pch::Ready;
      g_pch.compare_exchange_strong(ready, Pch::Off);
    });
    PchJob* raw = job.release();
    if (!run_in_background(build_pch, raw)) {
      delete raw;
      g_pch = Pch::Off;
    }
    return false;
  }
  return st == Pch::Ready;
}

// The main text when `source` is kernel-selection lines (`#define NF_...`, which the prelude
// never reads) + the prelude + a body: the include, those lines, the body. False otherwise (a
// user's module, a source without the prelude): compiled whole.
bool split_prelude(const std::string& source, std::string* main) {
  static const std::string prelude = kKernelPrelude;
  size_t p = 0;
  while (source.compare(p, 11, "#define NF_") == 0) {
    const size_t end = source.find('\n', p);
    if (end == std::string::npos) return false;
    p = end + 1;
  }
  if (source.compare(p, prelude.size(), prelude) != 0) return false;
  main->clear();
  main->reserve(source.size() - prelude.size() + 32);
  main->append("#include \"").append(kPreludeHeader).append("\"\n");
  main->append(source, 0, p);
  main->append(source, p + prelude.size(), std::string::npos);
  return true;
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
  std::string split;
  const bool has_prelude = split_prelude(source, &split);
  // NVRTC keys its automatic PCH by the program's name, and the names of internal symbols in the
  // cubin carry it: one name for every source with the prelude, split or whole, gives one PCH
  // and the same cubin either way.
  const std::string file =
      has_prelude ? std::string("nf_kernel.cu")
                  : (exprs.empty() ? std::string("module") : exprs[0]) + ".cu";
  auto create = [&](const std::string& text, bool with_prelude_header) {
    const char* header_text = kKernelPrelude;
    nvrtcResult rc = n.CreateProgram(&g.prog, text.c_str(), file.c_str(), with_prelude_header ? 1 : 0,
                                     with_prelude_header ? &header_text : nullptr,
                                     with_prelude_header ? &kPreludeHeader : nullptr);
    if (rc != NVRTC_SUCCESS) {
      throw CUDAError(std::string("nvrtcCreateProgram failed: ") + n.GetErrorString(rc));
    }
    for (const auto& e : exprs) {
      rc = n.AddNameExpression(g.prog, e.c_str());
      if (rc != NVRTC_SUCCESS) {
        throw CUDAError("nvrtcAddNameExpression('" + e + "') failed: " + n.GetErrorString(rc));
      }
    }
  };
  nvrtcResult r = NVRTC_SUCCESS;
  bool split_failed = false;
  if (has_prelude && pch_wanted(n) && pch_ready(opts)) {
    create(split, true);
    std::vector<const char*> pch_opts = copts;
    pch_opts.push_back("-pch");
    r = n.CompileProgram(g.prog, static_cast<int>(pch_opts.size()), pch_opts.data());
    if (r != NVRTC_SUCCESS) {
      // Compiled again whole: the error's log then numbers the lines of the source it shows
      // (and a failure of the split itself, never seen, costs a second compile, not the kernel).
      n.DestroyProgram(&g.prog);
      g.prog = nullptr;
      split_failed = true;
    }
  }
  if (!g.prog) {
    create(source, false);
    r = n.CompileProgram(g.prog, static_cast<int>(copts.size()), copts.data());
    // Whole it compiles, split it did not: the PCH route is broken here (its file gone, say),
    // and every later compile would pay twice. The PCH is not used again in this process.
    if (split_failed && r == NVRTC_SUCCESS) g_pch = Pch::Off;
  }
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

bool nvrtc_pch_ready() noexcept { return g_pch.load() == Pch::Ready; }

void set_nvrtc_pch(bool on) noexcept { g_pch_mode = on ? 1 : 0; }

void prepare_nvrtc(const std::string& arch) noexcept {
  try {
    // An empty kernel after the prelude: NVRTC's one-off start and, through pch_ready, the
    // PCH's build on a thread of its own. The cubin is thrown away.
    compile_kernel(std::string(kKernelPrelude) + "extern \"C\" __global__ void nf_warmup() {}\n",
                   "nf_warmup", arch, {"-std=c++17"});
  } catch (...) {
  }
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
