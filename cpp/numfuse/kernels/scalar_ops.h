// Every scalar op of numfuse, defined once. The CPU loops (backend/cpu/ufunc_loops_*.cpp) call
// these functors in typed loops; the CUDA code generator prepends this header (after
// nf_types.h, scalar_math.h, complex_math.h) to its NVRTC source and calls the same functors.
//
// For each ufunc E of NF_FOR_EACH_UFUNC there is a functor nf::sop::E whose operator() is
// callable exactly on the compute types NumPy has a loop for (float16 loops compute in float),
// so SFINAE on "callable with T" tells whether a loop exists. Results follow NumPy 2 bit for bit
// where NumPy defines them (integer wrap-around, division by zero, shifts, NaN propagation).
#pragma once

#ifndef __CUDACC_RTC__
#include "numfuse/kernels/complex_math.h"
#include "numfuse/kernels/scalar_math.h"
#endif

namespace nf {

// ---- floating-point conditions that no FP instruction raises -------------------------------
// NumPy reports integer division by zero (and MIN // -1) through the floating-point status, as
// "divide by zero encountered in floor_divide": integer loops raise the same FpFlag bits
// (core/fp_status.h) here, into the thread's status flags, which the CPU interpreter reads after
// each step. Generated CUDA kernels judge every condition from the step's values instead
// (kernels/fp_check.h, emitted per step by backend/cuda/fp_check_cuda.cpp): there fp_raise is
// nothing, so that division pays no atomic.
enum FpRaise : unsigned { kRaiseDivide = 1, kRaiseOverflow = 2, kRaiseInvalid = 8 };
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
__host__ __device__ __forceinline__ void fp_raise(unsigned) {}
#else
void fp_hw_raise(uint8_t flags);  // core/fp_status.cpp
inline void fp_raise(unsigned flags) { fp_hw_raise(static_cast<uint8_t>(flags)); }
// floor_divide/remainder/divmod of a NaN or infinite operand (sop::divmod_flagged below):
uint8_t divmod_nonfinite_enter();  // core/divmod_flags.cpp: the flags so far (bit 7: a table)
void divmod_nonfinite_leave(uint8_t saved, int op, int is_double, int class_a, int class_b);
#endif

// ---- casts ------------------------------------------------------------------------------------
namespace detail {

// float -> int32/int64 as x86-64's cvttsd2si: out-of-range and NaN give the minimum value.
NF_HD int32_t cvt_i32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? int32_t(x) : int32_t(-2147483647 - 1);
}
NF_HD int64_t cvt_i64(double x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
             ? int64_t(x)
             : int64_t(-9223372036854775807LL - 1);
}

// NumPy casts floats to integers with a C cast, which is undefined out of range; these reproduce
// what its x86-64 build produces (checked against numpy 2.4): narrow types truncate the int32
// conversion, unsigned types convert x - 2^(n-1) for the upper half of the range.
template <class To> NF_HD To float_to_int(double x) {
  if constexpr (tt::is_same<To, int64_t>) {
    return cvt_i64(x);
  } else if constexpr (tt::is_same<To, uint64_t>) {
    if (x >= 9223372036854775808.0) return uint64_t(cvt_i64(x - 9223372036854775808.0)) ^ (1ull << 63);
    return uint64_t(cvt_i64(x));
  } else if constexpr (tt::is_same<To, uint32_t>) {
    if (x >= 2147483648.0) return uint32_t(cvt_i32(x - 2147483648.0)) ^ 0x80000000u;
    return uint32_t(cvt_i32(x));
  } else {
    return To(cvt_i32(x));  // int8, uint8, int16, uint16 keep the low bits; int32 is exact
  }
}

// Whether float_to_int<To>(x) left the range its hardware conversion handles: where NumPy's C
// cast raises the invalid flag ("invalid value encountered in cast"). NaN is outside every range.
template <class To> NF_HD bool float_to_int_invalid(double x) {
  if constexpr (tt::is_same<To, int64_t>) {
    return !(x >= -9223372036854775808.0 && x < 9223372036854775808.0);
  } else if constexpr (tt::is_same<To, uint64_t>) {
    return !(x >= -9223372036854775808.0 && x < 18446744073709551616.0);
  } else if constexpr (tt::is_same<To, uint32_t>) {
    return !(x > -2147483649.0 && x < 4294967296.0);
  } else {
    return !(x > -2147483649.0 && x < 2147483648.0);
  }
}

// Rounds once from double to binary16 (float first would round twice).
NF_HD half double_to_half(double x) {
  half h;
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  h.bits = __half_as_ushort(__double2half(x));
#else
  _Float16 v = static_cast<_Float16>(x);
  std::memcpy(&h.bits, &v, 2);
#endif
  return h;
}

}  // namespace detail

