// The kernel cache: generated source -> compiled binary -> loaded CUfunction, in memory and on
// disk (NUMFUSE_CACHE_DIR or ~/.cache/numfuse/kernels). A disk entry is keyed by SHA-256 of the
// full source, kernel name, options, architecture, NVRTC version and the cache format version;
// it is written to a temporary name and renamed, carries a checksum, and is rebuilt when corrupt
// or truncated. The directory must be the user's own and writable by nobody else. The NVRTC
// version of the key is read from a stamp in the directory when it is valid (compiler_stamp.h),
// so that a process whose kernels are all on disk never loads NVRTC (5-10 ms).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "numfuse/backend/cuda/cuda_api.h"
#include "numfuse/backend/cuda/nvrtc.h"

namespace nf::cuda {

// Bumped whenever the file layout, or the meaning of a key, changes.
constexpr uint32_t kKernelCacheFormatVersion = 1;

struct KernelCacheStats {
  uint64_t compilations = 0;  // NVRTC (or the hook) ran
  uint64_t disk_hits = 0;     // a valid file was read
  uint64_t memory_hits = 0;   // found in this process's memory
  uint64_t corrupt = 0;       // a file was found bad (and rebuilt)
};

using CompileFn = std::function<CompiledKernel(const std::string& source, const std::string& name,
                                               const std::string& arch,
                                               const std::vector<std::string>& options)>;

class KernelCache {
 public:
  // `dir` "" keeps kernels in memory only; otherwise it is checked (and created) by
  // prepare_cache_dir. `compiler_version` is part of every key.
  KernelCache(const std::string& dir, CompileFn compile, std::string compiler_version);

  // The compiled kernel: from memory, else from disk, else compiled (and stored in both).
  std::shared_ptr<const CompiledKernel> get(const std::string& source, const std::string& name,
                                            const std::string& arch,
                                            const std::vector<std::string>& options);
  // The hex SHA-256 key of a kernel.
  std::string key(const std::string& source, const std::string& name, const std::string& arch,
                  const std::vector<std::string>& options) const;
  // The file a key is stored in ("" when memory only).
  std::string path_for(const std::string& key) const;

  const std::string& dir() const { return dir_; }  // "" when memory only
  KernelCacheStats stats() const;
  void reset_stats();
  void clear_memory();
  void count_memory_hit();

 private:
  std::shared_ptr<const CompiledKernel> read_file(const std::string& key);
  void write_file(const std::string& key, const CompiledKernel& k);

  std::string dir_;
  CompileFn compile_;
  std::string compiler_version_;
  mutable std::mutex mutex_;  // held for lookups, never across a compile or a file's read
  std::condition_variable built_;  // a kernel of in_flight_ was built (or failed)
  std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> memory_;
  std::unordered_set<std::string> in_flight_;  // keys a thread is reading or compiling now
  KernelCacheStats stats_;
};

// NUMFUSE_CACHE_DIR, else $HOME/.cache/numfuse/kernels.
std::string default_cache_dir();
// Creates `dir` (0700) if needed and checks it is a directory owned by this user and not writable
// by group or others. Returns false with *why set when it must not be used.
bool prepare_cache_dir(const std::string& dir, std::string* why);

// ---- process-wide cache (NVRTC, the current device) -------------------------------------------

// The loaded kernel `name` of `source` for `device` (-1: the current device), compiled for that
// device's architecture. Equal source, name and options give the same CUfunction.
CUfunction get_kernel(const std::string& source, const std::string& name,
                      const std::vector<std::string>& options = {}, int device = -1);
// The compiled (not loaded) kernel of the process cache for `arch`: needs NVRTC, not a GPU. The
// user kernels' path (user_kernels.h), which loads modules of several functions itself.
std::shared_ptr<const CompiledKernel> compiled_kernel(const std::string& source, const std::string& name,
                                                      const std::string& arch,
                                                      const std::vector<std::string>& options);
KernelCacheStats kernel_cache_stats();
void reset_kernel_cache_stats();
// Replaces NVRTC by `fn` (nullptr restores NVRTC) and forgets what the process cache held.
void set_compile_hook(CompileFn fn);
// Points the process cache at another directory ("" = memory only); forgets what it held.
void set_kernel_cache_dir(const std::string& dir);
// The process cache's directory ("" when memory only).
std::string kernel_cache_dir();

}  // namespace nf::cuda
