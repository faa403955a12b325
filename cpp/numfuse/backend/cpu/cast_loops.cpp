// The CPU cast loops: NumPy's astype between every pair of dtypes, through nf::convert.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu {
namespace {

// The conditions NumPy's casts raise that the conversions above do not raise themselves: float
// to int out of range (the emulated conversion never faults) and overflow to float16 (a software
// conversion). A second pass over the run, in cache, for these casts only.
template <class From, class To>
void raise_cast_flags(const From* s, int64_t stride, const To* d, int64_t n) {
  if constexpr ((is_flt_v<From> || std::is_same_v<From, half>) && is_int_v<To>) {
    bool bad = false;
    for (int64_t i = 0; i < n; ++i) {
      bad |= nf::detail::float_to_int_invalid<To>(static_cast<double>(s[i * stride]));
    }
    if (bad) fp_raise(kRaiseInvalid);
  } else if constexpr (std::is_same_v<To, half> && !std::is_same_v<From, half> &&
                       (is_flt_v<From> || is_int_v<From>)) {
    bool over = false;
    for (int64_t i = 0; i < n; ++i) {
      // classification, not arithmetic: inf - inf would raise the invalid flag itself
      over |= std::isinf(static_cast<float>(d[i])) && std::isfinite(static_cast<double>(s[i * stride]));
    }
    if (over) fp_raise(kRaiseOverflow);
  }
}

template <class From, class To>
void cast_loop(const void* src, int64_t stride, void* dst, int64_t n) {
  const From* s = static_cast<const From*>(src);
  To* d = static_cast<To*>(dst);
  if constexpr (std::is_same_v<From, To>) {
    if (stride == 1) {  // a plain copy (asnumpy, assignments of one dtype)
      std::memcpy(d, s, static_cast<size_t>(n) * sizeof(To));
      return;
    }
  }
  if (stride == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i * stride]);
  }
  raise_cast_flags<From, To>(s, stride, d, n);
}

template <class From>
CastLoop cast_from(DType to) {
  switch (to) {
#define NF_CAST_TO_(E, T, CH, N) \
  case DType::E:                 \
    return &cast_loop<From, T>;
    NF_FOR_EACH_DTYPE(NF_CAST_TO_)
#undef NF_CAST_TO_
  }
  return nullptr;
}

}  // namespace

CastLoop find_cast_loop(DType from, DType to) {
  switch (from) {
#define NF_CAST_FROM_(E, T, CH, N) \
  case DType::E:                   \
    return cast_from<T>(to);
    NF_FOR_EACH_DTYPE(NF_CAST_FROM_)
#undef NF_CAST_FROM_
  }
  return nullptr;
}

}  // namespace nf::cpu
