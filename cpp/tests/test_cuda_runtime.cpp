// The CUDA runtime layer: hashing, the kernel cache's disk handling (with a fake compiler),
// library discovery and NVRTC (no GPU needed), then devices, memory, streams, events and a
// compiled kernel, which skip when no GPU is present.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nvrtc.h"
#include "numfuse/backend/cuda/sha256.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/core/error.h"

namespace {

using namespace nf::cuda;

// ---- SHA-256 ----------------------------------------------------------------------------------

TEST(CudaSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CudaSha256, IncrementalEqualsOneShot) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += static_cast<char>(i * 7);
  for (size_t split : {0, 1, 55, 56, 63, 64, 65, 127, 999}) {
    Sha256 h;
    h.update(s.data(), split);
    h.update(s.data() + split, s.size() - split);
    auto d = h.digest();
    EXPECT_EQ(to_hex(d.data(), 32), sha256_hex(s)) << "split at " << split;
  }
}

// ---- kernel cache with a fake compiler --------------------------------------------------------

std::string make_temp_dir() {
  char tmpl[] = "/tmp/numfuse-cache-test-XXXXXX";
  char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d;
}

void remove_tree(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  return out;
}

struct FakeCompiler {
  int calls = 0;
  CompileFn fn() {
    return [this](const std::string& source, const std::string& name, const std::string& arch,
                  const std::vector<std::string>&) {
      ++calls;
      CompiledKernel k;
      k.binary = "BIN[" + arch + "]" + source;
      k.lowered_name = "_Z" + name;
      return k;
    };
  }
};

class KernelCacheDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = make_temp_dir();
    dir_ = root_ + "/a/kernels";  // created by the cache
  }
  void TearDown() override { remove_tree(root_); }
  std::string root_, dir_;
};

TEST_F(KernelCacheDisk, KeyCoversEveryInput) {
  FakeCompiler fc;
  KernelCache c("", fc.fn(), "v1");
  const std::string k = c.key("src", "k", "sm_90", {"-a"});
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, c.key("src", "k", "sm_90", {"-a"}));
  EXPECT_NE(k, c.key("src ", "k", "sm_90", {"-a"}));
  EXPECT_NE(k, c.key("src", "k2", "sm_90", {"-a"}));
  EXPECT_NE(k, c.key("src", "k", "sm_80", {"-a"}));
  EXPECT_NE(k, c.key("src", "k", "sm_90", {"-b"}));
  EXPECT_NE(k, c.key("src", "k", "sm_90", {}));
  EXPECT_NE(c.key("s", "k", "sm_90", {"-a", "-b"}), c.key("s", "k", "sm_90", {"-b", "-a"}));
  // Field boundaries are part of the key.
  EXPECT_NE(c.key("s", "k", "sm_90", {"-a-b"}), c.key("s", "k", "sm_90", {"-a", "-b"}));
  KernelCache other("", fc.fn(), "v2");
  EXPECT_NE(k, other.key("src", "k", "sm_90", {"-a"}));
}

TEST_F(KernelCacheDisk, MemoryThenDiskHits) {
  FakeCompiler fc;
  {
    KernelCache c(dir_, fc.fn(), "v1");
    ASSERT_EQ(c.dir(), dir_);
    auto a = c.get("source one", "k", "sm_90", {});
    auto b = c.get("source one", "k", "sm_90", {});
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a->binary, "BIN[sm_90]source one");
    EXPECT_EQ(c.stats().compilations, 1u);
    EXPECT_EQ(c.stats().memory_hits, 1u);
    EXPECT_EQ(c.stats().disk_hits, 0u);
    c.get("source two", "k", "sm_90", {});
    EXPECT_EQ(c.stats().compilations, 2u);
  }
  // The directory and files are private, and no temporary file is left behind.
  struct stat st;
  ASSERT_EQ(stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto files = list_dir(dir_);
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_EQ(f.substr(f.size() - 4), ".nfk") << f;
    ASSERT_EQ(stat((dir_ + "/" + f).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  // A second cache on the same directory (a new process) reads instead of compiling.
  KernelCache c2(dir_, fc.fn(), "v1");
  auto a = c2.get("source one", "k", "sm_90", {});
  EXPECT_EQ(a->binary, "BIN[sm_90]source one");
  EXPECT_EQ(a->lowered_name, "_Zk");
  EXPECT_EQ(c2.stats().disk_hits, 1u);
  EXPECT_EQ(c2.stats().compilations, 0u);
  EXPECT_EQ(fc.calls, 2);
  // Another compiler version is another key.
  KernelCache c3(dir_, fc.fn(), "v2");
  c3.get("source one", "k", "sm_90", {});
  EXPECT_EQ(c3.stats().compilations, 1u);
}

void corrupt_file(const std::string& path, const std::string& how) {
  if (how == "flip") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-3, std::ios::end);
    char c;
    f.get(c);
    f.seekp(-3, std::ios::end);
    f.put(static_cast<char>(c ^ 0x5a));
  } else if (how == "truncate") {
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    ASSERT_EQ(truncate(path.c_str(), st.st_size - 5), 0);
  } else if (how == "header") {
    ASSERT_EQ(truncate(path.c_str(), 40), 0);
  } else if (how == "empty") {
    ASSERT_EQ(truncate(path.c_str(), 0), 0);
  } else if (how == "magic") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.put('X');
  }
}

