// Counter-based random numbers: Philox4x32-10 and the distributions numfuse draws from it.
// Compiled by g++ for the CPU and by NVRTC for the GPU (prepended after nf_types.h), so nothing
// here includes a standard header under __CUDACC_RTC__; device code uses CUDA's builtin math.
//
// ---- The generator -----------------------------------------------------------------------------
// philox4x32_10 is the block function of Random123 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC11): 10 rounds on a 128-bit counter under a 64-bit key, with
// the multipliers 0xD2511F53 / 0xCD9E8D57 and the Weyl key bumps 0x9E3779B9 / 0xBB67AE85. It
// reproduces Random123's tests/kat_vectors (checked in cpp/tests/test_philox.cpp).
//
// ---- The numfuse stream model ------------------------------------------------------------------
// A generator is three 64-bit numbers: seed, stream, offset.
//   key     = { lo32(seed), hi32(seed) }
//   counter = { lo32(offset + i), hi32(offset + i), lo32(stream), hi32(stream) }
// The stream is a sequence of 64-bit words: block c gives word 2c (x, y) and word 2c + 1 (z, w).
// The generator's offset counts words. A uniform draw of n values gives element i (0 <= i < n,
// in C order of the result) word (offset + i) and advances the offset by n, so two neighbours
// share one block (half the Philox work of one block per value) and a draw of n then m values
// is the draw of n + m values, split. Normals and integers take a whole block each: element i
// gets block (b + i), b the first whole block at or after the offset, which then moves past the
// last one. So every element of a draw is a pure function of (seed, stream, offset, i): any
// kernel, fused or not, on any backend, computes element i on its own, and the CPU and the GPU
// give the same numbers. `stream` selects
// an independent sequence for the same seed (as curand's subsequence does; the layout of the
// counter is the same as curand_init(seed, subsequence, offset)'s, one block per 4 numbers aside).
// The offset wraps after 2^64 values per stream; nobody draws that many.
//
// ---- Distributions ----------------------------------------------------------------------------
//   uniform_double : [0,1), 53 bits of a word: (word >> 11) * 2^-53         (exact on all targets)
//   uniform_float  : [0,1), 24 bits of a word: (lo32(word) >> 8) * 2^-24    (exact on all targets)
//   uniform(lo,hi) : lo + (hi - lo) * u, rounded once per operation (no FMA contraction on the
//                    device), so it is bit-identical on host and device.
//   normal_double  : Box-Muller, u1 in (0,1] from words x,y (53 bits), u2 in [0,1) from z,w:
//                    sqrt(-2 log u1) * cos(2 pi u2); the sine output is dropped so that one
//                    element stays one block. Equal on host and device up to the ulps of log/cos.
//   normal_float   : the same in float with 24-bit u1 (from x) and u2 (from y).
//   randint        : [low, high) for any int64 range: floor(X * r / 2^128) with X the whole
//                    128-bit block and r = high - low (as uint64). This is Lemire's multiply with
//                    128 random bits instead of 64: no rejection loop (so no divergence on the GPU)
//                    and the bias is at most r / 2^128 < 2^-64 relative, i.e. unmeasurable. The
//                    arithmetic is integer only, so host and device give identical integers.
#pragma once

// Under NVRTC the code generator concatenates the kernel headers, so none includes another.
#if !defined(__CUDACC_RTC__)
#include <cmath>

#include "numfuse/kernels/nf_types.h"
#endif