// NumPy's astype between compute types and float16 storage: x -> bool is x != 0, complex -> real
// drops the imaginary part, float -> int truncates (out of range: see detail::float_to_int),
// int -> int wraps.
template <class To, class From> NF_HD To convert(From x) {
  if constexpr (tt::is_same<To, From>) {
    return x;
  } else if constexpr (tt::is_same<From, half>) {
    return convert<To>(static_cast<float>(x));
  } else if constexpr (tt::is_same<To, bool>) {
    return x != From(0);
  } else if constexpr (is_cplx_v<From>) {
    if constexpr (is_cplx_v<To>) return To(x);
    else return convert<To>(x.re);
  } else if constexpr (tt::is_same<To, half>) {
    if constexpr (tt::is_same<From, float>) return half(x);
    else return detail::double_to_half(static_cast<double>(x));
  } else if constexpr (is_cplx_v<To>) {
    return To(convert<real_t<To>>(x), real_t<To>(0));
  } else if constexpr (is_flt_v<From> && is_int_v<To>) {
    return detail::float_to_int<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(x);
  }
}

// Truth value as NumPy's logical ufuncs see it.
template <class T> NF_HD bool truth(T x) {
  if constexpr (is_cplx_v<T>) return x.re != 0 || x.im != 0;
  else return x != T(0);
}

