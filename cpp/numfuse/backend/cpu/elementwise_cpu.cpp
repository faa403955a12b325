#include "numfuse/backend/cpu/elementwise_cpu.h"

#include <cstring>
#include <memory>

#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cpu {

namespace {

// Below this many elements a loop runs on the caller's thread only.
constexpr int64_t kParallelGrain = 1 << 15;

// Scratch for one run of one operand, reused across runs of a thread.
struct Scratch {
  std::vector<std::unique_ptr<char[]>> bufs;
  char* get(size_t i) {
    while (bufs.size() <= i) bufs.emplace_back(new char[kRunElements * 16 + 64]);
    return bufs[i].get();
  }
};

// Copies n contiguous items of `size` bytes to a strided destination (stride in items).
void strided_store(const char* src, char* dst, int64_t stride, int64_t n, size_t size) {
  switch (size) {
#define NF_STORE_(S, T)                                                   \
  case S: {                                                               \
    const T* s = reinterpret_cast<const T*>(src);                         \
    T* d = reinterpret_cast<T*>(dst);                                     \
    for (int64_t i = 0; i < n; ++i) d[i * stride] = s[i];                 \
    return;                                                               \
  }
    NF_STORE_(1, uint8_t)
    NF_STORE_(2, uint16_t)
    NF_STORE_(4, uint32_t)
    NF_STORE_(8, uint64_t)
#undef NF_STORE_
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * stride * size, src + i * size, size);
  }
}

std::vector<Strides> operand_strides(const std::vector<Array>& outs, const std::vector<Array>& ins,
                                     const Shape& shape) {
  std::vector<Strides> st;
  for (const Array& o : outs) st.push_back(o.strides);
  for (const Array& a : ins) st.push_back(broadcast_strides(a.shape, a.strides, shape));
  return st;
}

}  // namespace

namespace {
// Small contiguous operands of the loop's own dtypes: one call of the loop, no setup pass. This
// is the host-overhead path of small arrays.
bool try_run_small_contiguous(UFuncLoop loop, const std::vector<DType>& in_loop,
                              const std::vector<DType>& out_loop, const std::vector<Array>& inputs,
                              const std::vector<Array>& outs) {
  const int64_t n = outs[0].size();
  if (n > kRunElements || inputs.size() > 3 || outs.size() > 2) return false;
  const void* in_ptr[3];
  int64_t in_step[3];
  void* out_ptr[2];
  for (size_t j = 0; j < outs.size(); ++j) {
    if (outs[j].dtype != out_loop[j] || !outs[j].c_contiguous()) return false;
    out_ptr[j] = outs[j].data();
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Array& a = inputs[i];
    if (a.dtype != in_loop[i]) return false;
    if (a.ndim() == 0) {
      in_step[i] = 0;
    } else if (a.shape == outs[0].shape && a.c_contiguous()) {
      in_step[i] = 1;
    } else {
      return false;
    }
    in_ptr[i] = a.data();
  }
  if (n > 0) loop(in_ptr, in_step, out_ptr, n);
  return true;
}
}  // namespace

void run_ufunc_loop(UFuncLoop loop, const std::vector<DType>& in_loop,
                    const std::vector<DType>& out_loop, const std::vector<Array>& inputs,
                    const std::vector<Array>& outs) {
  if (try_run_small_contiguous(loop, in_loop, out_loop, inputs, outs)) return;
  const Shape& shape = outs[0].shape;
  const size_t nin = inputs.size(), nout = outs.size();
  IterSpace sp = make_iter_space(shape, operand_strides(outs, inputs, shape), 0);
  if (sp.size() == 0) return;
  std::vector<CastLoop> in_cast(nin, nullptr), out_cast(nout, nullptr);
  for (size_t i = 0; i < nin; ++i) {
    if (inputs[i].dtype != in_loop[i]) in_cast[i] = find_cast_loop(inputs[i].dtype, in_loop[i]);
  }
  for (size_t j = 0; j < nout; ++j) {
    if (outs[j].dtype != out_loop[j]) out_cast[j] = find_cast_loop(out_loop[j], outs[j].dtype);
  }
  std::vector<char*> in_base(nin), out_base(nout);
  for (size_t i = 0; i < nin; ++i) in_base[i] = inputs[i].data();
  for (size_t j = 0; j < nout; ++j) out_base[j] = outs[j].data();

  parallel_for(sp.size(), kParallelGrain, [&](int64_t begin, int64_t end) {
    thread_local Scratch scratch;
    std::vector<const void*> in_ptr(nin);
    std::vector<int64_t> in_step(nin);
    std::vector<void*> out_ptr(nout);
    const int inner = sp.ndim() - 1;
    for_each_run(sp, begin, end, kRunElements, [&](const int64_t* off, int64_t n) {
      for (size_t i = 0; i < nin; ++i) {
        const char* p = in_base[i] + off[nout + i] * int64_t(itemsize(inputs[i].dtype));
        int64_t step = sp.strides[nout + i][inner];
        if (in_cast[i]) {
          char* buf = scratch.get(i);
          in_cast[i](p, step, buf, step == 0 ? 1 : n);
          in_ptr[i] = buf;
          in_step[i] = step == 0 ? 0 : 1;
        } else {
          in_ptr[i] = p;
          in_step[i] = step;
        }
      }
      for (size_t j = 0; j < nout; ++j) {
        char* p = out_base[j] + off[j] * int64_t(itemsize(outs[j].dtype));
        bool direct = !out_cast[j] && sp.strides[j][inner] == 1;
        out_ptr[j] = direct ? static_cast<void*>(p) : scratch.get(nin + j);
      }
      loop(in_ptr.data(), in_step.data(), out_ptr.data(), n);
      for (size_t j = 0; j < nout; ++j) {
        char* p = out_base[j] + off[j] * int64_t(itemsize(outs[j].dtype));
        int64_t step = sp.strides[j][inner];
        if (out_cast[j]) {
          if (step == 1) {
            out_cast[j](out_ptr[j], 1, p, n);
          } else {
            char* buf = scratch.get(nin + nout + j);
            out_cast[j](out_ptr[j], 1, buf, n);
            strided_store(buf, p, step, n, itemsize(outs[j].dtype));
          }
        } else if (step != 1) {
          strided_store(static_cast<char*>(out_ptr[j]), p, step, n, itemsize(outs[j].dtype));
        }
      }
    });
  });
}

void copy_cast(const Array& src, const Array& dst) {
  IterSpace sp = make_iter_space(dst.shape, operand_strides({dst}, {src}, dst.shape), 0);
  if (sp.size() == 0) return;
  CastLoop cast = find_cast_loop(src.dtype, dst.dtype);
  const size_t src_size = itemsize(src.dtype), dst_size = itemsize(dst.dtype);
  char* src_base = src.data();
  char* dst_base = dst.data();
  parallel_for(sp.size(), kParallelGrain, [&](int64_t begin, int64_t end) {
    thread_local Scratch scratch;
    const int inner = sp.ndim() - 1;
    for_each_run(sp, begin, end, kRunElements, [&](const int64_t* off, int64_t n) {
      char* d = dst_base + off[0] * int64_t(dst_size);
      const char* s = src_base + off[1] * int64_t(src_size);
      int64_t dstep = sp.strides[0][inner], sstep = sp.strides[1][inner];
      if (dstep == 1) {
        cast(s, sstep, d, n);
      } else {
        char* buf = scratch.get(0);
        cast(s, sstep, buf, n);
        strided_store(buf, d, dstep, n, dst_size);
      }
    });
  });
}

}  // namespace nf::cpu
