#include "numfuse/backend/cuda/kernel_cache.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "numfuse/backend/cuda/compiler_stamp.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/sha256.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

// File layout (little-endian, as the host): header, then the lowered name, then the binary.
constexpr char kMagic[8] = {'N', 'F', 'K', 'C', 'A', 'C', 'H', 'E'};
struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t flags;  // bit 0: the binary is PTX
  uint64_t name_len;
  uint64_t binary_len;
  uint8_t key[32];       // the entry's key again: a file renamed by hand is not trusted
  uint8_t checksum[32];  // SHA-256 of name + binary
};
static_assert(sizeof(FileHeader) == 96, "cache file header must not change silently");

std::array<uint8_t, 32> content_checksum(const std::string& name, const std::string& binary) {
  Sha256 h;
  h.update_field(name);
  h.update_field(binary);
  return h.digest();
}

bool from_hex(const std::string& hex, uint8_t* out, size_t n) {
  if (hex.size() != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned v = 0;
    if (std::sscanf(hex.c_str() + 2 * i, "%2x", &v) != 1) return false;
    out[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// NUMFUSE_TRACE_COMPILES=1: each NVRTC compile on stderr, its entry and time (what a first call
// pays; tools/nvrtc_compile_times.py measures the sources without running them).
bool trace_compiles() {
  static const bool on = [] {
    const char* e = std::getenv("NUMFUSE_TRACE_COMPILES");
    return e && *e && std::string(e) != "0";
  }();
  return on;
}

void warn_once(const std::string& msg) {
  static std::mutex m;
  static std::map<std::string, bool> seen;
  std::lock_guard<std::mutex> lock(m);
  if (seen[msg]) return;
  seen[msg] = true;
  std::fprintf(stderr, "numfuse: warning: %s\n", msg.c_str());
}

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

// ---- directory --------------------------------------------------------------------------------

std::string default_cache_dir() {
  const char* env = std::getenv("NUMFUSE_CACHE_DIR");
  if (env && *env) return env;
  const char* home = std::getenv("HOME");
  std::string h = home && *home ? home : "";
  if (h.empty()) {
    if (passwd* pw = getpwuid(geteuid())) h = pw->pw_dir ? pw->pw_dir : "";
  }
  if (h.empty()) return "";
  return h + "/.cache/numfuse/kernels";
}

bool prepare_cache_dir(const std::string& dir, std::string* why) {
  if (dir.empty()) {
    *why = "no cache directory (HOME is not set)";
    return false;
  }
  // mkdir -p, every level we create private to the user.
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') {
      std::string part = dir.substr(0, pos);
      if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
        *why = "cannot create " + part + ": " + std::strerror(errno);
        return false;
      }
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    *why = "cannot stat " + dir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *why = dir + " is not a directory";
    return false;
  }
  if (st.st_uid != geteuid()) {
    *why = dir + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(geteuid()) + ")";
    return false;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    *why = dir + " is writable by group or others (mode " + mode + "; expected 0700)";
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    *why = dir + " is not writable";
    return false;
  }
  return true;
}

// ---- KernelCache ------------------------------------------------------------------------------

KernelCache::KernelCache(const std::string& dir, CompileFn compile, std::string compiler_version)
    : compile_(std::move(compile)), compiler_version_(std::move(compiler_version)) {
  if (!dir.empty()) {
    std::string why;
    if (prepare_cache_dir(dir, &why)) {
      dir_ = dir;
    } else {
      warn_once("kernel cache directory refused, kernels are cached in memory only: " + why);
    }
  }
}

std::string KernelCache::key(const std::string& source, const std::string& name,
                             const std::string& arch,
                             const std::vector<std::string>& options) const {
  Sha256 h;
  h.update_field("numfuse kernel cache v" + std::to_string(kKernelCacheFormatVersion));
  h.update_field(compiler_version_);
  h.update_field(arch);
  h.update_field(name);
  h.update_field(std::to_string(options.size()));
  for (const auto& o : options) h.update_field(o);
  h.update_field(source);
  auto d = h.digest();
  return to_hex(d.data(), d.size());
}

std::string KernelCache::path_for(const std::string& key) const {
  return dir_.empty() ? "" : dir_ + "/" + key + ".nfk";
}

std::shared_ptr<const CompiledKernel> KernelCache::read_file(const std::string& key) {
  const std::string path = path_for(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;  // absent: not an error
  auto bad = [&](const char* what) -> std::shared_ptr<const CompiledKernel> {
    ::close(fd);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.corrupt;
    }
    warn_once("kernel cache entry " + path + " is " + what + "; rebuilding it");
    return nullptr;
  };
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return bad("not a regular file");
  FileHeader hdr;
  if (static_cast<size_t>(st.st_size) < sizeof(hdr) || !read_all(fd, &hdr, sizeof(hdr)))
    return bad("truncated");
  uint8_t want_key[32];
  if (std::memcmp(hdr.magic, kMagic, 8) != 0) return bad("not a numfuse cache file");
  if (hdr.version != kKernelCacheFormatVersion) return bad("of another cache format version");
  if (!from_hex(key, want_key, 32) || std::memcmp(hdr.key, want_key, 32) != 0)
    return bad("stored under the wrong key");
  if (hdr.name_len > (1u << 20) || hdr.binary_len > (uint64_t(1) << 32) ||
      static_cast<uint64_t>(st.st_size) != sizeof(hdr) + hdr.name_len + hdr.binary_len)
    return bad("truncated or has a bad length");
  auto k = std::make_shared<CompiledKernel>();
  k->lowered_name.resize(hdr.name_len);
  k->binary.resize(hdr.binary_len);
  if ((hdr.name_len && !read_all(fd, &k->lowered_name[0], hdr.name_len)) ||
      (hdr.binary_len && !read_all(fd, &k->binary[0], hdr.binary_len)))
    return bad("truncated");
  auto sum = content_checksum(k->lowered_name, k->binary);
  if (std::memcmp(sum.data(), hdr.checksum, 32) != 0) return bad("corrupt (checksum mismatch)");
  k->is_ptx = hdr.flags & 1u;
  ::close(fd);
  return k;
}

void KernelCache::write_file(const std::string& key, const CompiledKernel& k) {
  static std::atomic<uint64_t> counter{0};
  const std::string path = path_for(key);
  const std::string tmp = dir_ + "/." + key + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter++);
  FileHeader hdr{};
  std::memcpy(hdr.magic, kMagic, 8);
  hdr.version = kKernelCacheFormatVersion;
  hdr.flags = k.is_ptx ? 1u : 0u;
  hdr.name_len = k.lowered_name.size();
  hdr.binary_len = k.binary.size();
  from_hex(key, hdr.key, 32);
  auto sum = content_checksum(k.lowered_name, k.binary);
  std::memcpy(hdr.checksum, sum.data(), 32);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    warn_once("cannot write to the kernel cache " + dir_ + ": " + std::strerror(errno));
    return;
  }
  bool ok = write_all(fd, &hdr, sizeof(hdr)) && write_all(fd, k.lowered_name.data(), hdr.name_len) &&
            write_all(fd, k.binary.data(), hdr.binary_len);
  ok = (::close(fd) == 0) && ok;
  // rename() is atomic: readers see the old entry or the whole new one, never a part.
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    warn_once("cannot write to the kernel cache " + dir_ + ": " + std::strerror(errno));
    ::unlink(tmp.c_str());
  }
}