TEST_F(KernelCacheDisk, CorruptEntriesAreRebuilt) {
  for (const char* how : {"flip", "truncate", "header", "empty", "magic"}) {
    SCOPED_TRACE(how);
    FakeCompiler fc;
    KernelCache c(dir_, fc.fn(), "v1");
    const std::string src = std::string("corrupt me ") + how;
    c.get(src, "k", "sm_90", {});
    const std::string path = c.path_for(c.key(src, "k", "sm_90", {}));
    corrupt_file(path, how);
    KernelCache c2(dir_, fc.fn(), "v1");
    auto k = c2.get(src, "k", "sm_90", {});
    EXPECT_EQ(k->binary, "BIN[sm_90]" + src);
    EXPECT_EQ(c2.stats().corrupt, 1u);
    EXPECT_EQ(c2.stats().compilations, 1u);
    // Rewritten whole: the next process reads it.
    KernelCache c3(dir_, fc.fn(), "v1");
    c3.get(src, "k", "sm_90", {});
    EXPECT_EQ(c3.stats().disk_hits, 1u);
    EXPECT_EQ(c3.stats().corrupt, 0u);
  }
}

TEST_F(KernelCacheDisk, EntryUnderAnotherKeyIsNotTrusted) {
  FakeCompiler fc;
  KernelCache c(dir_, fc.fn(), "v1");
  c.get("aaa", "k", "sm_90", {});
  const std::string from = c.path_for(c.key("aaa", "k", "sm_90", {}));
  const std::string to = c.path_for(c.key("bbb", "k", "sm_90", {}));
  ASSERT_EQ(std::system(("cp '" + from + "' '" + to + "'").c_str()), 0);
  KernelCache c2(dir_, fc.fn(), "v1");
  EXPECT_EQ(c2.get("bbb", "k", "sm_90", {})->binary, "BIN[sm_90]bbb");
  EXPECT_EQ(c2.stats().corrupt, 1u);
}

TEST_F(KernelCacheDisk, UnsafeDirectoryFallsBackToMemory) {
  ASSERT_EQ(mkdir(dir_.substr(0, dir_.rfind('/')).c_str(), 0700), 0);
  ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  std::string why;
  EXPECT_FALSE(prepare_cache_dir(dir_, &why));
  EXPECT_NE(why.find("writable by group or others"), std::string::npos) << why;
  FakeCompiler fc;
  KernelCache c(dir_, fc.fn(), "v1");
  EXPECT_EQ(c.dir(), "");
  c.get("x", "k", "sm_90", {});
  c.get("x", "k", "sm_90", {});
  EXPECT_EQ(c.stats().compilations, 1u);
  EXPECT_EQ(c.stats().memory_hits, 1u);
  EXPECT_TRUE(list_dir(dir_).empty());
  // A file where the directory should be is refused too.
  const std::string file = root_ + "/file";
  std::ofstream(file) << "x";
  EXPECT_FALSE(prepare_cache_dir(file, &why));
  // Group-readable (not writable) is accepted.
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  EXPECT_TRUE(prepare_cache_dir(dir_, &why)) << why;
}

TEST_F(KernelCacheDisk, CompileErrorsAreNotCached) {
  int calls = 0;
  KernelCache c(dir_, [&](const std::string&, const std::string&, const std::string&,
                          const std::vector<std::string>&) -> CompiledKernel {
    ++calls;
    throw nf::CompileError("bad kernel");
  }, "v1");
  EXPECT_THROW(c.get("x", "k", "sm_90", {}), nf::CompileError);
  EXPECT_THROW(c.get("x", "k", "sm_90", {}), nf::CompileError);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(list_dir(dir_).empty());
}

