// Host only: declares glibc's libmvec vector variants of the libm functions the loops call, so
// that GCC vectorises sin, exp, log, ... in contiguous float and double loops. glibc declares them
// only under -ffast-math, which numfuse does not use: NaN and inf results must stay IEEE, and the
// libmvec functions handle those lanes exactly (they fall back to the scalar function).
#pragma once
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define NF_HAVE_MVEC 1
#define NF_MVEC_ __attribute__((simd("notinbranch")))
#define NF_MVEC_UNARY_(fn) NF_MVEC_ double fn(double) noexcept; NF_MVEC_ float fn##f(float) noexcept;
#define NF_MVEC_BINARY_(fn)                                 \
  NF_MVEC_ double fn(double, double) noexcept;              \
  NF_MVEC_ float fn##f(float, float) noexcept;
extern "C" {
NF_MVEC_UNARY_(sin) NF_MVEC_UNARY_(cos) NF_MVEC_UNARY_(tan)
NF_MVEC_UNARY_(asin) NF_MVEC_UNARY_(acos) NF_MVEC_UNARY_(atan)
NF_MVEC_UNARY_(sinh) NF_MVEC_UNARY_(cosh) NF_MVEC_UNARY_(tanh)
NF_MVEC_UNARY_(asinh) NF_MVEC_UNARY_(acosh) NF_MVEC_UNARY_(atanh)
NF_MVEC_UNARY_(exp) NF_MVEC_UNARY_(exp2) NF_MVEC_UNARY_(expm1)
NF_MVEC_UNARY_(log) NF_MVEC_UNARY_(log2) NF_MVEC_UNARY_(log10) NF_MVEC_UNARY_(log1p)
NF_MVEC_UNARY_(cbrt)
NF_MVEC_BINARY_(atan2) NF_MVEC_BINARY_(hypot) NF_MVEC_BINARY_(pow)
}
#undef NF_MVEC_UNARY_
#undef NF_MVEC_BINARY_
#undef NF_MVEC_
#endif
