#include "numfuse/backend/cuda/library_search.h"

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

}  // namespace nf::cuda
