#include "numfuse/backend/cpu/express_cpu.h"

#include <cstring>
#include <vector>

#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/fp_status.h"
#include "numfuse/core/type_resolution.h"

namespace nf::cpu {

namespace {

constexpr int kMaxDims = 8;

// Walks `shape` in runs along its last dim, C order, calling fn(offsets, position, n): offsets[k]
// is operand k's element offset of the run (strides[k]), position its first element's C-order
// index. An odometer over the outer dims: a (49, 49) block of a matrix is 49 runs.
template <class F>
void for_each_run(const Shape& shape, const Strides* strides, int nops, F&& fn) {
  const int nd = static_cast<int>(shape.size());
  int64_t off[4] = {0, 0, 0, 0};
  if (nd == 0) {
    fn(off, int64_t(0), int64_t(1));
    return;
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const int64_t inner = shape[nd - 1];
  int64_t idx[kMaxDims] = {0};
  for (int64_t pos = 0; pos < n; pos += inner) {
    fn(off, pos, inner);
    for (int d = nd - 2; d >= 0; --d) {  // carry into the outer dims
      for (int k = 0; k < nops; ++k) off[k] += strides[k][d];
      if (++idx[d] < shape[d]) break;
      for (int k = 0; k < nops; ++k) off[k] -= strides[k][d] * shape[d];
      idx[d] = 0;
    }
  }
}

template <class T>
void store_run(const char* src, char* dst, int64_t stride, int64_t n) {
  T v;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(&v, src + i * int64_t(sizeof(T)), sizeof(T));
    std::memcpy(dst + i * stride * int64_t(sizeof(T)), &v, sizeof(T));
  }
}

// dst[run] = n contiguous elements of `size` bytes at src, dst advancing by `stride` elements.
void store_strided_run(const char* src, char* dst, int64_t stride, int64_t n, size_t size) {
  if (stride == 1) {
    std::memmove(dst, src, static_cast<size_t>(n) * size);
    return;
  }
  switch (size) {
    case 1:
      return store_run<uint8_t>(src, dst, stride, n);
    case 2:
      return store_run<uint16_t>(src, dst, stride, n);
    case 4:
      return store_run<uint32_t>(src, dst, stride, n);
    case 8:
      return store_run<uint64_t>(src, dst, stride, n);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * stride * int64_t(size), src + i * int64_t(size), size);
      }
  }
}

}  // namespace

bool run_ufunc_express(UFunc op, const DType* in_loop, const DType* out_loop, const void* const* in,
                       void* const* out, const Shape& shape, const Strides* strides,
                       bool fresh_outputs) {
  const int nd = static_cast<int>(shape.size());
  if (nd > kMaxDims) return false;
  DType loop_out[2];
  UFuncLoop loop = find_ufunc_loop(op, in_loop, loop_out);
  if (!loop) return false;
  const int nin = ufunc_nin(op), nout = ufunc_nout(op);
  for (int j = 0; j < nout; ++j) {
    if (loop_out[j] != out_loop[j]) return false;
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return true;
  size_t in_size[2] = {0, 0}, out_size[2] = {0, 0};
  for (int k = 0; k < nin; ++k) in_size[k] = itemsize(in_loop[k]);
  for (int j = 0; j < nout; ++j) out_size[j] = itemsize(out_loop[j]);
  // Results go contiguously (C order) to fresh outputs, or else to scratch, stored afterwards.
  thread_local std::vector<char> scratch;
  char* res[2];
  if (fresh_outputs) {
    for (int j = 0; j < nout; ++j) res[j] = static_cast<char*>(out[j]);
  } else {
    const size_t bytes0 = static_cast<size_t>(n) * out_size[0];
    const size_t need = bytes0 + static_cast<size_t>(n) * out_size[1];
    if (scratch.size() < need) scratch.resize(need);
    res[0] = scratch.data();
    res[1] = scratch.data() + bytes0;
  }
  int64_t step[2] = {0, 0};
  for (int k = 0; k < nin; ++k) step[k] = nd ? strides[k][nd - 1] : 0;
  fp_hw_take();  // flags left by earlier work on this thread are not this op's
  for_each_run(shape, strides, nin, [&](const int64_t* off, int64_t pos, int64_t run) {
    const void* ip[2];
    void* rp[2];
    for (int k = 0; k < nin; ++k)
      ip[k] = static_cast<const char*>(in[k]) + off[k] * int64_t(in_size[k]);
    for (int j = 0; j < nout; ++j) rp[j] = res[j] + pos * int64_t(out_size[j]);
    loop(ip, step, rp, run);
  });
  if (fp_hw_take() != 0) return false;
  if (fresh_outputs) return true;
  for (int j = 0; j < nout; ++j) {
    const Strides* os = &strides[nin + j];
    const int64_t inner = nd ? (*os)[nd - 1] : 0;
    for_each_run(shape, os, 1, [&](const int64_t* off, int64_t pos, int64_t run) {
      store_strided_run(res[j] + pos * int64_t(out_size[j]),
                        static_cast<char*>(out[j]) + off[0] * int64_t(out_size[j]), inner, run,
                        out_size[j]);
    });
  }
  return true;
}

}  // namespace nf::cpu
