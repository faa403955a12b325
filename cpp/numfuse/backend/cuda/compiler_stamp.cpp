#include "numfuse/backend/cuda/compiler_stamp.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/backend/cuda/nvrtc.h"
#include "numfuse/backend/cuda/sha256.h"

namespace nf::cuda {

namespace {

constexpr const char* kStampHeader = "numfuse nvrtc stamp 1";

// One line: a stamp is a file of lines.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// "dev ino size mtime.nsec" of a regular file, "" when it is not one. Built with to_string, not
// an ostringstream: formatting an unsigned long through the ostream of numfuse's static libstdc++
// crashed (SIGSEGV in num_put) on the H100 machine, where the process had loaded another libstdc++.
std::string file_identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + ' ' +
         std::to_string(static_cast<unsigned long long>(st.st_ino)) + ' ' +
         std::to_string(static_cast<long long>(st.st_size)) + ' ' +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + '.' +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec));
}

// Another library of this process (CuPy, PyTorch) may have loaded an NVRTC already; the
// loader's search by soname would then find that one, which no stamp describes.
bool nvrtc_loaded_by_someone() {
  for (const char* name : library_spec(CudaLibrary::Nvrtc).files) {
    if (void* h = ::dlopen(name, RTLD_LAZY | RTLD_NOLOAD)) {
      ::dlclose(h);  // drops only the reference RTLD_NOLOAD added
      return true;
    }
  }
  return false;
}

std::string loaded_identity() {
  return nvrtc_available() ? "nvrtc " + nvrtc_version_string() : "no nvrtc";
}

}  // namespace

std::string nvrtc_search_context() {
  std::string ctx = "dirs=";
  for (const auto& d : library_dirs()) ctx += d + ":";
  const char* ld = std::getenv("LD_LIBRARY_PATH");
  ctx += ";LD_LIBRARY_PATH=" + std::string(ld ? ld : "");
  ctx += ";ld.so.cache=" + file_identity("/etc/ld.so.cache");
  return one_line(ctx);
}

std::string stamp_path(const std::string& dir, const std::string& context) {
  return dir + "/nvrtc-" + sha256_hex(context).substr(0, 16) + ".stamp";
}

bool write_stamp(const std::string& dir, const std::string& context, const std::string& library,
                 const std::string& version) {
  static std::atomic<unsigned> counter{0};
  const std::string id = file_identity(library);
  if (dir.empty() || id.empty()) return false;
  const std::string text = std::string(kStampHeader) + "\n" + one_line(context) + "\n" +
                           one_line(library) + "\n" + id + "\n" + one_line(version) + "\n";
  const std::string path = stamp_path(dir, context);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = (::close(fd) == 0) && ok;
  // Atomic: a reader sees the old stamp or the whole new one.
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string read_stamp(const std::string& dir, const std::string& context) {
  if (dir.empty()) return "";
  // POSIX reads, not an ifstream: no iostreams in this file (see file_identity).
  int fd = ::open(stamp_path(dir, context).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buf[1024];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0 && text.size() < 65536;) text.append(buf, n);
  ::close(fd);
  std::string lines[5];
  size_t at = 0;
  for (auto& line : lines) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) return "";  // truncated
    line = text.substr(at, end - at);
    at = end + 1;
  }
  const std::string &header = lines[0], &ctx = lines[1], &library = lines[2], &id = lines[3],
                    &version = lines[4];
  if (header != kStampHeader || ctx != one_line(context) || version.empty()) return "";
  if (file_identity(library) != id) return "";  // replaced, updated or removed since
  return version;
}

std::string nvrtc_identity(const std::string& stamp_dir) {
  if (nvrtc_load_attempted() || stamp_dir.empty() || nvrtc_loaded_by_someone()) {
    std::string v = loaded_identity();
    note_nvrtc_loaded(stamp_dir);
    return v;
  }
  std::string v = read_stamp(stamp_dir, nvrtc_search_context());
  if (!v.empty()) return v;
  v = loaded_identity();
  note_nvrtc_loaded(stamp_dir);
  return v;
}

void note_nvrtc_loaded(const std::string& stamp_dir) noexcept {
  try {
    if (stamp_dir.empty() || !nvrtc_available()) return;
    const std::string context = nvrtc_search_context();
    const std::string truth = loaded_identity();
    if (read_stamp(stamp_dir, context) == truth) return;
    write_stamp(stamp_dir, context, nvrtc().path, truth);
  } catch (...) {
    // A stamp is an optimisation: without one the next process loads NVRTC to learn its version.
  }
}

}  // namespace nf::cuda