std::shared_ptr<const CompiledKernel> KernelCache::get(const std::string& source,
                                                       const std::string& name,
                                                       const std::string& arch,
                                                       const std::vector<std::string>& options) {
  const std::string k = key(source, name, arch, options);
  // Two threads asking for one new kernel build it once (the second waits for the first); kernels
  // of different keys build at the same time: a compile in the background (seconds, for a
  // small-stack kernel) never holds up another thread's compile or lookup.
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    auto it = memory_.find(k);
    if (it != memory_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
    if (!in_flight_.count(k)) break;
    built_.wait(lock);
  }
  in_flight_.insert(k);
  lock.unlock();
  std::shared_ptr<const CompiledKernel> out;
  bool compiled_here = false;
  try {
    if (!dir_.empty()) out = read_file(k);
    if (!out) {
      const auto start = std::chrono::steady_clock::now();
      auto compiled = std::make_shared<CompiledKernel>(compile_(source, name, arch, options));
      compiled_here = true;
      if (trace_compiles()) {
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "[numfuse] compiled %s for %s: %.0f ms, %zu bytes of source\n",
                     name.empty() ? "module" : name.c_str(), arch.c_str(), ms, source.size());
      }
      if (!dir_.empty()) write_file(k, *compiled);
      out = compiled;
    }
  } catch (...) {
    lock.lock();
    in_flight_.erase(k);
    built_.notify_all();  // a waiter tries for itself (and meets the same error)
    throw;
  }
  lock.lock();
  ++(compiled_here ? stats_.compilations : stats_.disk_hits);
  memory_.emplace(k, out);
  in_flight_.erase(k);
  built_.notify_all();
  return out;
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void KernelCache::reset_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_ = {};
}

void KernelCache::clear_memory() {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_.clear();
}

void KernelCache::count_memory_hit() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.memory_hits;
}

// ---- the process cache ------------------------------------------------------------------------

namespace {

struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

struct ProcessCache {
  std::mutex mutex;
  std::shared_ptr<KernelCache> cache;  // shared: a compile outside the mutex keeps its cache
  CompileFn hook;
  bool dir_overridden = false;
  std::string dir;
  // Full inputs (not their SHA-256) as the key: hashing a long source per launch would cost more
  // than the lookup it saves.
  std::unordered_map<std::string, LoadedKernel> loaded;

