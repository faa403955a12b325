#include "numfuse/backend/cpu/reduce_rows.h"

#include <cstring>

// The row sums are compiled for baseline x86-64, AVX2 (x86-64-v3) and AVX-512 (x86-64-v4) and
// picked at load time: with the accumulator row in L2 (rows of more than a few thousand values)
// the baseline's 16-byte loads and stores ran 1.5x slower than NumPy's wider loop.
#if defined(__x86_64__) && defined(__linux__)
#define NF_ROW_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define NF_ROW_CLONES
#endif

namespace nf::cpu {

NF_ROW_CLONES void add_row(double* __restrict acc, const double* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += v[j];
}

NF_ROW_CLONES void add_row(float* __restrict acc, const float* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += v[j];
}

namespace {

// acc[j] = op(acc[j], v[j]) with NumPy's maximum/minimum (a NaN on either side wins) or
// fmax/fmin (a NaN loses to a number), as 32-byte vector compare-selects: the scalar NaN test
// defeats the vectoriser, and at 16 bytes the max of a 10000x1000 float64 array over axis 0 ran
// below NumPy. Inlined into each clone, so each instruction set gets its own loop.
enum class Extreme { Max, Min, Fmax, Fmin };

template <class T, class I, Extreme op>
__attribute__((always_inline)) inline void extreme_row_impl(T* __restrict acc,
                                                             const T* __restrict v, int64_t n) {
  typedef T V __attribute__((vector_size(32)));
  typedef I M __attribute__((vector_size(32)));
  constexpr int L = 32 / sizeof(T);
  int64_t j = 0;
  for (; j + L <= n; j += L) {
    V a, x;
    std::memcpy(&a, acc + j, sizeof(V));
    std::memcpy(&x, v + j, sizeof(V));
    M keep;  // where op(a, x) is a
    if constexpr (op == Extreme::Max)
      keep = (a > x) | (a != a);
    else if constexpr (op == Extreme::Min)
      keep = (a < x) | (a != a);
    else if constexpr (op == Extreme::Fmax)
      keep = (a > x) | (x != x);
    else
      keep = (a < x) | (x != x);
    a = (V)(((M)a & keep) | ((M)x & ~keep));
    std::memcpy(acc + j, &a, sizeof(V));
  }
  for (; j < n; ++j) {
    const T a = acc[j], x = v[j];
    bool keep;
    if constexpr (op == Extreme::Max)
      keep = a > x || a != a;
    else if constexpr (op == Extreme::Min)
      keep = a < x || a != a;
    else if constexpr (op == Extreme::Fmax)
      keep = a > x || x != x;
    else
      keep = a < x || x != x;
    acc[j] = keep ? a : x;
  }
}

}  // namespace

#define NF_EXTREME_ROW(name, T, I, op)                                               \
  NF_ROW_CLONES void name(T* __restrict acc, const T* __restrict v, int64_t n) {    \
    extreme_row_impl<T, I, Extreme::op>(acc, v, n);                                  \
  }
NF_EXTREME_ROW(max_row, double, int64_t, Max)
NF_EXTREME_ROW(max_row, float, int32_t, Max)
NF_EXTREME_ROW(min_row, double, int64_t, Min)
NF_EXTREME_ROW(min_row, float, int32_t, Min)
NF_EXTREME_ROW(fmax_row, double, int64_t, Fmax)
NF_EXTREME_ROW(fmax_row, float, int32_t, Fmax)
NF_EXTREME_ROW(fmin_row, double, int64_t, Fmin)
NF_EXTREME_ROW(fmin_row, float, int32_t, Fmin)
#undef NF_EXTREME_ROW

}  // namespace nf::cpu
