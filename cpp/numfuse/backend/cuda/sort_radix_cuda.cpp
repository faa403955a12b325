// The CUDA sorts' radix paths: CUB's device radix sort (segmented for several lines) and select
// from libnumfuse_cub.so, on keys in NumPy's order. What each path spends, and why, is in
// docs/decisions.md, "Sorting on CUDA" (issue 12's profile on the H100).
#include "numfuse/backend/cuda/sort_radix_cuda.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

constexpr int kThreads = 256;  // NF_SORT_THREADS
// Kernels that most often find nothing to do (the NaN fix-up, unique's store of a count known
// only on the device) run on a grid of at most this many blocks, looping over the rest.
constexpr unsigned kIdleGrid = 1024;
const std::vector<std::string> kOptions = {"-std=c++17", "--fmad=false"};

unsigned blocks_for(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + kThreads - 1) / kThreads, 1, 1 << 20));
}

void run(DType d, const char* name, int dev, unsigned grid, const SortParams& p) {
  launch(sort_kernel(d, name, dev), dev, grid, kThreads, &p);
}

void check_cub(int err, const char* what) {
  if (err != 0) {
    throw CUDAError(std::string("CUB ") + what + " failed: " + cub_library().error_string(err));
  }
}

bool is_float_dtype(DType d) { return d == DType::Float16 || d == DType::Float32 || d == DType::Float64; }

// A sort of the values of one float32/float64 line by CUB's own float order, from the input
// straight into the output (CuPy copies, then sorts in place: a pass more). CUB puts NaNs with
// the sign bit first; a one-thread kernel counts them and two kernels that return at once when
// there are none rotate them to the end, through CUB's temporary storage (it holds a line).
void float_line_sort(const CubLibrary& cub, const Array& in, const Array& out, int dev) {
  const size_t bytes = static_cast<size_t>(in.size()) * in.itemsize();
  void* stream = enqueue_stream(dev).handle();
  const int kb = static_cast<int>(in.itemsize());
  size_t temp_bytes = 0;
  check_cub(cub.float_sort(kb, nullptr, &temp_bytes, in.data(), out.data(), in.size(), stream),
            "float sort (temporary storage size)");
  auto temp = allocate_device_buffer(std::max(temp_bytes, bytes), dev);
  auto count = allocate_device_buffer(sizeof(long long), dev);
  check_cub(cub.float_sort(kb, temp->data(), &temp_bytes, in.data(), out.data(), in.size(), stream), "float sort");
  SortParams p{};
  p.n = in.size(), p.lines = 1, p.inner = 1;
  p.out_values = out.data();
  p.vals_dst = temp->data();
  p.count = static_cast<long long*>(count->data());
  run(in.dtype, "nf_sort_nan_front", dev, 1, p);
  const unsigned grid = std::min(blocks_for(in.size()), kIdleGrid);
  run(in.dtype, "nf_sort_rotate_out", dev, grid, p);
  run(in.dtype, "nf_sort_rotate_back", dev, grid, p);
}

// A sort of integer (or bool) values whose lines are rows of `in` (inner == 1): CUB's own
// integer order is NumPy's, so CUB sorts from the input straight into the output (segmented for
// several lines), with no pass to keys and back.
void int_sort(const CubLibrary& cub, const Array& in, void* out, int64_t n, int64_t lines, int dev) {
  std::shared_ptr<Buffer> offsets;
  if (lines > 1) {
    offsets = allocate_device_buffer(static_cast<size_t>(lines + 1) * sizeof(long long), dev);
    SortParams o{};
    o.n = n, o.lines = lines, o.inner = 1;
    o.idx_dst = static_cast<long long*>(offsets->data());
    run(in.dtype, "nf_sort_offsets", dev, blocks_for(lines + 1), o);
  }
  const long long* seg = offsets ? static_cast<const long long*>(offsets->data()) : nullptr;
  void* stream = enqueue_stream(dev).handle();
  const int kb = static_cast<int>(in.itemsize());
  const int is_signed = is_integer(in.dtype) && !is_unsigned(in.dtype) ? 1 : 0;
  const int segments = static_cast<int>(lines);
  size_t temp_bytes = 0;
  check_cub(cub.int_sort(kb, is_signed, nullptr, &temp_bytes, in.data(), out, in.size(), segments, seg, stream),
            "integer sort (temporary storage size)");
  auto temp = allocate_device_buffer(std::max<size_t>(temp_bytes, 1), dev);
  check_cub(cub.int_sort(kb, is_signed, temp->data(), &temp_bytes, in.data(), out, in.size(), segments, seg,
                         stream),
            "integer sort");
}

}  // namespace

