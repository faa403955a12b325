// The CPU cast loops: NumPy's astype between every pair of dtypes, through nf::convert.
#include <cstring>
#include <type_traits>

#include "numfuse/backend/cpu/ufunc_loop_impl.h"

namespace nf::cpu {
namespace {

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