namespace sop {

// ---- integer and float division helpers ------------------------------------------------------

// Python's floor division; x // 0 is 0 and MIN // -1 wraps to MIN, as NumPy, which also raises
// the divide-by-zero / overflow flags.
template <class T> NF_HD T int_floor_div(T a, T b) {
  if (b == 0) {
    fp_raise(kRaiseDivide);
    return T(0);
  }
  if constexpr (is_sint_v<T>) {
    if (b == T(-1)) {
      if (a == T(T(1) << (sizeof(T) * 8 - 1))) fp_raise(kRaiseOverflow);
      return T(wrap_t<T>(0) - wrap_t<T>(a));
    }
    T q = T(a / b);
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return T(a / b);
  }
}
// Python's modulo: the sign of the divisor; x % 0 is 0.
template <class T> NF_HD T int_remainder(T a, T b) {
  if (b == 0) {
    fp_raise(kRaiseDivide);
    return T(0);
  }
  if constexpr (is_sint_v<T>) {
    if (b == T(-1)) return T(0);  // MIN % -1 traps on x86
    T r = T(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
    return r;
  } else {
    return T(a % b);
  }
}
// NumPy's npy_divmod: floor quotient and remainder with the divisor's sign, the quotient snapped
// to the nearest integer so that it agrees with the remainder.
template <class T> NF_HD T flt_divmod(T a, T b, T* modulus) {
  T mod = m::fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod != 0) {
    if (m::quiet_less(b, T(0)) != m::quiet_less(mod, T(0))) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = m::copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = m::floor(div);
    if (m::quiet_greater(div - floordiv, T(0.5))) floordiv += T(1);
  } else {
    floordiv = m::copysign(T(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}

// ---- floor_divide, remainder and divmod of NaN or infinite operands, or by zero ----------------
// NumPy's flags for them depend on its build and libm (core/divmod_flags.h): NumPy 2.4 here and
// 2.5 on the GPU machine differ for `nan // 1.0` and for `x % 0.0`. On the host, where a table
// probed from the installed NumPy is present, such an element raises exactly the table's flags
// instead of what its arithmetic raised; generated CUDA kernels look the same table up
// (kernels/fp_check.h). Classes: 0 NaN, 1 +inf, 2 -inf, 3 +0, 4 -0, 5 positive, 6 negative.
template <class T> NF_HD int divmod_class(T v) {
  if (v != v) return 0;
  if (m::isinf(v)) return v > T(0) ? 1 : 2;
  if (v == T(0)) return m::copysign(T(1), v) > T(0) ? 3 : 4;
  return v > T(0) ? 5 : 6;
}
// The elements whose flags come from the table: a NaN or infinite operand, or a zero divisor.
template <class T> NF_HD bool divmod_by_table(T a, T b) {
  return !(m::isfinite(a) && m::isfinite(b)) || b == T(0);
}
template <int Op, class T, class F> NF_HD auto divmod_flagged(T a, T b, F compute) {
#if !defined(__CUDACC_RTC__) && !defined(__CUDACC__)
  if (divmod_by_table(a, b)) {
    const uint8_t saved = divmod_nonfinite_enter();
    if (saved & 0x80) {
      auto r = compute();
      divmod_nonfinite_leave(saved, Op, sizeof(T) == 8, divmod_class(a), divmod_class(b));
      return r;
    }
  }
#endif
  return compute();
}

// ---- arithmetic -------------------------------------------------------------------------------

struct Add {
  template <class T, NF_REQUIRES(is_bool_v<T>)> NF_HD T operator()(T a, T b) const { return a || b; }
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return T(wrap_t<T>(a) + wrap_t<T>(b));
  }
  template <class T, NF_REQUIRES(is_flt_v<T> || is_cplx_v<T>)>
  NF_HD T operator()(T a, T b) const { return a + b; }
};

struct Subtract {  // no bool loop: NumPy refuses boolean subtraction
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return T(wrap_t<T>(a) - wrap_t<T>(b));
  }
  template <class T, NF_REQUIRES(is_flt_v<T> || is_cplx_v<T>)>
  NF_HD T operator()(T a, T b) const { return a - b; }
};

struct Multiply {
  template <class T, NF_REQUIRES(is_bool_v<T>)> NF_HD T operator()(T a, T b) const { return a && b; }
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return T(wrap_t<T>(a) * wrap_t<T>(b));
  }
  template <class T, NF_REQUIRES(is_flt_v<T> || is_cplx_v<T>)>
  NF_HD T operator()(T a, T b) const { return a * b; }
};

struct TrueDivide {  // integer inputs are cast to float64 by type resolution
  template <class T, NF_REQUIRES(is_flt_v<T> || is_cplx_v<T>)>
  NF_HD T operator()(T a, T b) const { return a / b; }
};

struct FloorDivide {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return int_floor_div(a, b);
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return divmod_flagged<0>(a, b, [&] {
      if (b == 0) return a / b;
      T mod;
      return flt_divmod(a, b, &mod);
    });
  }
};

struct Remainder {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return int_remainder(a, b);
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return divmod_flagged<1>(a, b, [&] {
      if (b == 0) return m::fmod(a, b);
      T mod;
      flt_divmod(a, b, &mod);
      return mod;
    });
  }
};

