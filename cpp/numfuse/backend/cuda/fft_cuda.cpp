// The FFT node on a CUDA device: cuFFT, opened through the shared loader, with plans from the
// plan cache (fft_plan_cache.h). A transform over the trailing k <= 3 axes of a C-order array is
// one batched plan of rank k; any other set of axes runs one axis at a time, each pass a batched
// plan of rank 1 over that axis's lines (strided when the axis is not the last). cuFFT's
// complex-to-real transform overwrites its input, so C2R always reads a private copy.
#include "numfuse/backend/cuda/fft_cuda.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "numfuse/backend/cuda/cufft_abi.h"
#include "numfuse/backend/cuda/fft_plan_cache.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

using namespace cufft_abi;

struct CufftApi {
#define NF_CUFFT_MEMBER(member, symbol, type) type member = nullptr;
  NF_CUFFT_CALLS(NF_CUFFT_MEMBER)
#undef NF_CUFFT_MEMBER
  std::string path;
};

struct CufftState {
  bool ok = false;
  std::string reason;
  CufftApi api;
};

// cuFFT's calls into s (false, with s.reason, when one is missing).
bool bind_cufft(const LoadedLibrary& lib, CufftState& s) {
  s.api.path = lib.path();
#define NF_CUFFT_LOAD(member, symbol, type) \
  if (!lib.bind(s.api.member, symbol, &s.reason)) return false;
  NF_CUFFT_CALLS(NF_CUFFT_LOAD)
#undef NF_CUFFT_LOAD
  return true;
}

CufftState& state() {  // lives until exit, as the plans that call it may
  return bound_library<CufftState>(CudaLibrary::Cufft, bind_cufft);
}

const CufftApi& api() {
  CufftState& s = state();
  if (!s.ok) throw CUDAError(s.reason);
  return s.api;
}

void check_status(cufftResult st, const char* call) {
  if (st == CUFFT_SUCCESS) return;
  const std::string msg = std::string(call) + " failed: " + cufft_result_text(st);
  if (st == CUFFT_ALLOC_FAILED) throw CUDAOutOfMemoryError(msg);
  throw CUDAError(msg);
}

// A new plan for `key` on its device (made with the device's context current).
std::shared_ptr<FftPlan> make_plan(const FftPlanKey& key) {
  const CufftApi& f = api();
  enqueue_stream(key.device);  // activates the device's context
  auto plan = std::make_shared<FftPlan>();
  check_status(f.Create(&plan->handle), "cufftCreate");
  plan->destroy = [](int h) { state().api.Destroy(h); };
  long long n[3], inembed[3], onembed[3];
  for (int i = 0; i < 3; ++i) {
    n[i] = key.n[i];
    inembed[i] = key.inembed[i];
    onembed[i] = key.onembed[i];
  }
  const bool basic = key.inembed[0] == 0;  // nullptr embeds: cuFFT's packed layout
  size_t work = 0;
  check_status(f.MakePlanMany64(plan->handle, key.rank, n, basic ? nullptr : inembed, key.istride,
                                key.idist, basic ? nullptr : onembed, key.ostride, key.odist,
                                key.type, key.batch, &work),
               "cufftMakePlanMany64");
  plan->work_bytes = work;
  return plan;
}

