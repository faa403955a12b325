// The base every scalar kernel stands on, compiled by g++ for the CPU and by NVRTC for the GPU:
// tiny type traits (NVRTC has no <type_traits>), the compute-type categories the functors of
// scalar_ops.h select on, nf::pair for two-output ufuncs, and nf::m::, one overload set of real
// math functions that maps to <cmath> on the host and to CUDA's built-in math under NVRTC.
//
// Under NVRTC the kernel headers are concatenated as text, in this order:
//   nf_types.h, scalar_math.h, complex_math.h, scalar_ops.h
// so none of them may #include another one under __CUDACC_RTC__.
#pragma once

#ifndef __CUDACC_RTC__
#include <cmath>
#include <cstdint>
#include <cstring>

#include "numfuse/kernels/nf_types.h"
#endif

namespace nf {

// ---- type traits ------------------------------------------------------------------------------
namespace tt {
template <bool B, class T = int> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <bool B, class T = int> using enable_if_t = typename enable_if<B, T>::type;
template <class A, class B> struct is_same_s { static constexpr bool value = false; };
template <class A> struct is_same_s<A, A> { static constexpr bool value = true; };
template <class A, class B> constexpr bool is_same = is_same_s<A, B>::value;
template <bool B, class X, class Y> struct conditional_s { using type = X; };
template <class X, class Y> struct conditional_s<false, X, Y> { using type = Y; };
template <bool B, class X, class Y> using conditional_t = typename conditional_s<B, X, Y>::type;
}  // namespace tt

// The categories of compute types. Every functor in nf::sop enables its overloads by category,
// so "NumPy has a loop for this op on T" is "the functor is callable on T" (SFINAE-detectable).
enum class Kind { None, Bool, SInt, UInt, Float, Complex };
template <class T> struct kind_of { static constexpr Kind value = Kind::None; };
template <> struct kind_of<bool> { static constexpr Kind value = Kind::Bool; };
template <> struct kind_of<int8_t> { static constexpr Kind value = Kind::SInt; };
template <> struct kind_of<int16_t> { static constexpr Kind value = Kind::SInt; };
template <> struct kind_of<int32_t> { static constexpr Kind value = Kind::SInt; };
template <> struct kind_of<int64_t> { static constexpr Kind value = Kind::SInt; };
template <> struct kind_of<uint8_t> { static constexpr Kind value = Kind::UInt; };
template <> struct kind_of<uint16_t> { static constexpr Kind value = Kind::UInt; };
template <> struct kind_of<uint32_t> { static constexpr Kind value = Kind::UInt; };
template <> struct kind_of<uint64_t> { static constexpr Kind value = Kind::UInt; };
template <> struct kind_of<float> { static constexpr Kind value = Kind::Float; };
template <> struct kind_of<double> { static constexpr Kind value = Kind::Float; };
template <> struct kind_of<complex64> { static constexpr Kind value = Kind::Complex; };
template <> struct kind_of<complex128> { static constexpr Kind value = Kind::Complex; };

template <class T> constexpr bool is_bool_v = kind_of<T>::value == Kind::Bool;
template <class T> constexpr bool is_sint_v = kind_of<T>::value == Kind::SInt;
template <class T> constexpr bool is_uint_v = kind_of<T>::value == Kind::UInt;
template <class T> constexpr bool is_int_v = is_sint_v<T> || is_uint_v<T>;  // never bool
template <class T> constexpr bool is_flt_v = kind_of<T>::value == Kind::Float;
template <class T> constexpr bool is_cplx_v = kind_of<T>::value == Kind::Complex;
template <class T> constexpr bool is_real_v = is_int_v<T> || is_flt_v<T>;
template <class T> constexpr bool is_num_v = is_real_v<T> || is_cplx_v<T>;  // not bool
template <class T> constexpr bool is_any_v = is_bool_v<T> || is_num_v<T>;

// NF_REQUIRES(cond) as the last template parameter enables an overload only where cond holds.
#define NF_REQUIRES(...) ::nf::tt::enable_if_t<(__VA_ARGS__), int> = 0

// The unsigned type integer arithmetic wraps in: signed overflow is undefined in C++ but wraps
// in NumPy, and types narrower than int would otherwise promote to (signed, overflowing) int.
template <class T> struct wrap_type;
template <> struct wrap_type<int8_t> { using type = uint32_t; };
template <> struct wrap_type<uint8_t> { using type = uint32_t; };
template <> struct wrap_type<int16_t> { using type = uint32_t; };
template <> struct wrap_type<uint16_t> { using type = uint32_t; };
template <> struct wrap_type<int32_t> { using type = uint32_t; };
template <> struct wrap_type<uint32_t> { using type = uint32_t; };
template <> struct wrap_type<int64_t> { using type = uint64_t; };
template <> struct wrap_type<uint64_t> { using type = uint64_t; };
template <class T> using wrap_t = typename wrap_type<T>::type;

template <class T> struct int_limits;
#define NF_INT_LIMITS_(T, LO, HI)                        \
  template <> struct int_limits<T> {                     \
    static constexpr T min = LO;                         \
    static constexpr T max = HI;                         \
    static constexpr int bits = int(sizeof(T) * 8);      \
  };
NF_INT_LIMITS_(int8_t, -128, 127)
NF_INT_LIMITS_(uint8_t, 0, 255)
NF_INT_LIMITS_(int16_t, -32768, 32767)
NF_INT_LIMITS_(uint16_t, 0, 65535)
NF_INT_LIMITS_(int32_t, -2147483647 - 1, 2147483647)
NF_INT_LIMITS_(uint32_t, 0u, 4294967295u)
NF_INT_LIMITS_(int64_t, -9223372036854775807LL - 1, 9223372036854775807LL)
NF_INT_LIMITS_(uint64_t, 0ull, 18446744073709551615ull)
#undef NF_INT_LIMITS_

// The real type of a complex (complex64 -> float); other types map to themselves.
template <class T> struct real_of { using type = T; };
template <class T> struct real_of<complex<T>> { using type = T; };
template <class T> using real_t = typename real_of<T>::type;

// The result of a two-output ufunc (divmod, frexp, modf).
template <class A, class B>
struct pair {
  A first;
  B second;
};
template <class A, class B> NF_HD pair<A, B> make_pair(A a, B b) { return pair<A, B>{a, b}; }

// ---- real math: one overload set for float and double -----------------------------------------
namespace m {

#ifdef __CUDACC_RTC__
// CUDA's device math library: sinf for float, sin for double, all available without includes.
#define NF_M_UNARY_(name)                                    \
  NF_HD float name(float x) { return ::name##f(x); }         \
  NF_HD double name(double x) { return ::name(x); }
#define NF_M_BINARY_(name)                                            \
  NF_HD float name(float x, float y) { return ::name##f(x, y); }      \
  NF_HD double name(double x, double y) { return ::name(x, y); }
NF_HD float inf(float) { return __int_as_float(0x7f800000); }
NF_HD double inf(double) { return __longlong_as_double(0x7ff0000000000000LL); }
NF_HD float nan(float) { return __int_as_float(0x7fc00000); }
NF_HD double nan(double) { return __longlong_as_double(0x7ff8000000000000LL); }
NF_HD bool signbit(float x) { return __float_as_int(x) < 0; }
NF_HD bool signbit(double x) { return __double_as_longlong(x) < 0; }
NF_HD float frexp(float x, int* e) { return ::frexpf(x, e); }
NF_HD double frexp(double x, int* e) { return ::frexp(x, e); }
NF_HD float ldexp(float x, int e) { return ::ldexpf(x, e); }
NF_HD double ldexp(double x, int e) { return ::ldexp(x, e); }
NF_HD float modf(float x, float* i) { return ::modff(x, i); }
NF_HD double modf(double x, double* i) { return ::modf(x, i); }
#else
// std:: overloads resolve to GCC builtins (sinf, sin): with -fno-math-errno they are pure, and
// with backend/cpu/mvec_decls.h in scope GCC vectorises them through glibc's libmvec.
#define NF_M_UNARY_(name)                                   \
  inline float name(float x) { return std::name(x); }       \
  inline double name(double x) { return std::name(x); }
#define NF_M_BINARY_(name)                                           \
  inline float name(float x, float y) { return std::name(x, y); }    \
  inline double name(double x, double y) { return std::name(x, y); }
inline float inf(float) { return __builtin_huge_valf(); }
inline double inf(double) { return __builtin_huge_val(); }
inline float nan(float) { return __builtin_nanf(""); }
inline double nan(double) { return __builtin_nan(""); }
inline bool signbit(float x) { return std::signbit(x); }
inline bool signbit(double x) { return std::signbit(x); }
inline float frexp(float x, int* e) { return std::frexp(x, e); }
inline double frexp(double x, int* e) { return std::frexp(x, e); }
inline float ldexp(float x, int e) { return std::ldexp(x, e); }
inline double ldexp(double x, int e) { return std::ldexp(x, e); }
inline float modf(float x, float* i) { return std::modf(x, i); }
inline double modf(double x, double* i) { return std::modf(x, i); }
#endif

NF_M_UNARY_(sin) NF_M_UNARY_(cos) NF_M_UNARY_(tan)
NF_M_UNARY_(asin) NF_M_UNARY_(acos) NF_M_UNARY_(atan)
NF_M_UNARY_(sinh) NF_M_UNARY_(cosh) NF_M_UNARY_(tanh)
NF_M_UNARY_(asinh) NF_M_UNARY_(acosh) NF_M_UNARY_(atanh)
NF_M_UNARY_(exp) NF_M_UNARY_(exp2) NF_M_UNARY_(expm1)
NF_M_UNARY_(log) NF_M_UNARY_(log2) NF_M_UNARY_(log10) NF_M_UNARY_(log1p)
NF_M_UNARY_(sqrt) NF_M_UNARY_(cbrt) NF_M_UNARY_(fabs)
NF_M_UNARY_(floor) NF_M_UNARY_(ceil) NF_M_UNARY_(trunc) NF_M_UNARY_(rint)
NF_M_BINARY_(atan2) NF_M_BINARY_(hypot) NF_M_BINARY_(copysign) NF_M_BINARY_(nextafter)
NF_M_BINARY_(fmod) NF_M_BINARY_(pow)
#undef NF_M_UNARY_
#undef NF_M_BINARY_

// Classification written as comparisons: they vectorise, and need no library under NVRTC.
template <class T> NF_HD bool isnan(T x) { return x != x; }
template <class T> NF_HD bool isinf(T x) { return fabs(x) == inf(x); }
template <class T> NF_HD bool isfinite(T x) { return fabs(x) < inf(x); }

template <class T> NF_HD constexpr T pi() { return T(3.14159265358979323846264338327950288); }
template <class T> NF_HD constexpr T ln2() { return T(0.693147180559945309417232121458176568); }
template <class T> NF_HD constexpr T log2e() { return T(1.44269504088896340735992468100189214); }
template <class T> NF_HD constexpr T log10e() { return T(0.434294481903251827651128918916605082); }

// Quiet ordered comparisons: no invalid flag for a NaN operand (C's < raises it on the CPU), as
// NumPy's isless/isgreater in npy_divmod. Kernels have no status flags to disturb.
template <class T> NF_HD bool quiet_less(T a, T b) {
#ifdef NF_DEVICE_CODE
  return a < b;
#else
  return __builtin_isless(a, b);
#endif
}
template <class T> NF_HD bool quiet_greater(T a, T b) {
#ifdef NF_DEVICE_CODE
  return a > b;
#else
  return __builtin_isgreater(a, b);
#endif
}

}  // namespace m
}  // namespace nf
