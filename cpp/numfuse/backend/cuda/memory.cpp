#include "numfuse/backend/cuda/memory.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/core/error.h"
#include "numfuse/core/interrupt.h"

namespace nf::cuda {

namespace {

constexpr int kMaxDevices = 64;

// Blocks up to 1 MiB freed on the null stream are kept by numfuse, per power-of-two size class,
// and handed out again to allocations on the null stream: reuse is stream-ordered (the block's
// earlier users were enqueued before its new ones), and a pair of driver calls (~2 µs) leaves the
// path of every small op. Other streams go through the driver's pool only: a destroyed stream's
// handle may be reused by a new stream, so a block cached under it could race.
constexpr int kSmallMinLog2 = 8, kSmallMaxLog2 = 20;
constexpr size_t kSmallCacheMax = size_t(64) << 20;

// Larger blocks freed on the null stream are kept too, by exact size, up to kLargeCacheMax in all,
// so that a loop of one op on a large array (a stack of 100,000 8x8 matrices: 51 MB out a call)
// skips the pool's cuMemAllocAsync / cuMemFreeAsync pair each call, as the small blocks do (H100:
// the output's allocation 0.92 -> 0.38 us, inv's call 55.9 -> 54.7 us). The same ordering as the
// pool's own reuse on one stream. NUMFUSE_CUDA_LARGE_BLOCK_CACHE=0 turns it off.
constexpr size_t kLargeCacheMax = size_t(256) << 20;
bool large_block_cache() {
  static const bool on = [] {
    const char* e = std::getenv("NUMFUSE_CUDA_LARGE_BLOCK_CACHE");
    return !(e && *e == '0');
  }();
  return on;
}

int small_class(size_t nbytes) {
  int c = kSmallMinLog2;
  while ((size_t(1) << c) < nbytes) ++c;
  return c;
}

struct DeviceMemory {
  std::once_flag pool_once;
  CUmemoryPool pool = nullptr;
  std::atomic<size_t> used{0};
  std::atomic<size_t> high{0};
  std::mutex small_mutex;
  std::vector<CUdeviceptr> small[kSmallMaxLog2 + 1];
  size_t small_bytes = 0;
  std::vector<std::pair<size_t, CUdeviceptr>> large;  // (bytes, block), under small_mutex
  size_t large_bytes = 0;
};
std::array<DeviceMemory, kMaxDevices>& devices() {
  static auto* d = new std::array<DeviceMemory, kMaxDevices>();  // lives until exit
  return *d;
}

DeviceMemory& device_memory(int device) {
  check_device(device);
  if (device >= kMaxDevices) throw CUDAError("numfuse supports at most 64 CUDA devices");
  DeviceMemory& m = devices()[device];
  std::call_once(m.pool_once, [&] {
    activate(device);
    check(driver().DeviceGetDefaultMemPool(&m.pool, device), "cuDeviceGetDefaultMemPool");
    // Keep freed blocks in the pool instead of returning them at every synchronisation.
    unsigned long long threshold = ~0ull;
    check(driver().MemPoolSetAttribute(m.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
          "cuMemPoolSetAttribute");
  });
  return m;
}

std::atomic<size_t> g_limit{0};
std::once_flag g_limit_once;
void init_limit() {
  std::call_once(g_limit_once, [] {
    const char* v = std::getenv("NUMFUSE_GPU_MEMORY_LIMIT");
    if (v && *v) g_limit = parse_memory_size(v, "NUMFUSE_GPU_MEMORY_LIMIT");
  });
}

// Gives the cached small blocks back to the driver's pool (stream-ordered on the null stream).
void release_small_blocks(DeviceMemory& m) {
  std::lock_guard<std::mutex> lock(m.small_mutex);
  for (auto& blocks : m.small) {
    for (CUdeviceptr p : blocks) driver().MemFreeAsync(p, nullptr);
    blocks.clear();
  }
  m.small_bytes = 0;
  for (const auto& [bytes, p] : m.large) driver().MemFreeAsync(p, nullptr);
  m.large.clear();
  m.large_bytes = 0;
}

size_t pool_attr(CUmemoryPool pool, CUmemPool_attribute a) {
  unsigned long long v = 0;
  check(driver().MemPoolGetAttribute(pool, a, &v), "cuMemPoolGetAttribute");
  return static_cast<size_t>(v);
}

[[noreturn]] void throw_oom(size_t nbytes, int device, const char* why) {
  size_t free_b = 0, total_b = 0;
  try {
    device_mem_info(device, &free_b, &total_b);
  } catch (...) {
  }
  const DeviceMemory& m = devices()[device];
  std::string msg = "out of memory allocating " + std::to_string(nbytes) + " bytes (" +
                    format_bytes(nbytes) + ") on cuda:" + std::to_string(device) + ": " + why +
                    "; " + std::to_string(free_b) + " bytes (" + format_bytes(free_b) +
                    ") free on the device, " + format_bytes(m.used.load()) + " held by numfuse";
  size_t limit = g_limit.load();
  if (limit) msg += ", limit " + format_bytes(limit);
  throw CUDAOutOfMemoryError(msg);
}

}  // namespace

std::string format_bytes(size_t n) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof(buf), "%zu bytes", n);
  else std::snprintf(buf, sizeof(buf), "%.2f %s", v, units[u]);
  return buf;
}