  KernelCache& get_cache() {
    if (!cache) {
      const std::string d = dir_overridden ? dir : default_cache_dir();
      std::string why;  // KernelCache's constructor reports it
      const std::string stamp_dir = !d.empty() && prepare_cache_dir(d, &why) ? d : "";
      // From the stamp when it is valid: a disk-cache hit then never loads NVRTC (5-10 ms).
      std::string version = nvrtc_identity(stamp_dir);
      CompileFn fn = hook ? hook : CompileFn([stamp_dir](const std::string& source, const std::string& name,
                                                         const std::string& arch,
                                                         const std::vector<std::string>& options) {
        CompiledKernel k = compile_kernel(source, name, arch, options);
        static std::once_flag noted;
        std::call_once(noted, [&] { note_nvrtc_loaded(stamp_dir); });
        return k;
      });
      if (hook) version += " + hook";
      cache = std::make_shared<KernelCache>(d, fn, version);
    }
    return *cache;
  }
  void forget() {
    // Modules stay loaded: CUfunctions handed out earlier remain valid.
    loaded.clear();
    cache.reset();
  }
};

ProcessCache& process_cache() {
  static ProcessCache* p = new ProcessCache();  // never destroyed: used until exit
  return *p;
}

}  // namespace

CUfunction get_kernel(const std::string& source, const std::string& name,
                      const std::vector<std::string>& options, int device) {
  if (device < 0) device = current_device();
  ProcessCache& pc = process_cache();
  std::string mkey;
  mkey.reserve(source.size() + name.size() + 32);
  mkey.append(std::to_string(device)).push_back('\0');
  mkey.append(name).push_back('\0');
  for (const auto& o : options) mkey.append(o).push_back('\0');
  mkey.append(source);
  std::shared_ptr<KernelCache> cache;
  {
    std::lock_guard<std::mutex> lock(pc.mutex);
    auto it = pc.loaded.find(mkey);
    if (it != pc.loaded.end()) {
      pc.get_cache().count_memory_hit();
      return it->second.function;
    }
    pc.get_cache();
    cache = pc.cache;
  }
  // Built outside the process mutex: another thread's compile (a small-stack kernel compiled in
  // the background) does not hold up this one, nor its lookups of loaded kernels.
  const std::string arch = device_arch(device);
  auto compiled = cache->get(source, name, arch, options);
  std::lock_guard<std::mutex> lock(pc.mutex);
  auto it = pc.loaded.find(mkey);
  if (it != pc.loaded.end()) return it->second.function;  // loaded by another thread meanwhile
  activate(device);
  const DriverApi& d = driver();
  LoadedKernel lk;
  check(d.ModuleLoadData(&lk.module, compiled->binary.c_str()), "cuModuleLoadData");
  CUresult r = d.ModuleGetFunction(&lk.function, lk.module, compiled->lowered_name.c_str());
  if (r != CUDA_SUCCESS) {
    d.ModuleUnload(lk.module);
    check(r, ("cuModuleGetFunction(" + compiled->lowered_name + ")").c_str());
  }
  pc.loaded.emplace(std::move(mkey), lk);
  return lk.function;
}

std::shared_ptr<const CompiledKernel> compiled_kernel(const std::string& source, const std::string& name,
                                                      const std::string& arch,
                                                      const std::vector<std::string>& options) {
  ProcessCache& pc = process_cache();
  std::shared_ptr<KernelCache> cache;
  {
    std::lock_guard<std::mutex> lock(pc.mutex);
    pc.get_cache();
    cache = pc.cache;
  }
  return cache->get(source, name, arch, options);
}

KernelCacheStats kernel_cache_stats() {
  ProcessCache& pc = process_cache();
  std::lock_guard<std::mutex> lock(pc.mutex);
  return pc.cache ? pc.cache->stats() : KernelCacheStats{};
}

void reset_kernel_cache_stats() {
  ProcessCache& pc = process_cache();
  std::lock_guard<std::mutex> lock(pc.mutex);
  if (pc.cache) pc.cache->reset_stats();
}

void set_compile_hook(CompileFn fn) {
  ProcessCache& pc = process_cache();
  std::lock_guard<std::mutex> lock(pc.mutex);
  pc.hook = std::move(fn);
  pc.forget();
}

void set_kernel_cache_dir(const std::string& dir) {
  ProcessCache& pc = process_cache();
  std::lock_guard<std::mutex> lock(pc.mutex);
  pc.dir_overridden = true;
  pc.dir = dir;
  pc.forget();
}

std::string kernel_cache_dir() {
  ProcessCache& pc = process_cache();
  std::lock_guard<std::mutex> lock(pc.mutex);
  return pc.get_cache().dir();
}

}  // namespace nf::cuda