struct Divmod {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD pair<T, T> operator()(T a, T b) const {
    return {int_floor_div(a, b), int_remainder(a, b)};
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD pair<T, T> operator()(T a, T b) const {
    return divmod_flagged<2>(a, b, [&] {
      T mod;
      T div = flt_divmod(a, b, &mod);
      return pair<T, T>{div, mod};
    });
  }
};

struct Fmod {  // C semantics: the sign of the dividend
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    if (b == 0) {
      fp_raise(kRaiseDivide);
      return T(0);
    }
    if constexpr (is_sint_v<T>) {
      if (b == T(-1)) return T(0);
    }
    return T(a % b);
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const { return m::fmod(a, b); }
};

struct Power {
  // Repeated squaring, wrapping. A negative exponent gives 0 here; the Python layer raises
  // "Integers to negative integer powers are not allowed" before calling.
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    if constexpr (is_sint_v<T>) {
      if (b < 0) return T(0);
    }
    using W = wrap_t<T>;
    W base = W(a), out = 1, e = W(b);
    while (e != 0) {
      if (e & 1) out = W(out * base);
      base = W(base * base);
      e >>= 1;
    }
    return T(out);
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const { return m::pow(a, b); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a, T b) const { return cm::pow(a, b); }
};

struct FloatPower {  // NumPy's loops are 'dd->d' and 'DD->D' only
  template <class T, NF_REQUIRES(tt::is_same<T, double>)> NF_HD T operator()(T a, T b) const {
    return m::pow(a, b);
  }
  template <class T, NF_REQUIRES(tt::is_same<T, complex128>)> NF_HD T operator()(T a, T b) const {
    return cm::pow(a, b);
  }
};

// ---- maximum / minimum ------------------------------------------------------------------------
// NumPy orders complex numbers lexicographically; a NaN in either part of the left operand
// propagates (maximum/minimum), a NaN in the right one is skipped (fmax/fmin).
template <class T> NF_HD bool cplx_nan(complex<T> z) { return m::isnan(z.re) || m::isnan(z.im); }
template <class T> NF_HD bool cplx_ge(complex<T> a, complex<T> b) {
  return (a.re > b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im >= b.im);
}
template <class T> NF_HD bool cplx_le(complex<T> a, complex<T> b) {
  return (a.re < b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im <= b.im);
}
template <class T> NF_HD bool cplx_gt(complex<T> a, complex<T> b) {
  return (a.re > b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im > b.im);
}
template <class T> NF_HD bool cplx_lt(complex<T> a, complex<T> b) {
  return (a.re < b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im < b.im);
}

struct Maximum {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return a > b ? a : b; }
  // Equal operands (signed zeros) give b, NaN in either gives NaN: as NumPy's SIMD loops.
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return (a > b || m::isnan(a)) ? a : b;
  }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a, T b) const {
    return (cplx_nan(a) || cplx_ge(a, b)) ? a : b;
  }
};
struct Minimum {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return a < b ? a : b; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return (a < b || m::isnan(a)) ? a : b;
  }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a, T b) const {
    return (cplx_nan(a) || cplx_le(a, b)) ? a : b;
  }
};
struct Fmax {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return a > b ? a : b; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return (a > b || m::isnan(b)) ? a : b;
  }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a, T b) const {
    return (cplx_nan(b) || cplx_ge(a, b)) ? a : b;
  }
};
struct Fmin {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return a < b ? a : b; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const {
    return (a < b || m::isnan(b)) ? a : b;
  }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a, T b) const {
    return (cplx_nan(b) || cplx_le(a, b)) ? a : b;
  }
};

// ---- comparisons and logic (all return bool) --------------------------------------------------
// Exact three-way comparison of int64 with uint64: NumPy compares them without promotion.
NF_HD int cmp_mixed(int64_t a, uint64_t b) {
  if (a < 0) return -1;
  return uint64_t(a) < b ? -1 : (uint64_t(a) == b ? 0 : 1);
}
#define NF_COMPARISON_(E, OP, CPLX)                                                      \
  struct E {                                                                             \
    template <class T, NF_REQUIRES(is_bool_v<T> || is_real_v<T>)>                        \
    NF_HD bool operator()(T a, T b) const { return a OP b; }                             \
    NF_HD bool operator()(int64_t a, uint64_t b) const { return cmp_mixed(a, b) OP 0; }  \
    NF_HD bool operator()(uint64_t a, int64_t b) const { return 0 OP cmp_mixed(b, a); }  \
    template <class T, NF_REQUIRES(is_cplx_v<T>)>                                        \
    NF_HD bool operator()(T a, T b) const { return CPLX; }                               \
  };
NF_COMPARISON_(Equal, ==, a.re == b.re && a.im == b.im)
NF_COMPARISON_(NotEqual, !=, a.re != b.re || a.im != b.im)
NF_COMPARISON_(Less, <, cplx_lt(a, b))
NF_COMPARISON_(LessEqual, <=, cplx_le(a, b))
NF_COMPARISON_(Greater, >, cplx_gt(a, b))
NF_COMPARISON_(GreaterEqual, >=, cplx_ge(a, b))
#undef NF_COMPARISON_