size_t parse_memory_size(const std::string& text, const char* what) {
  auto fail = [&]() -> size_t {
    throw ValueError(std::string(what) + "='" + text +
                     "': expected a number of bytes, optionally with a K, M, G or T suffix");
  };
  const char* s = text.c_str();
  while (*s == ' ') ++s;
  if (!*s || *s == '-' || *s == '+') return fail();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (end == s || errno == ERANGE || !std::isfinite(v) || v < 0) return fail();
  std::string suffix(end);
  while (!suffix.empty() && suffix.back() == ' ') suffix.pop_back();
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") mult = 1024.0;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") mult = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB") mult = 1024.0 * 1024 * 1024 * 1024;
  else return fail();
  double bytes = v * mult;
  if (bytes >= 18446744073709551615.0) return fail();
  return static_cast<size_t>(bytes);
}

CUdeviceptr device_malloc(size_t nbytes, const Stream& s) {
  const int device = s.device();
  DeviceMemory& m = device_memory(device);
  init_limit();
  const size_t limit = g_limit.load();
  if (limit && m.used.load() + nbytes > limit) {
    throw_oom(nbytes, device, "the numfuse memory limit would be passed");
  }
  const bool small = s.is_null() && nbytes <= (size_t(1) << kSmallMaxLog2);
  const size_t ask = small ? size_t(1) << small_class(nbytes) : (nbytes ? nbytes : 1);
  CUdeviceptr p = 0;
  if (small) {
    std::lock_guard<std::mutex> lock(m.small_mutex);
    auto& blocks = m.small[small_class(nbytes)];
    if (!blocks.empty()) {
      p = blocks.back();
      blocks.pop_back();
      m.small_bytes -= ask;
    }
  } else if (s.is_null() && large_block_cache()) {
    std::lock_guard<std::mutex> lock(m.small_mutex);
    for (auto it = m.large.begin(); it != m.large.end(); ++it) {
      if (it->first == ask) {
        p = it->second;
        m.large_bytes -= ask;
        m.large.erase(it);
        break;
      }
    }
  }
  if (p) {
    size_t now = m.used.fetch_add(nbytes) + nbytes;
    size_t prev = m.high.load();
    while (now > prev && !m.high.compare_exchange_weak(prev, now)) {
    }
    return p;
  }
  activate(device);
  const DriverApi& d = driver();
  // Zero bytes still gives a distinct, valid pointer (as Buffer::allocate on the CPU).
  CUresult r = d.MemAllocAsync(&p, ask, s.handle());
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Frees may still be pending on some stream, and the pool may hold unused blocks.
    release_small_blocks(m);
    check(d.CtxSynchronize(), "cuCtxSynchronize");
    check(d.MemPoolTrimTo(m.pool, 0), "cuMemPoolTrimTo");
    r = d.MemAllocAsync(&p, ask, s.handle());
    if (r == CUDA_ERROR_OUT_OF_MEMORY) throw_oom(nbytes, device, "cuMemAllocAsync failed");
  }
  check(r, "cuMemAllocAsync");
  size_t now = m.used.fetch_add(nbytes) + nbytes;
  size_t prev = m.high.load();
  while (now > prev && !m.high.compare_exchange_weak(prev, now)) {
  }
  return p;
}