const CubLibrary& cub_library() {
  static const CubLibrary lib = [] {
    CubLibrary l;
    std::string path;
    if (const char* e = std::getenv("NUMFUSE_CUB_LIBRARY")) {
      if (std::string(e) == "0") return l;
      path = e;
    } else {
      Dl_info info;
      if (!dladdr(reinterpret_cast<void*>(&cub_library), &info) || !info.dli_fname) return l;
      path = info.dli_fname;
      path = path.substr(0, path.find_last_of('/') + 1) + "libnumfuse_cub.so";
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return l;
    l.error_string = reinterpret_cast<CubLibrary::ErrorString>(dlsym(h, "nf_cub_error_string"));
    if (!l.error_string) return l;
    l.sort = reinterpret_cast<CubLibrary::RadixSort>(dlsym(h, "nf_cub_radix_sort"));
    l.sort_v = reinterpret_cast<CubLibrary::RadixSortV>(dlsym(h, "nf_cub_radix_sort_v"));
    l.float_sort = reinterpret_cast<CubLibrary::FloatSort>(dlsym(h, "nf_cub_float_sort"));
    l.unique = reinterpret_cast<CubLibrary::Unique>(dlsym(h, "nf_cub_unique"));
    l.float_unique = reinterpret_cast<CubLibrary::FloatUnique>(dlsym(h, "nf_cub_float_unique"));
    l.int_sort = reinterpret_cast<CubLibrary::IntSort>(dlsym(h, "nf_cub_int_sort"));
    return l;
  }();
  return lib;
}

std::string sort_body(DType d) {
  std::string defines;
  if (is_complex(d)) defines += "#define NF_SORT_NO_KEYS\n";
  if (d == DType::Complex64) defines += "#define NF_SORT_COMPLEX_KEYS\n";
  return defines + "typedef " + cuda_storage_type(d) + " nf_t;\n" + kernel_templates::sort;
}

CUfunction sort_kernel(DType d, const char* name, int device) {
  return keyed_kernel(std::string("sort.cuh:") + dtype_name(d), name, kOptions, device,
                      [d] { return sort_body(d); });
}

bool radix_sort_handles(const Array& in, int64_t lines) {
  const CubLibrary& cub = cub_library();
  if (!cub.sort || (lines > 1 && in.size() > INT_MAX)) return false;
  if (!is_complex(in.dtype)) return true;
  // complex64: one 64-bit key with 32-bit indices; complex128 would need 128-bit keys.
  const int64_t n = lines ? in.size() / lines : 0;
  return in.dtype == DType::Complex64 && cub.sort_v && n <= int64_t(UINT32_MAX);
}

void radix_sort(SortNode& node, const Array& in, const std::vector<Array>& outs, int64_t n, int64_t lines,
                int64_t inner) {
  const CubLibrary& cub = cub_library();
  const int dev = node.device.index;
  const bool is_float = in.dtype == DType::Float32 || in.dtype == DType::Float64;
  if (cub.float_sort && lines == 1 && node.values && !node.indices && is_float &&
      in.storage != outs[0].storage) {
    float_line_sort(cub, in, outs[0], dev);
    return;
  }
  if (cub.int_sort && lines >= 1 && inner == 1 && node.values && !node.indices &&
      (is_integer(in.dtype) || in.dtype == DType::Bool) && in.storage != outs[0].storage) {
    int_sort(cub, in, outs[0].data(), n, lines, dev);
    return;
  }
  const size_t count = static_cast<size_t>(in.size());
  const bool complex = in.dtype == DType::Complex64;
  // Complex values are gathered from the input by index: their keys do not give them back.
  const bool with_index = node.indices || complex;
  // 32-bit indices in the line move half the bytes of int64 ones through every radix pass; the
  // store pass widens them.
  const bool idx32 = with_index && cub.sort_v && n <= int64_t(UINT32_MAX);
  const size_t key_bytes = complex ? 8 : in.itemsize();
  const size_t value_bytes = idx32 ? 4 : 8;
  auto k_in = allocate_device_buffer(count * key_bytes, dev);
  auto k_out = allocate_device_buffer(count * key_bytes, dev);
  std::shared_ptr<Buffer> i_in, i_out, offsets;
  if (with_index) {
    i_in = allocate_device_buffer(count * value_bytes, dev);
    i_out = allocate_device_buffer(count * value_bytes, dev);
  }
  SortParams p{};
  p.in = in.data();
  p.n = n, p.lines = lines, p.inner = inner;
  p.vals_dst = k_in->data();
  p.canonical = with_index ? 1 : 0;  // equal keys for -0.0 and 0.0 keep argsort stable
  if (with_index && idx32) p.idx32_dst = static_cast<unsigned*>(i_in->data());
  if (with_index && !idx32) p.idx_dst = static_cast<long long*>(i_in->data());
  run(in.dtype, complex ? "nf_sort_make_complex_keys" : "nf_sort_make_keys", dev, blocks_for(in.size()), p);
  if (lines > 1) {
    offsets = allocate_device_buffer(static_cast<size_t>(lines + 1) * sizeof(long long), dev);
    SortParams o = p;
    o.idx_dst = static_cast<long long*>(offsets->data());
    run(in.dtype, "nf_sort_offsets", dev, blocks_for(lines + 1), o);
  }
  const long long* seg = offsets ? static_cast<const long long*>(offsets->data()) : nullptr;
  void* vin = with_index ? i_in->data() : nullptr;
  void* vout = with_index ? i_out->data() : nullptr;
  void* stream = enqueue_stream(dev).handle();
  const int end_bit = static_cast<int>(key_bytes * 8);
  const int segments = static_cast<int>(lines);
  const int kb = static_cast<int>(key_bytes);
  const auto sort = [&](void* temp, size_t* temp_bytes) {
    if (cub.sort_v) {
      return cub.sort_v(kb, with_index ? static_cast<int>(value_bytes) : 0, temp, temp_bytes, k_in->data(),
                        k_out->data(), vin, vout, in.size(), segments, seg, end_bit, stream);
    }
    return cub.sort(kb, temp, temp_bytes, k_in->data(), k_out->data(), static_cast<const long long*>(vin),
                    static_cast<long long*>(vout), in.size(), segments, seg, end_bit, stream);
  };
  size_t temp_bytes = 0;
  check_cub(sort(nullptr, &temp_bytes), "radix sort (temporary storage size)");
  auto temp = allocate_device_buffer(std::max<size_t>(temp_bytes, 1), dev);
  check_cub(sort(temp->data(), &temp_bytes), "radix sort");
  p.vals_src = k_out->data();
  p.idx32_src = idx32 ? static_cast<const unsigned*>(vout) : nullptr;
  p.idx_src = with_index && !idx32 ? static_cast<long long*>(vout) : nullptr;
  p.out_values = node.values ? outs[0].data() : nullptr;
  p.out_indices = node.indices ? reinterpret_cast<long long*>(outs[node.values ? 1 : 0].data()) : nullptr;
  run(in.dtype, with_index ? "nf_sort_store_indexed" : "nf_sort_store_keys", dev, blocks_for(in.size()), p);
  // The buffers are freed stream-ordered (memory.h), after the kernels that read them.
}

namespace {

// Where each run of equal sorted values starts (CUB's select writes them), when counts are asked.
std::shared_ptr<Buffer> run_starts(const Array* counts, int64_t n, int dev) {
  return counts ? allocate_device_buffer(static_cast<size_t>(n) * sizeof(long long), dev) : nullptr;
}

// np.unique's counts from the run starts, for the *count runs of n sorted values.
void store_counts(DType d, const Array& counts, const std::shared_ptr<Buffer>& starts, long long* counter, int64_t n,
                  int dev) {
  SortParams p{};
  p.n = n, p.lines = 1, p.inner = 1;
  p.count = counter;
  p.starts = static_cast<const long long*>(starts->data());
  p.out_indices = reinterpret_cast<long long*>(counts.data());
  run(d, "nf_unique_counts", dev, std::min(blocks_for(n), kIdleGrid), p);
}

// np.unique of float32/float64 values as PyTorch's unique computes it, with no pass to keys: CUB's
// float sort from the input, CUB's select with NaN-aware equality, then two kernels: one thread
// finds the NaNs that the sign bit put first, and the store rotates them to the end.
void float_unique(const CubLibrary& cub, const Array& in, const Array& values, const Array& count,
                  const Array* counts, bool equal_nan) {
  const int dev = in.device().index;
  const int64_t n = in.size();
  const size_t bytes = static_cast<size_t>(n) * in.itemsize();
  auto sorted = allocate_device_buffer(bytes, dev);
  auto uniq = allocate_device_buffer(bytes, dev);
  auto shift = allocate_device_buffer(2 * sizeof(long long), dev);
  auto starts = run_starts(counts, n, dev);
  long long* start = starts ? static_cast<long long*>(starts->data()) : nullptr;
  void* stream = enqueue_stream(dev).handle();
  const int kb = static_cast<int>(in.itemsize());
  long long* counter = reinterpret_cast<long long*>(count.data());
  size_t sort_bytes = 0, select_bytes = 0;
  check_cub(cub.float_sort(kb, nullptr, &sort_bytes, in.data(), sorted->data(), n, stream),
            "float sort (temporary storage size)");
  check_cub(cub.float_unique(kb, nullptr, &select_bytes, sorted->data(), uniq->data(), start, counter, n,
                             equal_nan, stream),
            "unique (temporary storage size)");
  auto temp = allocate_device_buffer(std::max<size_t>({sort_bytes, select_bytes, 1}), dev);
  check_cub(cub.float_sort(kb, temp->data(), &sort_bytes, in.data(), sorted->data(), n, stream), "float sort");
  check_cub(cub.float_unique(kb, temp->data(), &select_bytes, sorted->data(), uniq->data(), start, counter, n,
                             equal_nan, stream),
            "unique");
  SortParams p{};
  p.n = n, p.lines = 1, p.inner = 1;
  p.vals_src = uniq->data();
  p.out_values = values.data();
  p.count = counter;
  p.idx_dst = static_cast<long long*>(shift->data());
  p.idx_src = p.idx_dst;
  p.canonical = equal_nan ? 1 : 0;
  p.starts = start;
  p.out_indices = counts ? reinterpret_cast<long long*>(counts->data()) : nullptr;
  run(in.dtype, "nf_unique_nan_fix", dev, 1, p);
  run(in.dtype, "nf_unique_store_rotated", dev, std::min(blocks_for(n), kIdleGrid), p);
}

}  // namespace

namespace {

// np.unique of integers or bools: CUB's integer order is NumPy's, and equal integers are equal
// bits: CUB sorts the input, then selects the first of each run straight into the output.
void int_unique(const CubLibrary& cub, const Array& in, const Array& values, const Array& count,
                const Array* counts) {
  const int dev = in.device().index;
  const int64_t n = in.size();
  auto sorted = allocate_device_buffer(static_cast<size_t>(n) * in.itemsize(), dev);
  auto starts = run_starts(counts, n, dev);
  long long* start = starts ? static_cast<long long*>(starts->data()) : nullptr;
  int_sort(cub, in, sorted->data(), n, 1, dev);
  void* stream = enqueue_stream(dev).handle();
  const int kb = static_cast<int>(in.itemsize());
  long long* counter = reinterpret_cast<long long*>(count.data());
  size_t select_bytes = 0;
  check_cub(cub.unique(kb, nullptr, &select_bytes, sorted->data(), values.data(), start, counter, n, 0, stream),
            "unique (temporary storage size)");
  auto temp = allocate_device_buffer(std::max<size_t>(select_bytes, 1), dev);
  check_cub(cub.unique(kb, temp->data(), &select_bytes, sorted->data(), values.data(), start, counter, n, 0, stream),
            "unique");
  if (counts) store_counts(in.dtype, *counts, starts, counter, n, dev);
}

// np.unique through NumPy-ordered keys (float16, or a helper library without the typed entries):
// keys with -0.0 as 0.0 and every NaN one key, CUB's radix sort, the select on keys (the NaN key
// distinct from itself for equal_nan=False), keys back to values.
void keys_unique(const CubLibrary& cub, const Array& in, const Array& values, const Array& count,
                 const Array* counts, bool equal_nan) {
  const int dev = in.device().index;
  const int64_t n = in.size();
  const size_t kb = in.itemsize();
  auto starts = run_starts(counts, n, dev);
  long long* start = starts ? static_cast<long long*>(starts->data()) : nullptr;
  auto keys = allocate_device_buffer(static_cast<size_t>(n) * kb, dev);
  auto sorted = allocate_device_buffer(static_cast<size_t>(n) * kb, dev);
  SortParams p{};
  p.in = in.data();
  p.n = n, p.lines = 1, p.inner = 1;
  p.vals_dst = keys->data();
  p.canonical = 1;
  run(in.dtype, "nf_sort_make_keys", dev, blocks_for(n), p);
  void* stream = enqueue_stream(dev).handle();
  const int k = static_cast<int>(kb);
  const auto sort = [&](void* temp, size_t* temp_bytes) {
    return cub.sort(k, temp, temp_bytes, keys->data(), sorted->data(), nullptr, nullptr, n, 1, nullptr, k * 8,
                    stream);
  };
  long long* counter = reinterpret_cast<long long*>(count.data());
  const int nan_distinct = !equal_nan && is_float_dtype(in.dtype) ? 1 : 0;
  // The unique keys go back into `keys`, free once the sort has read them.
  const auto select = [&](void* temp, size_t* temp_bytes) {
    return cub.unique(k, temp, temp_bytes, sorted->data(), keys->data(), start, counter, n, nan_distinct, stream);
  };
  size_t sort_bytes = 0, select_bytes = 0;
  check_cub(sort(nullptr, &sort_bytes), "radix sort (temporary storage size)");
  check_cub(select(nullptr, &select_bytes), "unique (temporary storage size)");
  auto temp = allocate_device_buffer(std::max<size_t>({sort_bytes, select_bytes, 1}), dev);
  check_cub(sort(temp->data(), &sort_bytes), "radix sort");
  check_cub(select(temp->data(), &select_bytes), "unique");
  p.vals_src = keys->data();
  p.out_values = values.data();
  p.count = counter;
  run(in.dtype, "nf_unique_store", dev, std::min(blocks_for(n), kIdleGrid), p);
  if (counts) store_counts(in.dtype, *counts, starts, counter, n, dev);
}

}  // namespace

void radix_unique(const Array& in, const Array& values, const Array& count, const Array* counts, bool equal_nan) {
  const CubLibrary& cub = cub_library();
  if (cub.float_sort && cub.float_unique && (in.dtype == DType::Float32 || in.dtype == DType::Float64)) {
    float_unique(cub, in, values, count, counts, equal_nan);
  } else if (cub.int_sort && (is_integer(in.dtype) || in.dtype == DType::Bool)) {
    int_unique(cub, in, values, count, counts);
  } else {
    keys_unique(cub, in, values, count, counts, equal_nan);
  }
}

}  // namespace nf::cuda
