#include "numfuse/backend/cpu/elementwise_cpu.h"

#include <cstring>

#include "numfuse/backend/cpu/run_buffers.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/iteration.h"

namespace nf::cpu {

namespace {
// Below this many elements a copy runs on the caller's thread only.
constexpr int64_t kParallelGrain = 1 << 15;
}  // namespace

void copy_cast(const Array& src, const Array& dst) {
  // A small copy of one dtype between C-ordered arrays of one shape is one memcpy (asnumpy).
  if (src.dtype == dst.dtype && src.shape == dst.shape && dst.size() <= kParallelGrain &&
      src.c_contiguous() && dst.c_contiguous()) {
    if (dst.size() > 0 && src.data() != dst.data()) std::memmove(dst.data(), src.data(), dst.nbytes());
    return;
  }
  std::vector<Strides> strides = {dst.strides, broadcast_strides(src.shape, src.strides, dst.shape)};
  IterSpace sp = make_iter_space(dst.shape, strides, 0);
  if (sp.size() == 0) return;
  CastLoop cast = find_cast_loop(src.dtype, dst.dtype);
  const size_t src_size = itemsize(src.dtype), dst_size = itemsize(dst.dtype);
  char* src_base = src.data();
  char* dst_base = dst.data();
  auto chunk = [&](int64_t begin, int64_t end) {
    thread_local RunScratch scratch;
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
        store_strided(buf, d, dstep, n, dst_size);
      }
    });
  };
  if (sp.size() <= kParallelGrain) {
    chunk(0, sp.size());  // what parallel_for would do, without wrapping the lambda
  } else {
    parallel_for(sp.size(), kParallelGrain, chunk);
  }
}

}  // namespace nf::cpu