void device_free(CUdeviceptr p, size_t nbytes, const Stream& s) {
  if (!p || !cuda_available()) return;
  const int device = s.device();
  DeviceMemory& m = devices()[device];
  m.used.fetch_sub(nbytes);
  if (s.is_null() && nbytes <= (size_t(1) << kSmallMaxLog2)) {
    const int c = small_class(nbytes);
    std::lock_guard<std::mutex> lock(m.small_mutex);
    if (m.small_bytes + (size_t(1) << c) <= kSmallCacheMax) {
      m.small[c].push_back(p);
      m.small_bytes += size_t(1) << c;
      return;
    }
  } else if (s.is_null() && large_block_cache()) {
    const size_t bytes = nbytes ? nbytes : 1;  // device_malloc's ask
    std::lock_guard<std::mutex> lock(m.small_mutex);
    if (m.large_bytes + bytes <= kLargeCacheMax) {
      m.large.emplace_back(bytes, p);
      m.large_bytes += bytes;
      return;
    }
  }
  try {
    activate(device);
  } catch (...) {
    return;  // driver shutting down
  }
  driver().MemFreeAsync(p, s.handle());  // fails only after driver shutdown
}

std::shared_ptr<Buffer> allocate_device_buffer(size_t nbytes, int device) {
  struct Allocation {
    CUdeviceptr ptr;
    size_t nbytes;
    Stream stream;
  };
  Stream s = current_stream(device);
  if (s.is_null()) s = Stream::null_stream(device);  // pin the device, not "current at free"
  CUdeviceptr p = device_malloc(nbytes, s);
  auto* a = new Allocation{p, nbytes, s};
  return Buffer::wrap(
      reinterpret_cast<void*>(p), nbytes, Device::cuda(device),
      [](void* ctx) {
        auto* a = static_cast<Allocation*>(ctx);
        device_free(a->ptr, a->nbytes, a->stream);
        delete a;
      },
      a);
}