// Threads building kernels: one key is compiled once however many ask for it at once; different
// keys compile at the same time (a background compile holds up no other thread), and a failed
// compile wakes the threads waiting for that key.
TEST(CudaKernelCache, ConcurrentGetsCompileOnceAKeyAndInParallelAcrossKeys) {
  std::mutex m;
  std::condition_variable cv;
  int inside = 0, most_inside = 0;
  std::atomic<int> calls{0};
  KernelCache c("", [&](const std::string& source, const std::string&, const std::string&,
                        const std::vector<std::string>&) -> CompiledKernel {
    ++calls;
    std::unique_lock<std::mutex> lock(m);
    most_inside = std::max(most_inside, ++inside);
    cv.notify_all();
    // Waits (up to 5 s, never forever) for a second compile to be inside at the same time.
    cv.wait_for(lock, std::chrono::seconds(5), [&] { return most_inside >= 2; });
    --inside;
    if (source == "bad") throw nf::CompileError("bad kernel");
    CompiledKernel k;
    k.binary = "bin:" + source;
    return k;
  }, "v1");
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { got[i] = c.get(i < 3 ? "a" : "b", "k", "sm_90", {})->binary; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(got[0], "bin:a");
  EXPECT_EQ(got[1], "bin:a");
  EXPECT_EQ(got[2], "bin:a");
  EXPECT_EQ(got[3], "bin:b");
  EXPECT_EQ(calls.load(), 2);    // "a" once for three threads, "b" once
  EXPECT_EQ(most_inside, 2);     // "a" and "b" were compiled at the same time
  EXPECT_EQ(c.stats().compilations, 2u);
  EXPECT_EQ(c.stats().memory_hits, 2u);

  std::atomic<int> errors{0};
  most_inside = 2;  // no more waiting inside the compile
  std::thread t1([&] { try { c.get("bad", "k", "sm_90", {}); } catch (const nf::CompileError&) { ++errors; } });
  std::thread t2([&] { try { c.get("bad", "k", "sm_90", {}); } catch (const nf::CompileError&) { ++errors; } });
  t1.join();
  t2.join();
  EXPECT_EQ(errors.load(), 2);  // neither waits forever; both see the error
}

TEST(CudaKernelCache, DefaultDirHonoursEnvironment) {
  const char* old = std::getenv("NUMFUSE_CACHE_DIR");
  std::string saved = old ? old : "";
  setenv("NUMFUSE_CACHE_DIR", "/tmp/somewhere-else", 1);
  EXPECT_EQ(default_cache_dir(), "/tmp/somewhere-else");
  unsetenv("NUMFUSE_CACHE_DIR");
  const char* home = std::getenv("HOME");
  if (home) EXPECT_EQ(default_cache_dir(), std::string(home) + "/.cache/numfuse/kernels");
  if (old) setenv("NUMFUSE_CACHE_DIR", saved.c_str(), 1);
}

// ---- memory sizes -----------------------------------------------------------------------------

TEST(CudaMemory, ParseMemorySize) {
  EXPECT_EQ(parse_memory_size("1024"), 1024u);
  EXPECT_EQ(parse_memory_size("512M"), size_t(512) << 20);
  EXPECT_EQ(parse_memory_size("2G"), size_t(2) << 30);
  EXPECT_EQ(parse_memory_size("1.5g"), size_t(3) << 29);
  EXPECT_EQ(parse_memory_size("64KiB"), size_t(64) << 10);
  EXPECT_EQ(parse_memory_size("1T"), size_t(1) << 40);
  EXPECT_EQ(parse_memory_size("0"), 0u);
  for (const char* bad : {"", "abc", "-1", "12Q", "1e400", "G"}) {
    EXPECT_THROW(parse_memory_size(bad, "NUMFUSE_GPU_MEMORY_LIMIT"), nf::ValueError) << bad;
  }
  try {
    parse_memory_size("12Q", "NUMFUSE_GPU_MEMORY_LIMIT");
  } catch (const nf::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("NUMFUSE_GPU_MEMORY_LIMIT='12Q'"), std::string::npos);
  }
  EXPECT_EQ(format_bytes(512), "512 bytes");
  EXPECT_EQ(format_bytes(size_t(3) << 29), "1.50 GiB");
}

// ---- loading ----------------------------------------------------------------------------------

