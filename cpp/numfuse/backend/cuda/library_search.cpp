#include "numfuse/backend/cuda/library_search.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

namespace nf::cuda {

namespace {
std::mutex g_mutex;
std::vector<std::string> g_extra_libs;
std::vector<std::string> g_extra_includes;

bool is_dir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
void push_unique(std::vector<std::string>& v, const std::string& s) {
  if (s.empty() || !is_dir(s)) return;
  for (const auto& e : v)
    if (e == s) return;
  v.push_back(s);
}
std::vector<std::string> cuda_roots() {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    const char* v = std::getenv(var);
    if (v && *v) roots.emplace_back(v);
  }
  return roots;
}
}  // namespace

void add_search_dirs(const std::vector<std::string>& lib_dirs,
                     const std::vector<std::string>& include_dirs) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& d : lib_dirs) push_unique(g_extra_libs, d);
  for (const auto& d : include_dirs) push_unique(g_extra_includes, d);
}

std::vector<std::string> library_dirs() {
  std::vector<std::string> out;
  for (const auto& r : cuda_roots()) {
    push_unique(out, r + "/lib64");
    push_unique(out, r + "/lib");
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& d : g_extra_libs) push_unique(out, d);
  }
  return out;
}

std::vector<std::string> cuda_include_dirs() {
  std::vector<std::string> candidates;
  for (const auto& r : cuda_roots()) candidates.push_back(r + "/include");
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& d : g_extra_includes) candidates.push_back(d);
  }
  candidates.push_back("/usr/local/cuda/include");
  candidates.push_back("/usr/include");
  // Only directories that really hold CUDA's device headers: a wrong one would shadow the right.
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (is_file(c + "/cuda_fp16.h")) push_unique(out, c);
  return out;
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
  std::vector<std::string> all_dirs = dirs;
  for (const auto& dir : all_dirs) {
    for (const auto& n : names) {
      std::string full = dir + "/" + n;
      if (!is_file(full)) continue;
      if (void* h = attempt(full)) {
        if (path) *path = full;
        return h;
      }
    }
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
    for (const auto& n : names) {
      std::string full = std::string(d) + "/" + n;
      if (!is_file(full)) continue;
      if (void* h = attempt(full)) {
        if (path) *path = full;
        return h;
      }
    }
  }
  if (error) *error = tried.empty() ? "not found" : tried;
  return nullptr;
}

}  // namespace nf::cuda
