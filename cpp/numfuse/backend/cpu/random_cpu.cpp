// RandomNode on the CPU: element i of the C-ordered output from Philox block (offset + i), in
// parallel over elements. The same per-element functions (kernels/philox.h) serve the GPU.
#include <type_traits>

#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/kernels/philox.h"
#include "numfuse/ops/random.h"

namespace nf {

namespace {

template <class T, class F>
void fill(const Array& o, F&& value_of) {
  T* p = o.data_as<T>();
  cpu::parallel_for(o.size(), 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = value_of(static_cast<uint64_t>(i));
  });
}

}  // namespace

void RandomNode::eval_cpu(const std::vector<Array>& outs) {
  const Array& o = outs[0];
  const RandomSpec s = spec;
  auto block = [s](uint64_t i) { return rng::philox_block(s.seed, s.stream, s.offset, i); };
  switch (s.dist) {
    case RandomDist::Uniform:
      if (o.dtype == DType::Float32) {
        const float lo = static_cast<float>(s.a), hi = static_cast<float>(s.b);
        fill<float>(o, [&](uint64_t i) { return rng::uniform_float(block(i), lo, hi); });
      } else {
        fill<double>(o, [&](uint64_t i) { return rng::uniform_double(block(i), s.a, s.b); });
      }
      return;
    case RandomDist::Normal:
      if (o.dtype == DType::Float32) {
        const float loc = static_cast<float>(s.a), scale = static_cast<float>(s.b);
        fill<float>(o, [&](uint64_t i) { return rng::normal_float(block(i), loc, scale); });
      } else {
        fill<double>(o, [&](uint64_t i) { return rng::normal_double(block(i), s.a, s.b); });
      }
      return;
    case RandomDist::Integers:
      NF_DISPATCH(o.dtype, "random_integers", {
        if constexpr (std::is_integral_v<scalar_t>) {
          fill<scalar_t>(o, [&](uint64_t i) {
            // The sum wraps modulo 2^64; the value lies in [low, low + range) of the dtype.
            const uint64_t v = s.low + rng::bounded_uint64(block(i), s.range);
            if constexpr (std::is_same_v<scalar_t, bool>) {
              return v != 0;
            } else {
              return static_cast<scalar_t>(v);
            }
          });
        }
      });
      return;
  }
}

}  // namespace nf
