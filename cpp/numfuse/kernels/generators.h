// Values computed from an element's position alone: the in-kernel forms of full, arange, eye and
// the random draws. A fused program calls them where a step reads no array (DESIGN: sources are
// computed inside the kernel, so `x = random(n); (x*x < .5).sum()` allocates no sample array).
// Compiled by g++ for the CPU interpreter and by NVRTC for generated kernels (after philox.h), so
// both backends give the same values. Every parameter travels in eight 64-bit words (kernel
// arguments, never part of the source):
//   Fill     w[0..1]: the value's bytes
//   Arange   w[0], w[1]: start, step as double bits; w[2], w[3]: the same as int64 (integer dtypes)
//   Eye      w[0]: columns, w[1]: k (the diagonal's offset)
//   Random   w[0..2]: seed, stream, offset (in words for uniforms, in blocks otherwise: philox.h);
//            w[3], w[4]: a, b as double bits; w[5]: low; w[6]: range
// `i` is the element's position in C order of the generator's shape.
#pragma once

#if !defined(__CUDACC_RTC__)
#include <cstring>

#include "numfuse/kernels/nf_types.h"
#include "numfuse/kernels/philox.h"
#include "numfuse/kernels/scalar_ops.h"
#endif

namespace nf {
namespace gen {

NF_HD double as_double(uint64_t w) {
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(w));
#else
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
#endif
}

template <class T>
NF_HD T fill(const uint64_t* w) {
  T v;
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  memcpy(&v, w, sizeof(T));
#else
  std::memcpy(&v, w, sizeof(T));
#endif
  return v;
}

// start + i*step in double (each operation rounded, no FMA), or in int64 for integer dtypes.
template <class T>
NF_HD T arange(const uint64_t* w, uint64_t i) {
  if constexpr (is_int_v<T> || is_bool_v<T>) {
    return static_cast<T>(static_cast<int64_t>(w[2]) + static_cast<int64_t>(i) * static_cast<int64_t>(w[3]));
  } else {
    return convert<T>(philox_detail::add_rn(as_double(w[0]),
                                            philox_detail::mul_rn(static_cast<double>(i), as_double(w[1]))));
  }
}

template <class T>
NF_HD T eye(const uint64_t* w, uint64_t i) {
  const int64_t cols = static_cast<int64_t>(w[0]), k = static_cast<int64_t>(w[1]);
  const int64_t r = static_cast<int64_t>(i) / cols, c = static_cast<int64_t>(i) % cols;
  return convert<T>(c - r == k);
}

// The three distributions of ops/random.h (RandomDist: 0 uniform, 1 normal, 2 integers), exactly
// as random draws compute element i: float32 parameters are the doubles rounded to float once;
// integers wrap modulo 2^64 and are truncated to the dtype.
// A uniform from its word of the stream.
template <class T>
NF_HD T uniform_of_word(const uint64_t* w, uint64_t word) {
  // [0, 1) itself (random()): low + (high - low) * u is u exactly, without the three operations.
  const bool unit = w[3] == 0 && w[4] == 0x3FF0000000000000ull;
  if constexpr (tt::is_same<T, float>) {
    if (unit) return rng::uniform_float(word);
    return rng::uniform_float(word, static_cast<float>(as_double(w[3])), static_cast<float>(as_double(w[4])));
  } else {
    if (unit) return rng::uniform_double(word);
    return rng::uniform_double(word, as_double(w[3]), as_double(w[4]));
  }
}
template <class T>
NF_HD T uniform(const uint64_t* w, uint64_t i) {
  return uniform_of_word<T>(w, rng::stream_word(w[0], w[1], w[2] + i));
}
// Elements i and i + 1 together: one Philox block when their words share it (the offset and i
// of equal parity: kernels pass even i, so the branch is uniform across a launch).
template <class T>
NF_HD void uniform2(const uint64_t* w, uint64_t i, T& v0, T& v1) {
  const uint64_t k = w[2] + i;
  const uint32x4 b = rng::philox_block(w[0], w[1], 0, k >> 1);
  if (k & 1) {
    v0 = uniform_of_word<T>(w, rng::bits64_hi(b));
    v1 = uniform_of_word<T>(w, rng::stream_word(w[0], w[1], k + 1));
  } else {
    v0 = uniform_of_word<T>(w, rng::bits64_lo(b));
    v1 = uniform_of_word<T>(w, rng::bits64_hi(b));
  }
}
template <class T>
NF_HD T normal(const uint64_t* w, uint64_t i) {
  const uint32x4 blk = rng::philox_block(w[0], w[1], w[2], i);
  if constexpr (tt::is_same<T, float>) {
    return rng::normal_float(blk, static_cast<float>(as_double(w[3])), static_cast<float>(as_double(w[4])));
  } else {
    return rng::normal_double(blk, as_double(w[3]), as_double(w[4]));
  }
}
template <class T>
NF_HD T integers(const uint64_t* w, uint64_t i) {
  const uint32x4 blk = rng::philox_block(w[0], w[1], w[2], i);
  const uint64_t v = w[5] + rng::bounded_uint64(blk, w[6]);
  if constexpr (tt::is_same<T, bool>) {
    return v != 0;
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace gen
}  // namespace nf
