#include "numfuse/backend/cuda/library_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "numfuse/backend/cuda/library_search.h"

namespace nf::cuda {

namespace {

// The search table. Sonames newest first: the CUDA 13 names, then CUDA 12's (the libraries keep
// their own major numbers: cuFFT 12 and cuRAND 10 ship with CUDA 13), then the unversioned link.
// One row per CudaLibrary, in its order; the loaded-library slots below have as many.
constexpr size_t kLibraries = static_cast<size_t>(CudaLibrary::Nccl) + 1;

const std::array<LibrarySpec, kLibraries>& table() {
  static const std::array<LibrarySpec, kLibraries> t = {{
      {"the CUDA driver",
       {"libcuda.so.1", "libcuda.so"},
       true,
       "install the NVIDIA driver",
       " (a driver for CUDA 11.2 or newer is needed)"},
      {"NVRTC",
       {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"},
       false,
       "install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-cuda-nvrtc",
       ""},
      {"cuBLAS",
       {"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
       false,
       "install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-cublas",
       ""},
      {"cuSOLVER",
       {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"},
       false,
       "install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-cusolver",
       ""},
      {"cuFFT",
       {"libcufft.so.12", "libcufft.so.11", "libcufft.so"},
       false,
       "install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-cufft",
       ""},
      {"cuRAND",
       {"libcurand.so.10", "libcurand.so"},
       false,
       "install the CUDA toolkit, set CUDA_HOME, or pip install nvidia-curand",
       ""},
      {"NCCL",
       {"libnccl.so.2", "libnccl.so"},
       false,
       "install NCCL, or pip install nvidia-nccl-cu13 (nvidia-nccl-cu12 for CUDA 12)",
       " (NCCL 2.7 or newer is needed for send and recv)"},
  }};
  return t;
}

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

const LibrarySpec& library_spec(CudaLibrary lib) { return table()[static_cast<size_t>(lib)]; }

std::vector<CudaLibrary> all_libraries() {
  return {CudaLibrary::Driver,   CudaLibrary::Nvrtc, CudaLibrary::Cublas,
          CudaLibrary::Cusolver, CudaLibrary::Cufft, CudaLibrary::Curand,
          CudaLibrary::Nccl};
}

void* LoadedLibrary::symbol(const char* name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

std::string LoadedLibrary::missing_symbol(const char* name) const {
  const LibrarySpec& spec = library_spec(which_);
  return std::string(spec.name) + " at " + path_ + " lacks " + name + spec.symbol_hint;
}

const LoadedLibrary& load_library(CudaLibrary lib) {
  static std::array<LoadedLibrary, kLibraries> loaded;
  static std::array<std::once_flag, kLibraries> once;
  const size_t i = static_cast<size_t>(lib);
  std::call_once(once[i], [&] {
    LoadedLibrary& l = loaded[i];
    const LibrarySpec& spec = library_spec(lib);
    l.which_ = lib;
    std::vector<std::string> names(spec.files.begin(), spec.files.end());
    // The driver comes with the system's kernel module: the system loader's answer is the right
    // one, never a toolkit directory's copy (its stubs only report CUDA_ERROR_STUB_LIBRARY).
    const std::vector<std::string> dirs =
        spec.system_only ? std::vector<std::string>{} : library_dirs();
    std::string err;
    l.handle_ = open_library(names, dirs, false, &l.path_, &err);
    if (!l.handle_) {
      l.path_.clear();
      std::string where = dirs.empty() ? "" : " in " + join(dirs, ", ") + ",";
      l.reason_ = std::string(spec.name) + " could not be loaded: tried " + join(names, ", ") +
                  where + " through the system loader and in /usr/local/cuda: " + err + " (" +
                  spec.hint + ")";
    }
  });
  return loaded[i];
}

void* open_library(const std::vector<std::string>& names, const std::vector<std::string>& dirs,
                   bool global, std::string* path, std::string* error) {
  const int flags = RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL);
  std::string tried;
  auto attempt = [&](const std::string& p) -> void* {
    // The toolkit's stubs (libcuda.so in lib64/stubs) only report CUDA_ERROR_STUB_LIBRARY.
    if (p.find("/stubs/") != std::string::npos) return nullptr;
    void* h = dlopen(p.c_str(), flags);
    if (!h) {
      const char* e = dlerror();
      if (!tried.empty()) tried += "; ";
      tried += e ? e : p;
    }
    return h;
  };
  auto in_dir = [&](const std::string& dir) -> void* {
    for (const auto& n : names) {
      std::string full = dir + "/" + n;
      if (!is_file(full)) continue;
      if (void* h = attempt(full)) {
        if (path) *path = full;
        return h;
      }
    }
    return nullptr;
  };
  for (const auto& dir : dirs) {
    if (void* h = in_dir(dir)) return h;
  }
  for (const auto& n : names) {
    if (void* h = attempt(n)) {
      if (path) {
        *path = n;
        struct link_map* lm = nullptr;
        if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name)
          *path = lm->l_name;
      }
      return h;
    }
  }
  for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"}) {
    if (void* h = in_dir(d)) return h;
  }
  if (error) *error = tried.empty() ? "not found" : tried;
  return nullptr;
}

std::string open_beside(const std::string& path, const std::string& prefix) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  DIR* d = opendir(dir.c_str());
  if (!d) return "";
  std::vector<std::string> found;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.rfind(prefix, 0) == 0) found.push_back(n);
  }
  closedir(d);
  std::sort(found.begin(), found.end());
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    std::string full = dir + "/" + *it;
    if (dlopen(full.c_str(), RTLD_NOW | RTLD_GLOBAL)) return full;
  }
  return "";
}

}  // namespace nf::cuda