TEST(CudaDriver, AvailabilityNeverThrows) {
  bool avail = false;
  EXPECT_NO_THROW(avail = cuda_available());
  if (!avail) {
    EXPECT_FALSE(cuda_unavailable_reason().empty());
    EXPECT_EQ(device_count(), 0);
    try {
      driver();
      FAIL() << "driver() should throw without CUDA";
    } catch (const nf::CUDAError& e) {
      EXPECT_NE(std::string(e.what()).find(cuda_unavailable_reason()), std::string::npos);
    }
    EXPECT_THROW(Stream::create(), nf::CUDAError);
    EXPECT_THROW(memory_info(), nf::CUDAError);
  } else {
    EXPECT_EQ(cuda_unavailable_reason(), "");
    EXPECT_GT(device_count(), 0);
  }
}

TEST(CudaDriver, CheckNamesTheCall) {
  EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuFoo"));
  try {
    check(CUDA_ERROR_NO_DEVICE, "cuFoo");
    FAIL();
  } catch (const nf::CUDAError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cuFoo failed"), std::string::npos) << m;
    if (cuda_available()) EXPECT_NE(m.find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << m;
  }
  EXPECT_THROW(check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"), nf::CUDAOutOfMemoryError);
}

TEST(CudaLibrarySearch, FindsHeadersAndHonoursExtraDirs) {
  struct stat st;
  if (stat("/usr/local/cuda/include/cuda_fp16.h", &st) == 0) {
    auto dirs = cuda_include_dirs();
    ASSERT_FALSE(dirs.empty());
  }
  const std::string d = make_temp_dir();
  add_search_dirs({d, "/nonexistent/dir"}, {});
  auto libs = library_dirs();
  EXPECT_NE(std::find(libs.begin(), libs.end(), d), libs.end());
  EXPECT_EQ(std::find(libs.begin(), libs.end(), "/nonexistent/dir"), libs.end());
  std::string path, err;
  EXPECT_EQ(open_library({"libnumfuse-does-not-exist.so"}, {d}, false, &path, &err), nullptr);
  EXPECT_FALSE(err.empty());
  remove_tree(d);
}

// ---- NVRTC (needs the library, not a GPU) ------------------------------------------------------

const char* kTiny = R"(
extern "C" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
template <class T, int N> __global__ void fill(T* x) { x[threadIdx.x] = T(N); }
template __global__ void fill<float, 3>(float*);
)";

TEST(CudaNvrtc, CompilesToCubin) {
  if (!nvrtc_available()) GTEST_SKIP() << nvrtc_unavailable_reason();
  EXPECT_FALSE(nvrtc_version_string().empty());
  std::string cubin = compile_to_cubin(kTiny, "scale", "sm_90", {});
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");
  CompiledKernel k = compile_kernel(kTiny, "fill<float, 3>", "sm_80", {"-std=c++17"});
  EXPECT_FALSE(k.is_ptx);
  EXPECT_NE(k.lowered_name.find("fill"), std::string::npos);
  EXPECT_NE(k.lowered_name, "fill<float, 3>");  // mangled
  EXPECT_EQ(compile_kernel(kTiny, "scale", "sm_90", {}).lowered_name, "scale");
}

TEST(CudaNvrtc, FindsCudaHeaders) {
  if (!nvrtc_available()) GTEST_SKIP() << nvrtc_unavailable_reason();
  if (cuda_include_dirs().empty()) GTEST_SKIP() << "no CUDA include directory here";
  const char* src = R"(
#include <cuda_fp16.h>
extern "C" __global__ void h(__half* x) { x[0] = __hadd(x[0], x[0]); }
)";
  EXPECT_NO_THROW(compile_to_cubin(src, "h", "sm_90", {}));
}

TEST(CudaNvrtc, CompileErrorCarriesLogAndSource) {
  if (!nvrtc_available()) GTEST_SKIP() << nvrtc_unavailable_reason();
  const char* bad = "extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n";
  try {
    compile_to_cubin(bad, "k", "sm_90", {});
    FAIL() << "expected CompileError";
  } catch (const nf::CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("undefined_name"), std::string::npos) << m;
    EXPECT_NE(m.find("   2 |   x[0] = undefined_name;"), std::string::npos) << m;
    EXPECT_NE(m.find("sm_90"), std::string::npos) << m;
  }
}

TEST(CudaNvrtc, NumberedSource) {
  EXPECT_EQ(numbered_source("a\nb"), "   1 | a\n   2 | b\n");
}

// ---- on a GPU ---------------------------------------------------------------------------------

#define NEED_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason()