// & and |, not && and ||: both operands are read anyway, and the short circuit is a branch per
// element that loops cannot vectorise and that mispredicts on masks (logical_and of two
// comparisons of 4e5 random doubles took 580 us against `&`'s 21).
struct LogicalAnd {
  template <class T, NF_REQUIRES(is_any_v<T>)> NF_HD bool operator()(T a, T b) const {
    return truth(a) & truth(b);
  }
};
struct LogicalOr {
  template <class T, NF_REQUIRES(is_any_v<T>)> NF_HD bool operator()(T a, T b) const {
    return truth(a) | truth(b);
  }
};
struct LogicalXor {
  template <class T, NF_REQUIRES(is_any_v<T>)> NF_HD bool operator()(T a, T b) const {
    return truth(a) != truth(b);
  }
};
struct LogicalNot {
  template <class T, NF_REQUIRES(is_any_v<T>)> NF_HD bool operator()(T a) const { return !truth(a); }
};

// ---- bitwise ----------------------------------------------------------------------------------
struct BitwiseAnd {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return T(a & b); }
};
struct BitwiseOr {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return T(a | b); }
};
struct BitwiseXor {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>
  NF_HD T operator()(T a, T b) const { return T(a ^ b); }
};
struct Invert {
  template <class T, NF_REQUIRES(is_bool_v<T>)> NF_HD T operator()(T a) const { return !a; }
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a) const { return T(~a); }
};
// Shifts by a count outside [0, bits) give 0 (and -1 for a right shift of a negative value), as
// NumPy's npy_lshift/npy_rshift; C leaves them undefined.
struct LeftShift {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return uint64_t(b) < uint64_t(int_limits<T>::bits) ? T(wrap_t<T>(a) << b) : T(0);
  }
};
struct RightShift {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    if (uint64_t(b) < uint64_t(int_limits<T>::bits)) return T(a >> b);
    return (is_sint_v<T> && a < T(0)) ? T(-1) : T(0);
  }
};

// ---- binary float functions -------------------------------------------------------------------
#define NF_BINARY_FLOAT_(E, FN)                                                                 \
  struct E {                                                                                    \
    template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a, T b) const { return FN; } \
  };
NF_BINARY_FLOAT_(Arctan2, m::atan2(a, b))
NF_BINARY_FLOAT_(Hypot, m::hypot(a, b))
NF_BINARY_FLOAT_(Copysign, m::copysign(a, b))
NF_BINARY_FLOAT_(Nextafter, m::nextafter(a, b))
#undef NF_BINARY_FLOAT_

// nextafter in half precision (float16 loops otherwise compute in float): steps the bit pattern.
NF_HD uint16_t nextafter_half_bits(uint16_t a, uint16_t b) {
  const uint16_t abs_a = a & 0x7fff, abs_b = b & 0x7fff;
  if (abs_a > 0x7c00) return a;  // NaN
  if (abs_b > 0x7c00) return b;
  if (a == b || (abs_a == 0 && abs_b == 0)) return b;
  if (abs_a == 0) return uint16_t((b & 0x8000) | 1);  // smallest subnormal towards b
  const bool a_neg = a & 0x8000, b_neg = b & 0x8000;
  // Magnitude grows when b lies further from zero on a's side.
  const bool away = (a_neg == b_neg) && (abs_b > abs_a);
  return away ? uint16_t(a + 1) : uint16_t(a - 1);
}

// The same on float16 values carried as float (as the CUDA code generator carries them).
NF_HD float nextafter_half_value(float a, float b) {
  return half::to_float(nextafter_half_bits(half::from_float(a), half::from_float(b)));
}

struct Ldexp {  // exponents beyond int saturate, so ldexp(x, 2**40) is inf as in NumPy
  template <class T, class I,
            NF_REQUIRES(is_flt_v<T> && (tt::is_same<I, int32_t> || tt::is_same<I, int64_t>))>
  NF_HD T operator()(T a, I b) const {
    const int e = b > I(2147483647) ? 2147483647 : b < I(-2147483647 - 1) ? -2147483647 - 1 : int(b);
    return m::ldexp(a, e);
  }
};