namespace nf {

// The Philox output (and counter) block: four 32-bit words, laid out like CUDA's uint4.
struct uint32x4 {
  uint32_t x, y, z, w;
};

namespace philox_detail {

constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;
constexpr uint32_t kW1 = 0xBB67AE85u;

NF_HD uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

NF_HD uint32x4 round(uint32x4 c, uint32_t k0, uint32_t k1) {
  // One widening product per multiplier gives both halves (a single IMAD.WIDE.U32 on the GPU,
  // where mul.hi and mul.lo would be two instructions: Philox is most of a fused draw's cost).
  uint32_t hi0, lo0, hi1, lo1;
#if defined(__CUDA_ARCH__)
  asm("{\n\t.reg .b64 p;\n\tmul.wide.u32 p, %2, %3;\n\tmov.b64 {%1, %0}, p;\n\t}"
      : "=r"(hi0), "=r"(lo0) : "r"(kM0), "r"(c.x));
  asm("{\n\t.reg .b64 p;\n\tmul.wide.u32 p, %2, %3;\n\tmov.b64 {%1, %0}, p;\n\t}"
      : "=r"(hi1), "=r"(lo1) : "r"(kM1), "r"(c.z));
#else
  const uint64_t p0 = static_cast<uint64_t>(kM0) * c.x, p1 = static_cast<uint64_t>(kM1) * c.z;
  hi0 = static_cast<uint32_t>(p0 >> 32);
  lo0 = static_cast<uint32_t>(p0);
  hi1 = static_cast<uint32_t>(p1 >> 32);
  lo1 = static_cast<uint32_t>(p1);
#endif
  return uint32x4{hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
}

// Products and sums rounded once each, also where the device compiler would fuse them (FMA).
NF_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
NF_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
NF_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
NF_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

// Math: CUDA's builtins on the device, <cmath> on the host.
#if defined(__CUDA_ARCH__)
NF_HD double log_(double v) { return ::log(v); }
NF_HD double cos_(double v) { return ::cos(v); }
NF_HD double sqrt_(double v) { return ::sqrt(v); }
NF_HD float log_(float v) { return ::logf(v); }
NF_HD float cos_(float v) { return ::cosf(v); }
NF_HD float sqrt_(float v) { return ::sqrtf(v); }
#else
inline double log_(double v) { return std::log(v); }
inline double cos_(double v) { return std::cos(v); }
inline double sqrt_(double v) { return std::sqrt(v); }
inline float log_(float v) { return std::log(v); }
inline float cos_(float v) { return std::cos(v); }
inline float sqrt_(float v) { return std::sqrt(v); }
#endif

}  // namespace philox_detail

// Philox4x32-10 exactly as Random123 defines it: ctr[0..3] is the counter, key[0..1] the key;
// the output words x,y,z,w are Random123's out[0..3].
NF_HD uint32x4 philox4x32_10(uint32x4 ctr, uint32_t key0, uint32_t key1) {
  uint32_t k0 = key0, k1 = key1;
  ctr = philox_detail::round(ctr, k0, k1);
  for (int r = 1; r < 10; ++r) {
    k0 += philox_detail::kW0;
    k1 += philox_detail::kW1;
    ctr = philox_detail::round(ctr, k0, k1);
  }
  return ctr;
}
NF_HD uint32x4 philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]) {
  return philox4x32_10(uint32x4{ctr[0], ctr[1], ctr[2], ctr[3]}, key[0], key[1]);
}