TEST(CudaGpu, DeviceProperties) {
  NEED_GPU();
  const DeviceProperties& p = device_properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.major, 5);
  EXPECT_GT(p.total_memory, size_t(1) << 30);
  EXPECT_GT(p.multiprocessor_count, 0);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(device_arch(0), "sm_" + std::to_string(p.major) + std::to_string(p.minor));
  size_t free_b = 0, total_b = 0;
  device_mem_info(0, &free_b, &total_b);
  EXPECT_GT(free_b, 0u);
  EXPECT_EQ(total_b, p.total_memory);
  EXPECT_THROW(device_properties(device_count()), nf::CUDAError);
  EXPECT_GE(driver_version(), 11020);
}

TEST(CudaGpu, MemoryInfoAndOutOfMemory) {
  NEED_GPU();
  Stream s = current_stream(0);
  MemoryInfo before = memory_info(0);
  CUdeviceptr p = device_malloc(size_t(8) << 20, s);
  EXPECT_EQ(memory_info(0).used, before.used + (size_t(8) << 20));
  EXPECT_GE(memory_info(0).reserved, size_t(8) << 20);
  device_free(p, size_t(8) << 20, s);
  EXPECT_EQ(memory_info(0).used, before.used);
  free_cache(0);
  try {
    device_malloc(size_t(10) << 40, s);
    FAIL() << "10 TiB should not fit";
  } catch (const nf::CUDAOutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(std::to_string(size_t(10) << 40) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("free on the device"), std::string::npos) << m;
  }
  // Still usable afterwards.
  p = device_malloc(1024, s);
  device_free(p, 1024, s);
  s.synchronize();
  // The limit.
  set_memory_limit(size_t(1) << 20);
  EXPECT_THROW(device_malloc(size_t(2) << 20, s), nf::CUDAOutOfMemoryError);
  set_memory_limit(0);
  p = device_malloc(size_t(2) << 20, s);
  device_free(p, size_t(2) << 20, s);
}

TEST(CudaGpu, StreamsEventsAndTransfers) {
  NEED_GPU();
  Stream s = Stream::create(0, /*non_blocking=*/true);
  EXPECT_FALSE(s.is_null());
  push_stream(s);
  EXPECT_EQ(current_stream(0), s);
  const size_t n = size_t(64) << 20;
  CUdeviceptr p = device_malloc(n, s);
  Event start = Event::create(0), end = Event::create(0);
  start.record(s);
  check(driver().MemsetD8Async(p, 0x2a, n, s.handle()), "cuMemsetD8Async");
  end.record(s);
  end.synchronize();
  EXPECT_TRUE(end.done());
  EXPECT_TRUE(s.done());
  EXPECT_GT(Event::elapsed_ms(start, end), 0.0f);
  std::vector<unsigned char> host(n);
  copy_device_to_host(host.data(), p, n, s);
  EXPECT_EQ(host[0], 0x2a);
  EXPECT_EQ(host[n - 1], 0x2a);
  // Staged (non-blocking) upload: the source may change right after the call.
  std::vector<unsigned char> src(n, 7);
  copy_host_to_device(p, src.data(), n, s, /*blocking=*/false);
  std::fill(src.begin(), src.end(), 9);
  copy_device_to_host(host.data(), p, n, s);
  EXPECT_EQ(host[12345], 7);
  EXPECT_GT(pinned_cached_bytes(), 0u);
  device_free(p, n, s);
  pop_stream();
  EXPECT_TRUE(current_stream(0).is_null());
  synchronize(0);
}

TEST(CudaGpu, KernelCompiledCachedAndLaunched) {
  NEED_GPU();
  Stream s = current_stream(0);
  CUfunction f = get_kernel(kTiny, "scale", {}, 0);
  KernelCacheStats st = kernel_cache_stats();
  EXPECT_EQ(get_kernel(kTiny, "scale", {}, 0), f);
  EXPECT_EQ(kernel_cache_stats().memory_hits, st.memory_hits + 1);
  CUdeviceptr p = device_malloc(sizeof(float), s);
  float v = 1.5f;
  copy_host_to_device(p, &v, sizeof(v), s);
  float a = 4.0f;
  void* args[] = {&p, &a};
  check(driver().LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s.handle(), args, nullptr),
        "cuLaunchKernel");
  copy_device_to_host(&v, p, sizeof(v), s);
  EXPECT_EQ(v, 6.0f);
  device_free(p, sizeof(float), s);
}

}  // namespace