MemoryInfo memory_info(int device) {
  if (device < 0) device = current_device();
  DeviceMemory& m = device_memory(device);
  init_limit();
  MemoryInfo info;
  info.used = m.used.load();
  info.used_high = m.high.load();
  info.reserved = pool_attr(m.pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
  info.limit = g_limit.load();
  device_mem_info(device, &info.device_free, &info.device_total);
  return info;
}

void free_cache(int device) {
  if (device < 0) device = current_device();
  DeviceMemory& m = device_memory(device);
  release_small_blocks(m);
  device_synchronize(device);
  check(driver().MemPoolTrimTo(m.pool, 0), "cuMemPoolTrimTo");
}

void set_memory_limit(size_t bytes) {
  init_limit();
  g_limit = bytes;
}

size_t memory_limit() {
  init_limit();
  return g_limit.load();
}

// ---- pinned host memory --------------------------------------------------------------------------

namespace {

constexpr size_t kPinnedCacheMax = size_t(256) << 20;  // cached, not in use
constexpr size_t kPinnedMin = size_t(64) << 10;

struct PinnedEntry {
  void* ptr;
  size_t size;
  Event ready;
};
std::mutex g_pinned_mutex;
std::vector<PinnedEntry>& pinned_cache() {
  static auto* v = new std::vector<PinnedEntry>();
  return *v;
}
size_t g_pinned_cached = 0;

size_t round_pinned(size_t n) {
  size_t r = kPinnedMin;
  while (r < n) r <<= 1;
  return r;
}

}  // namespace

PinnedBlock::PinnedBlock(size_t nbytes) {
  const size_t want = round_pinned(nbytes);
  {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    auto& cache = pinned_cache();
    for (size_t i = 0; i < cache.size(); ++i) {
      if (cache[i].size == want && cache[i].ready.done()) {
        ptr_ = cache[i].ptr;
        size_ = cache[i].size;
        g_pinned_cached -= size_;
        cache.erase(cache.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    }
  }
  const DriverApi& d = driver();
  activate(current_device());
  CUresult r = d.MemHostAlloc(&ptr_, want, CU_MEMHOSTALLOC_PORTABLE);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Give back cached blocks that are finished, then try once more.
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    auto& cache = pinned_cache();
    for (size_t i = cache.size(); i-- > 0;) {
      if (cache[i].ready.done()) {
        d.MemFreeHost(cache[i].ptr);
        g_pinned_cached -= cache[i].size;
        cache.erase(cache.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    r = d.MemHostAlloc(&ptr_, want, CU_MEMHOSTALLOC_PORTABLE);
  }
  check(r, "cuMemHostAlloc");
  size_ = want;
}

void PinnedBlock::release_after(const Stream& s) {
  if (!ready_.valid()) ready_ = Event::create(s.device(), /*disable_timing=*/true);
  ready_.record(s);
}

PinnedBlock::~PinnedBlock() {
  if (!ptr_ || !cuda_available()) return;
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  auto& cache = pinned_cache();
  if (g_pinned_cached + size_ <= kPinnedCacheMax) {
    cache.push_back({ptr_, size_, ready_});
    g_pinned_cached += size_;
    return;
  }
  // Over the cache's size: wait for its work, then free it (the whole wait: freeing memory a
  // copy still reads must not follow a Ctrl-C).
  try {
    InterruptScope whole_wait(nullptr);
    ready_.synchronize();
  } catch (...) {
  }
  driver().MemFreeHost(ptr_);
}

size_t pinned_cached_bytes() {
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  return g_pinned_cached;
}

void copy_host_to_device(CUdeviceptr dst, const void* src, size_t n, const Stream& s,
                         bool blocking) {
  if (n == 0) return;
  activate(s.device());
  const DriverApi& d = driver();
  if (blocking) {
    // From pageable memory the driver stages through its own pinned buffers.
    check(d.MemcpyHtoDAsync(dst, src, n, s.handle()), "cuMemcpyHtoDAsync");
    check(d.StreamSynchronize(s.handle()), "cuStreamSynchronize");
    return;
  }
  constexpr size_t kChunk = size_t(64) << 20;
  const char* p = static_cast<const char*>(src);
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t len = std::min(kChunk, n - off);
    PinnedBlock block(len);
    std::memcpy(block.data(), p + off, len);
    check(d.MemcpyHtoDAsync(dst + off, block.data(), len, s.handle()), "cuMemcpyHtoDAsync");
    block.release_after(s);
  }
}

void copy_device_to_host(void* dst, CUdeviceptr src, size_t n, const Stream& s) {
  if (n == 0) return;
  activate(s.device());
  const DriverApi& d = driver();
  // Armed for Ctrl-C: the kernels that compute src first, in a wait it may end, the copy into
  // dst (which the caller frees when interrupted) not enqueued yet. The copy is waited for whole.
  if (interrupt_flag()) s.synchronize();
  check(d.MemcpyDtoHAsync(dst, src, n, s.handle()), "cuMemcpyDtoHAsync");
  check(d.StreamSynchronize(s.handle()), "cuStreamSynchronize");
}

}  // namespace nf::cuda