namespace rng {

// The block of element i of a draw that starts at `offset` (see the stream model above).
NF_HD uint32x4 philox_block(uint64_t seed, uint64_t stream, uint64_t offset, uint64_t i) {
  const uint64_t n = offset + i;
  return philox4x32_10(uint32x4{static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32),
                                static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// The state of one numfuse generator. Host code reserves a range with draw(n) and hands
// (seed, stream, first offset) to the kernel as parameters; the kernel calls philox_block.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t stream = 0;
  uint64_t offset = 0;
  // Reserve n values: returns the offset of the draw's element 0 and advances the state.
  NF_HD uint64_t draw(uint64_t n) {
    const uint64_t first = offset;
    offset += n;
    return first;
  }
  NF_HD uint32x4 block(uint64_t first, uint64_t i) const { return philox_block(seed, stream, first, i); }
};

// 64 random bits from words x (low) and y (high); 64 more from z (low) and w (high).
NF_HD uint64_t bits64_lo(uint32x4 b) { return (static_cast<uint64_t>(b.y) << 32) | b.x; }
NF_HD uint64_t bits64_hi(uint32x4 b) { return (static_cast<uint64_t>(b.w) << 32) | b.z; }

// Word k of the stream (block k / 2, its low or high 64 bits).
NF_HD uint64_t stream_word(uint64_t seed, uint64_t stream, uint64_t k) {
  const uint32x4 b = philox_block(seed, stream, 0, k >> 1);
  return (k & 1) ? bits64_hi(b) : bits64_lo(b);
}

// Uniform double in [0, 1): the top 53 of a word's 64 bits. Multiples of 2^-53.
NF_HD double uniform_double(uint64_t word) {
  return static_cast<double>(word >> 11) * (1.0 / 9007199254740992.0);
}
// Uniform float in [0, 1): the top 24 of a word's low 32 bits. Multiples of 2^-24.
NF_HD float uniform_float(uint64_t word) {
  return static_cast<float>(static_cast<uint32_t>(word) >> 8) * (1.0f / 16777216.0f);
}
// The same from a block's first word.
NF_HD double uniform_double(uint32x4 b) { return uniform_double(bits64_lo(b)); }
NF_HD float uniform_float(uint32x4 b) { return uniform_float(bits64_lo(b)); }
// low + (high - low) * u, each operation rounded once (bit-identical on host and device).
// As in NumPy, the result can equal `high` through rounding when |low| >> |high - low|.
NF_HD double uniform_double(uint64_t word, double low, double high) {
  return philox_detail::add_rn(low, philox_detail::mul_rn(high - low, uniform_double(word)));
}
NF_HD float uniform_float(uint64_t word, float low, float high) {
  return philox_detail::add_rn(low, philox_detail::mul_rn(high - low, uniform_float(word)));
}
NF_HD double uniform_double(uint32x4 b, double low, double high) { return uniform_double(bits64_lo(b), low, high); }
NF_HD float uniform_float(uint32x4 b, float low, float high) { return uniform_float(bits64_lo(b), low, high); }

// Standard normal by Box-Muller (the cosine branch) from one block.
NF_HD double normal_double(uint32x4 b) {
  // u1 in (0, 1] so that log(u1) is finite; u2 in [0, 1).
  const double u1 = static_cast<double>((bits64_lo(b) >> 11) + 1) * (1.0 / 9007199254740992.0);
  const double u2 = static_cast<double>(bits64_hi(b) >> 11) * (1.0 / 9007199254740992.0);
  const double r = philox_detail::sqrt_(-2.0 * philox_detail::log_(u1));
  const double theta = philox_detail::mul_rn(6.283185307179586476925286766559, u2);
  return philox_detail::mul_rn(r, philox_detail::cos_(theta));
}
NF_HD float normal_float(uint32x4 b) {
  const float u1 = static_cast<float>((b.x >> 8) + 1u) * (1.0f / 16777216.0f);
  const float u2 = static_cast<float>(b.y >> 8) * (1.0f / 16777216.0f);
  const float r = philox_detail::sqrt_(-2.0f * philox_detail::log_(u1));
  const float theta = philox_detail::mul_rn(6.28318530717958647692f, u2);
  return philox_detail::mul_rn(r, philox_detail::cos_(theta));
}
// normal with mean `loc` and standard deviation `scale`.
NF_HD double normal_double(uint32x4 b, double loc, double scale) {
  return philox_detail::add_rn(loc, philox_detail::mul_rn(scale, normal_double(b)));
}
NF_HD float normal_float(uint32x4 b, float loc, float scale) {
  return philox_detail::add_rn(loc, philox_detail::mul_rn(scale, normal_float(b)));
}

// An integer in [0, range): floor(X * range / 2^128), X the 128-bit block (x,y its high half,
// z,w its low half). range == 0 stands for 2^64 (all 64 bits, for a full uint64 draw).
// Exact integer arithmetic, no rejection.
NF_HD uint64_t bounded_uint64(uint32x4 b, uint64_t range) {
  const uint64_t xh = bits64_lo(b), xl = bits64_hi(b);
  if (range == 0) return xh;
  // xh * range as 128 bits (ph:pl), plus the carry of pl + hi64(xl * range) into ph.
  const uint64_t ph = philox_detail::mulhi64(xh, range);
  const uint64_t pl = xh * range;
  const uint64_t q = philox_detail::mulhi64(xl, range);
  const uint64_t s = pl + q;
  return ph + (s < pl ? 1u : 0u);
}
// An integer in [low, high) for low < high (the caller validates, as NumPy does; low == high
// gives low). high - low is at most 2^64 - 1, which fits the uint64 range.
NF_HD int64_t randint(uint32x4 b, int64_t low, int64_t high) {
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  if (range == 0) return low;
  return static_cast<int64_t>(static_cast<uint64_t>(low) + bounded_uint64(b, range));
}

}  // namespace rng
}  // namespace nf
