#include "numfuse/backend/cuda/fused_cuda.h"

#include "numfuse/backend/cuda/launch.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

constexpr int kThreads = 256;
// Blocks per SM before the grid-stride loop takes over: enough resident warps to hide latency
// (8 blocks of 256 = 2048 threads fill an SM), a few waves deep.
constexpr int64_t kBlocksPerSM = 16;

// No FMA contraction: NumPy rounds after every operation, and x*y + z contracted into one fma
// differed from it by an ulp (more after cancellation) on the H100.
const std::vector<std::string>& kernel_options() {
  static const std::vector<std::string> opts = {"-std=c++17", "--fmad=false"};
  return opts;
}

int64_t grid_for(int64_t threads_needed, int device) {
  const int64_t cap = int64_t(std::max(1, device_properties(device).multiprocessor_count)) * kBlocksPerSM;
  return std::clamp<int64_t>((threads_needed + kThreads - 1) / kThreads, 1, cap);
}

void launch(CUfunction f, int64_t threads_needed, void** args, const Stream& s, int device) {
  const unsigned grid = static_cast<unsigned>(grid_for(threads_needed, device));
  check(driver().LaunchKernel(f, grid, 1, 1, kThreads, 1, 1, 0, s.handle(), args, nullptr),
        "cuLaunchKernel");
}

// The last stream numfuse enqueued on, per device.
struct LastStream {
  std::mutex mutex;
  std::array<Stream, 64> stream;
  std::array<bool, 64> used{};
};
LastStream& last_stream() {
  static auto* l = new LastStream();  // lives until exit
  return *l;
}

int device_of(const GroupProgram& p) {
  if (p.device.is_cpu()) throw ValueError("run_program_cuda: the program is on the CPU");
  return p.device.index;
}

// A one-step Copy program: src (broadcast, cast) -> dst.
GroupProgram copy_program(const Array& src, const Array& dst) {
  GroupProgram p;
  p.shape = dst.shape;
  p.device = dst.device();
  p.leaves = {src};
  ElementwiseOp op{ElementwiseOp::Kind::Copy, UFunc::Add, {dst.dtype}, {dst.dtype}};
  p.steps.push_back({nullptr, op, {ProgramValue{0}}});
  p.outputs.push_back({ProgramValue{-1, 0, 0}, dst});
  return p;
}

// Source of a small index kernel over one dtype: `body` computes out[i] for i in [0, n).
std::string index_kernel_source(DType d, const char* name, const char* params, const char* body) {
  std::string s = kKernelPrelude;
  s += "\n// ---- index kernel\ntypedef ";
  s += cuda_storage_type(d);
  s += " nf_T;\nextern \"C\" __global__ void __launch_bounds__(256) ";
  s += name;
  s += "(nf_T* out, long long n";
  s += params;
  s += ") {\n  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;"
       " i += (long long)gridDim.x * blockDim.x) {\n    ";
  s += body;
  s += "\n  }\n}\n";
  return s;
}

}  // namespace

Stream enqueue_stream(int device) {
  activate(device);
  Stream s = current_stream(device);
  LastStream& l = last_stream();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (device < 0 || device >= 64) return s;
  if (l.used[device] && l.stream[device] != s) {
    // Conservative ordering across streams: the new stream waits for everything numfuse put on
    // the previous one, so a value written there is complete before it is read here.
    Event e = Event::create(device, /*disable_timing=*/true);
    e.record(l.stream[device]);
    s.wait(e);
  }
  l.stream[device] = s;
  l.used[device] = true;
  return s;
}

void run_program_cuda(const GroupProgram& program) {
  const int device = device_of(program);
  if (numel(program.shape) == 0) return;
  for (const Array& leaf : program.leaves) {
    if (leaf.device().is_cpu() && leaf.ndim() != 0) {
      throw ValueError("arrays are on different devices: cpu and " + program.device.str());
    }
  }
  ElementwiseKernel k = generate_elementwise(program);
  if (k.n == 0) return;
  Stream s = enqueue_stream(device);
  CUfunction f = generated_kernel(k.body, k.entry, kernel_options(), device);
  void* args[] = {k.params.data()};
  launch(f, (k.n + k.vec - 1) / k.vec, args, s, device);
}

void copy_on_device(const Array& src, const Array& dst) {
  if (dst.size() == 0) return;
  const int device = dst.device().index;
  if (src.device() == dst.device() && src.dtype == dst.dtype && src.shape == dst.shape &&
      src.c_contiguous() && dst.c_contiguous()) {
    Stream s = enqueue_stream(device);
    check(driver().MemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst.data()),
                                   reinterpret_cast<CUdeviceptr>(src.data()), dst.nbytes(), s.handle()),
          "cuMemcpyDtoDAsync");
    return;
  }
  run_program_cuda(copy_program(src, dst));
}

void fill(const Array& out, const void* value) {
  if (out.size() == 0) return;
  const int device = out.device().index;
  const size_t size = out.itemsize();
  bool zero = true;
  for (size_t i = 0; i < size; ++i) zero &= static_cast<const unsigned char*>(value)[i] == 0;
  if (zero && out.c_contiguous()) {
    Stream s = enqueue_stream(device);
    check(driver().MemsetD8Async(reinterpret_cast<CUdeviceptr>(out.data()), 0, out.nbytes(), s.handle()),
          "cuMemsetD8Async");
    return;
  }
  run_program_cuda(copy_program(Array::scalar(value, out.dtype), out));
}

std::string arange_kernel_source(DType d) {
  const bool integer = is_integer(d) || d == DType::Bool;
  return index_kernel_source(d, "nf_arange", ", double start, double step, long long istart, long long istep",
                             integer ? "out[i] = nf::convert<nf_T>(istart + i * istep);"
                                     : "out[i] = nf::convert<nf_T>(start + double(i) * step);");
}

std::string eye_kernel_source(DType d) {
  return index_kernel_source(d, "nf_eye", ", long long cols, long long k",
                             "const long long c = i + k;\n"
                             "    if (c >= 0 && c < cols) out[i * cols + c] = nf::convert<nf_T>(1);");
}

void arange(const Array& out, double start, double step) {
  const int64_t n = out.size();
  if (n == 0) return;
  const int device = out.device().index;
  Stream s = enqueue_stream(device);
  CUfunction f = get_kernel(arange_kernel_source(out.dtype), "nf_arange", kernel_options(), device);
  void* ptr = out.data();
  long long nn = n, is = static_cast<long long>(start), ist = static_cast<long long>(step);
  void* args[] = {&ptr, &nn, &start, &step, &is, &ist};
  launch(f, n, args, s, device);
}

void eye(const Array& out, int64_t k) {
  if (out.size() == 0) return;
  const int device = out.device().index;
  unsigned char zero[16] = {};
  fill(out, zero);
  const int64_t rows = out.shape[0], cols = out.shape[1];
  Stream s = enqueue_stream(device);
  CUfunction f = get_kernel(eye_kernel_source(out.dtype), "nf_eye", kernel_options(), device);
  void* ptr = out.data();
  long long nn = rows, cc = cols, kk = k;
  void* args[] = {&ptr, &nn, &cc, &kk};
  launch(f, rows, args, s, device);
}

}  // namespace nf::cuda