struct Heaviside {  // heaviside(x, h0): h0 where x == 0
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T x, T h0) const {
    if (m::isnan(x)) return m::nan(x);
    if (x == 0) return h0;
    return x < 0 ? T(0) : T(1);
  }
};

// log(exp(x) + exp(y)) without overflow: the larger argument plus log1p of a number <= 1.
struct Logaddexp {
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T x, T y) const {
    if (x == y) return x + m::ln2<T>();  // same-signed infinities without inf - inf
    const T d = x - y;
    if (d > 0) return x + m::log1p(m::exp(-d));
    if (d <= 0) return y + m::log1p(m::exp(d));
    return d;  // NaN
  }
};
struct Logaddexp2 {
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T x, T y) const {
    if (x == y) return x + T(1);
    const T d = x - y;
    if (d > 0) return x + m::log2e<T>() * m::log1p(m::exp2(-d));
    if (d <= 0) return y + m::log2e<T>() * m::log1p(m::exp2(d));
    return d;
  }
};

// ---- unary arithmetic -------------------------------------------------------------------------
struct Negative {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a) const {
    return T(wrap_t<T>(0) - wrap_t<T>(a));
  }
  template <class T, NF_REQUIRES(is_flt_v<T> || is_cplx_v<T>)> NF_HD T operator()(T a) const { return -a; }
};
struct Positive {
  template <class T, NF_REQUIRES(is_num_v<T>)> NF_HD T operator()(T a) const { return a; }
};
struct Absolute {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_uint_v<T>)> NF_HD T operator()(T a) const { return a; }
  template <class T, NF_REQUIRES(is_sint_v<T>)> NF_HD T operator()(T a) const {
    return a < 0 ? T(wrap_t<T>(0) - wrap_t<T>(a)) : a;  // abs(MIN) stays MIN
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return m::fabs(a); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD real_t<T> operator()(T a) const { return cm::abs(a); }
};
struct Fabs {
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return m::fabs(a); }
};
struct Sign {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a) const {
    return T((a > T(0)) - (a < T(0)));
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const {
    return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;  // NaN stays NaN, -0 gives +0
  }
  // NumPy 2: z / |z|; infinite parts give the unit direction, 0 gives 0, NaN gives NaN.
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T z) const {
    using R = real_t<T>;
    const R h = m::hypot(z.re, z.im);
    if (m::isnan(h)) return T(m::nan(h), m::nan(h));
    if (m::isinf(h)) {
      if (m::isinf(z.re)) {
        if (m::isinf(z.im)) return T(m::nan(h), m::nan(h));
        return T(z.re > 0 ? R(1) : R(-1), R(0));
      }
      return T(R(0), z.im > 0 ? R(1) : R(-1));
    }
    if (h == 0) return T(R(0), R(0));
    return T(z.re / h, z.im / h);
  }
};
struct Conjugate {
  template <class T, NF_REQUIRES(is_real_v<T>)> NF_HD T operator()(T a) const { return a; }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a) const { return T(a.re, -a.im); }
};
struct Square {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a) const {
    return T(wrap_t<T>(a) * wrap_t<T>(a));
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return a * a; }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a) const { return cm::square(a); }
};
struct Reciprocal {
  // NumPy computes 1.0 / x in double and casts back: 1/0 is the cast of inf (INT_MIN for
  // int32/int64, 0 for the narrow and unsigned types).
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a) const {
    return convert<T>(1.0 / static_cast<double>(a));
  }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return T(1) / a; }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a) const { return cm::reciprocal(a); }
};

// ---- transcendental ---------------------------------------------------------------------------
#define NF_UNARY_FLOAT_(E, FN)                                                               \
  struct E {                                                                                 \
    template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return FN(a); } \
  };
#define NF_UNARY_FLOAT_CPLX_(E, FN)                                                          \
  struct E {                                                                                 \
    template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return m::FN(a); } \
    template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a) const { return cm::FN(a); } \
  };