int plan_type(FftKind kind, bool dbl) {
  switch (kind) {
    case FftKind::C2C:
      return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::R2C:
      return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case FftKind::C2R:
      return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

// Runs `plan` from `in` to `out` (device addresses) on the device's current stream.
void exec(FftPlan& plan, int type, bool forward, void* in, void* out, int device) {
  const CufftApi& f = api();
  Stream stream = enqueue_stream(device);
  std::lock_guard<std::mutex> lock(plan.exec_mutex);
  check_status(f.SetStream(plan.handle, stream.handle()), "cufftSetStream");
  const int dir = forward ? kCufftForward : kCufftInverse;
  switch (type) {
    case CUFFT_C2C:
      return check_status(f.ExecC2C(plan.handle, in, out, dir), "cufftExecC2C");
    case CUFFT_Z2Z:
      return check_status(f.ExecZ2Z(plan.handle, in, out, dir), "cufftExecZ2Z");
    case CUFFT_R2C:
      return check_status(f.ExecR2C(plan.handle, in, out), "cufftExecR2C");
    case CUFFT_D2Z:
      return check_status(f.ExecD2Z(plan.handle, in, out), "cufftExecD2Z");
    case CUFFT_C2R:
      return check_status(f.ExecC2R(plan.handle, in, out), "cufftExecC2R");
    case CUFFT_Z2D:
      return check_status(f.ExecZ2D(plan.handle, in, out), "cufftExecZ2D");
  }
}

// One transform kind over the trailing `k` axes of C-order `in` and `out`: one batched plan.
void run_trailing(FftKind kind, bool forward, bool dbl, const Array& in, const Array& out, int k,
                  int device) {
  FftPlanKey key;
  key.device = device;
  key.type = plan_type(kind, dbl);
  key.rank = k;
  const Shape& logical = kind == FftKind::R2C ? in.shape : out.shape;
  const int nd = out.ndim();
  for (int i = 0; i < k; ++i) key.n[i] = logical[nd - k + i];
  int64_t batch = 1;
  for (int d = 0; d < nd - k; ++d) batch *= out.shape[d];
  key.batch = batch;
  key.idist = numel(Shape(in.shape.begin() + (nd - k), in.shape.end()));
  key.odist = numel(Shape(out.shape.begin() + (nd - k), out.shape.end()));
  auto plan = fft_plan_cache(device).get(key);
  exec(*plan, key.type, forward, in.data(), out.data(), device);
}

Array c_order_copy(const Array& x) {
  Array c = Array::empty(x.shape, x.dtype, x.device());
  copy_on_device(x, c);
  return c;
}

// `a` with `axis` moved last (a view), and the inverse: a C-order array of that moved shape seen
// with its axes back in a's order.
Array axis_last(const Array& a, int axis) {
  Shape shape;
  Strides strides;
  for (int d = 0; d < a.ndim(); ++d) {
    if (d == axis) continue;
    shape.push_back(a.shape[d]);
    strides.push_back(a.strides[d]);
  }
  shape.push_back(a.shape[axis]);
  strides.push_back(a.strides[axis]);
  return a.view(shape, strides, a.byte_offset);
}

Array axis_back(const Array& moved, int axis) {
  const int nd = moved.ndim();
  Shape shape;
  Strides strides;
  for (int d = 0, src = 0; d < nd; ++d) {
    const int from = d == axis ? nd - 1 : src++;
    shape.push_back(moved.shape[from]);
    strides.push_back(moved.strides[from]);
  }
  return moved.view(shape, strides, moved.byte_offset);
}

void run_axis(FftKind kind, bool forward, bool dbl, const Array& in, const Array& out, int axis,
              int device);

// A real transform over an axis that is not the last: cuFFT wants the real side of R2C/C2R
// aligned to the complex element, and lines `inner` apart start at every element of a row (an
// odd row length misaligns half of them: CUFFT_INVALID_VALUE on the H100). The axis is moved last
// (one copy), transformed as contiguous lines, and the result moved back (one more).
void run_real_axis_moved(FftKind kind, bool forward, bool dbl, const Array& in, const Array& out,
                         int axis, int device) {
  Array in_last = c_order_copy(axis_last(in, axis));
  Shape out_shape = axis_last(out, axis).shape;
  Array out_last = Array::empty(out_shape, out.dtype, out.device());
  run_axis(kind, forward, dbl, in_last, out_last, out.ndim() - 1, device);
  copy_on_device(axis_back(out_last, axis), out);
}

// One kind over one axis of C-order `in` and `out` (equal but for that axis's length).
void run_axis(FftKind kind, bool forward, bool dbl, const Array& in, const Array& out, int axis,
              int device) {
  const int64_t n = kind == FftKind::R2C ? in.shape[axis] : out.shape[axis];
  const int64_t nin = in.shape[axis], nout = out.shape[axis];
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out.shape[d];
  for (int d = axis + 1; d < out.ndim(); ++d) inner *= out.shape[d];
  FftPlanKey key;
  key.device = device;
  key.type = plan_type(kind, dbl);
  key.rank = 1;
  key.n[0] = n;
  key.inembed[0] = nin;
  key.onembed[0] = nout;
  if (kind != FftKind::C2C && inner > 1) {
    run_real_axis_moved(kind, forward, dbl, in, out, axis, device);
    return;
  }
  const size_t isz = in.itemsize(), osz = out.itemsize();
  if (inner == 1) {  // contiguous lines: one launch over all of them
    key.istride = key.ostride = 1;
    key.idist = nin;
    key.odist = nout;
    key.batch = outer;
    auto plan = fft_plan_cache(device).get(key);
    exec(*plan, key.type, forward, in.data(), out.data(), device);
    return;
  }
  // Lines `inner` apart: a batch of `inner` interleaved lines per outer index.
  key.istride = key.ostride = inner;
  key.idist = key.odist = 1;
  key.batch = inner;
  auto plan = fft_plan_cache(device).get(key);
  for (int64_t o = 0; o < outer; ++o) {
    exec(*plan, key.type, forward, in.data() + o * nin * inner * int64_t(isz),
         out.data() + o * nout * inner * int64_t(osz), device);
  }
}

// Whether `axes` are the trailing axes of an ndim array in increasing order, at most 3.
bool trailing(const std::vector<int>& axes, int ndim) {
  const int k = int(axes.size());
  if (k > 3) return false;
  for (int i = 0; i < k; ++i)
    if (axes[i] != ndim - k + i) return false;
  return true;
}


}  // namespace

std::string cufft_result_text(int status) {
  static const char* const names[] = {
      "CUFFT_SUCCESS",       "CUFFT_INVALID_PLAN",   "CUFFT_ALLOC_FAILED", "CUFFT_INVALID_TYPE",
      "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR", "CUFFT_EXEC_FAILED",  "CUFFT_SETUP_FAILED",
      "CUFFT_INVALID_SIZE",  "CUFFT_UNALIGNED_DATA"};
  if (status >= 0 && status < int(sizeof(names) / sizeof(names[0]))) return names[status];
  switch (status) {
    case 0xB:
      return "CUFFT_INVALID_DEVICE";
    case 0xD:
      return "CUFFT_NO_WORKSPACE";
    case 0xE:
      return "CUFFT_NOT_IMPLEMENTED";
    case 0x10:
      return "CUFFT_NOT_SUPPORTED";
    case 0x11:
      return "CUFFT_MISSING_DEPENDENCY";
  }
  return "cufftResult " + std::to_string(status);
}

bool cufft_available() noexcept {
  try {
    return state().ok;
  } catch (...) {
    return false;
  }
}

FftPlanCache& fft_plan_cache(int device) {
  static std::array<std::unique_ptr<FftPlanCache>, 64>* caches =
      new std::array<std::unique_ptr<FftPlanCache>, 64>();  // plans live until exit
  static std::mutex mutex;
  if (device < 0 || device >= 64) {
    throw ValueError("fft plan cache: device " + std::to_string(device) + " is out of range");
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto& c = (*caches)[size_t(device)];
  if (!c) c = std::make_unique<FftPlanCache>(make_plan);
  return *c;
}

void eval_fft(FftNode& node, const std::vector<Array>& outs) {
  const FftSpec& spec = node.spec;
  const Array& out = outs[0];
  if (out.size() == 0) return;
  const int device = out.device().index;
  if ((spec.kind == FftKind::R2C && !spec.forward) || (spec.kind == FftKind::C2R && spec.forward)) {
    throw NotImplementedError(
        "fft on CUDA: cuFFT's real transforms go one way only (R2C forward, C2R backward)");
  }
  const DType cdt = spec.kind == FftKind::C2R ? node.inputs[0].dtype : out.dtype;
  const bool dbl = cdt == DType::Complex128;
  // C2R overwrites its input; the others read any C-order input as it is.
  Array in = node.inputs[0];
  if (spec.kind == FftKind::C2R || !in.c_contiguous()) in = c_order_copy(in);
  const int nd = out.ndim();
  if (trailing(spec.axes, nd)) {
    run_trailing(spec.kind, spec.forward, dbl, in, out, int(spec.axes.size()), device);
    return;
  }
  const size_t nax = spec.axes.size();
  switch (spec.kind) {
    case FftKind::C2C:
      for (size_t i = 0; i < nax; ++i)
        run_axis(FftKind::C2C, spec.forward, dbl, i == 0 ? in : out, out, spec.axes[i], device);
      break;
    case FftKind::R2C:
      run_axis(FftKind::R2C, true, dbl, in, out, spec.axes.back(), device);
      for (size_t i = 0; i + 1 < nax; ++i)
        run_axis(FftKind::C2C, true, dbl, out, out, spec.axes[i], device);
      break;
    case FftKind::C2R:
      for (size_t i = 0; i + 1 < nax; ++i)  // in place in the private copy
        run_axis(FftKind::C2C, false, dbl, in, in, spec.axes[i], device);
      run_axis(FftKind::C2R, false, dbl, in, out, spec.axes.back(), device);
      break;
  }
}

}  // namespace nf::cuda