NF_UNARY_FLOAT_CPLX_(Sqrt, sqrt)
NF_UNARY_FLOAT_(Cbrt, m::cbrt)
NF_UNARY_FLOAT_CPLX_(Exp, exp)
NF_UNARY_FLOAT_CPLX_(Exp2, exp2)
NF_UNARY_FLOAT_CPLX_(Expm1, expm1)
NF_UNARY_FLOAT_CPLX_(Log, log)
NF_UNARY_FLOAT_CPLX_(Log2, log2)
NF_UNARY_FLOAT_CPLX_(Log10, log10)
NF_UNARY_FLOAT_CPLX_(Log1p, log1p)
NF_UNARY_FLOAT_CPLX_(Sin, sin)
NF_UNARY_FLOAT_CPLX_(Cos, cos)
NF_UNARY_FLOAT_CPLX_(Tan, tan)
NF_UNARY_FLOAT_CPLX_(Arcsin, asin)
NF_UNARY_FLOAT_CPLX_(Arccos, acos)
NF_UNARY_FLOAT_CPLX_(Arctan, atan)
NF_UNARY_FLOAT_CPLX_(Sinh, sinh)
NF_UNARY_FLOAT_CPLX_(Cosh, cosh)
NF_UNARY_FLOAT_CPLX_(Tanh, tanh)
NF_UNARY_FLOAT_CPLX_(Arcsinh, asinh)
NF_UNARY_FLOAT_CPLX_(Arccosh, acosh)
NF_UNARY_FLOAT_CPLX_(Arctanh, atanh)
#undef NF_UNARY_FLOAT_CPLX_

template <class T> NF_HD T deg2rad(T a) { return a * (m::pi<T>() / T(180)); }
template <class T> NF_HD T rad2deg(T a) { return a * (T(180) / m::pi<T>()); }
NF_UNARY_FLOAT_(Deg2rad, deg2rad)
NF_UNARY_FLOAT_(Rad2deg, rad2deg)
#undef NF_UNARY_FLOAT_

// ---- rounding (identity on bool and integers, which NumPy 2 has loops for) ---------------------
#define NF_ROUNDING_(E, FN)                                                                  \
  struct E {                                                                                 \
    template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)>                             \
    NF_HD T operator()(T a) const { return a; }                                              \
    template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return FN(a); } \
  };
NF_ROUNDING_(Floor, m::floor)
NF_ROUNDING_(Ceil, m::ceil)
NF_ROUNDING_(Trunc, m::trunc)
#undef NF_ROUNDING_
struct Rint {  // round half to even (the default rounding mode); complex rounds both parts
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T a) const { return m::rint(a); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD T operator()(T a) const {
    return T(m::rint(a.re), m::rint(a.im));
  }
};

// ---- classification ---------------------------------------------------------------------------
struct Isnan {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)> NF_HD bool operator()(T) const { return false; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD bool operator()(T a) const { return m::isnan(a); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD bool operator()(T a) const {
    return m::isnan(a.re) || m::isnan(a.im);
  }
};
struct Isinf {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)> NF_HD bool operator()(T) const { return false; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD bool operator()(T a) const { return m::isinf(a); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD bool operator()(T a) const {
    return m::isinf(a.re) || m::isinf(a.im);
  }
};
struct Isfinite {
  template <class T, NF_REQUIRES(is_bool_v<T> || is_int_v<T>)> NF_HD bool operator()(T) const { return true; }
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD bool operator()(T a) const { return m::isfinite(a); }
  template <class T, NF_REQUIRES(is_cplx_v<T>)> NF_HD bool operator()(T a) const {
    return m::isfinite(a.re) && m::isfinite(a.im);
  }
};
struct Signbit {
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD bool operator()(T a) const { return m::signbit(a); }
};

// ---- two outputs ------------------------------------------------------------------------------
struct Frexp {  // (mantissa, exponent); inf and NaN give exponent 0 as glibc does
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD pair<T, int32_t> operator()(T a) const {
    if (!m::isfinite(a)) return {a, 0};
    int e = 0;
    const T mant = m::frexp(a, &e);
    return {mant, int32_t(e)};
  }
};
struct Modf {  // (fractional part, integral part)
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD pair<T, T> operator()(T a) const {
    T ip;
    const T frac = m::modf(a, &ip);
    return {frac, ip};
  }
};

// ---- number theory and bits (gcd, lcm, bitwise_count, spacing) -------------------------------
// |a| as an unsigned 64-bit number: abs(MIN) is 2^(bits-1), as NumPy's C `a < 0 ? -a : a` gives
// once converted to the unsigned type its npy_gcdu/npy_lcmu work in.
template <class T> NF_HD uint64_t magnitude_u64(T a) {
  if constexpr (is_sint_v<T>) {
    return a < T(0) ? uint64_t(0) - uint64_t(int64_t(a)) : uint64_t(a);
  } else {
    return uint64_t(a);
  }
}
NF_HD uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
// Population count without intrinsics, so that host and NVRTC share it.
NF_HD uint8_t popcount_u64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return uint8_t((v * 0x0101010101010101ull) >> 56);
}

// gcd and lcm of the magnitudes; results wrap into T (gcd(MIN, 0) is MIN, lcm overflows modulo
// 2^bits) exactly as NumPy's loops, whose unsigned arithmetic agrees in the low bits with ours.
struct Gcd {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    return T(gcd_u64(magnitude_u64(a), magnitude_u64(b)));
  }
};
struct Lcm {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD T operator()(T a, T b) const {
    const uint64_t x = magnitude_u64(a), y = magnitude_u64(b), g = gcd_u64(x, y);
    return g == 0 ? T(0) : T((x / g) * y);
  }
};
// The 1-bits of |x| (NumPy 2's bitwise_count): uint8 for every integer type.
struct BitwiseCount {
  template <class T, NF_REQUIRES(is_int_v<T>)> NF_HD uint8_t operator()(T a) const {
    return popcount_u64(magnitude_u64(a));
  }
};
// The next float away from zero: the bit pattern's magnitude plus one (libm's nextafter is a
// call per element, 3.5x slower than NumPy's loop in bench/numerical_cpu.py).
NF_HD float next_away_from_zero(float x) {
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  return __int_as_float(__float_as_int(x) + 1);
#else
  uint32_t b;
  std::memcpy(&b, &x, 4);
  ++b;
  std::memcpy(&x, &b, 4);
  return x;
#endif
}
NF_HD double next_away_from_zero(double x) {
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  return __longlong_as_double(__double_as_longlong(x) + 1);
#else
  uint64_t b;
  std::memcpy(&b, &x, 8);
  ++b;
  std::memcpy(&x, &b, 8);
  return x;
#endif
}
// The distance to the next number away from zero (npy_spacing): inf and NaN give NaN, +-0 the
// smallest positive subnormal, the largest finite number infinity (raising overflow as
// nextafter does: x * 2 overflows there).
struct Spacing {
  template <class T, NF_REQUIRES(is_flt_v<T>)> NF_HD T operator()(T x) const {
    if (m::isinf(x) || m::isnan(x)) return m::nan(x);
    if (x == T(0)) return next_away_from_zero(T(0));
    const T next = next_away_from_zero(x);
    if (m::isinf(next)) return x * T(2);
    return next - x;
  }
};
// float16's spacing (npy_half_spacing), carried as float: always positive; below a negative
// power of two it is the smaller step towards zero; inf and NaN give NaN raising invalid, 65504
// gives inf raising overflow.
NF_HD float spacing_half_value(float x) {
  if (m::isnan(x) || m::isinf(x)) return x - x;
  if (x == 65504.0f) return x * 1.0e35f;  // overflows at run time, raising the flag
  const float a = m::fabs(x);
  const float smallest = 5.9604644775390625e-08f;  // 2^-24
  if (a < 6.103515625e-05f) return smallest;       // below 2^-14: subnormal steps
  int e = 0;
  m::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const float ulp = m::ldexp(1.0f, e - 11);
  if (x < 0 && a == m::ldexp(1.0f, e - 1)) return ulp * 0.5f < smallest ? smallest : ulp * 0.5f;
  return ulp;
}

}  // namespace sop
}  // namespace nf
