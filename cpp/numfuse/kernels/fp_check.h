// NumPy's floating-point conditions (numpy.errstate) judged from values, for generated CUDA
// kernels, which have no status flags to read: after each checked step the kernel asks
// `suspect(result)` (one compare for a real result) and only then classifies the operands and sets
// the step's bits in the launch's flag words (backend/cuda/fp_check_cuda.h). The rule is the one
// the CPU applies to its hardware flags (backend/cpu/fp_check_cpu.cpp's fp_justified_flags):
// invalid is a NaN made from non-NaN operands, overflow an infinity made from finite ones, divide
// an infinity made from finite operands one of which is zero (a pole).
#pragma once

#ifndef __CUDACC_RTC__
#include "numfuse/kernels/scalar_ops.h"
#endif

namespace nf {
namespace fpc {

// The condition bits, as core/fp_status.h's FpFlag (NumPy's own numbering).
enum : unsigned { kDivide = 1, kOverflow = 2, kInvalid = 8 };

// A value's class: 1 NaN, 2 infinite, 4 zero, 0 anything else. A complex number has the NaN and
// infinite bits of either part and the zero bit when both parts are zero.
template <class T>
NF_HD unsigned value_class(T v) {
  if constexpr (is_cplx_v<T>) {
    const unsigned a = value_class(v.re), b = value_class(v.im);
    return ((a | b) & 3u) | (a & b & 4u);
  } else if constexpr (is_flt_v<T>) {
    return v != v ? 1u : (v - v != v - v) ? 2u : v == T(0) ? 4u : 0u;  // inf - inf is NaN
  } else {
    return v == T(0) ? 4u : 0u;
  }
}

// Whether a result can carry a condition at all: NaN or infinite (the one test on the fast path).
template <class T>
NF_HD bool suspect(T r) {
  if constexpr (is_cplx_v<T>) {
    return suspect(r.re) || suspect(r.im);
  } else if constexpr (is_flt_v<T>) {
    return !(r - r == T(0));  // false for every finite r, true for NaN and inf, one subtraction
  } else {
    return false;
  }
}

// The conditions a non-finite result `r` of operands `a...` shows (complex 1/0 is inf+nanj:
// divide and invalid, as NumPy reports it).
template <class R, class... A>
NF_HD unsigned judge(R r, A... a) {
  const unsigned c = value_class(r), in = (0u | ... | value_class(a));
  unsigned f = 0u;
  if ((c & 1u) && !(in & 1u)) f |= kInvalid;
  if ((c & 2u) && !(in & 3u)) f |= (in & 4u) ? kDivide : kOverflow;
  return f;
}

// Functions whose pole is not at zero (arctanh(1), log1p(-1)): an infinity made from finite
// operands there is a division by zero.
template <class R, class... A>
NF_HD unsigned judge_pole(R r, A... a) {
  const unsigned f = judge(r, a...);
  return (f & kOverflow) ? (f & ~kOverflow) | kDivide : f;
}

// power: 0 ** -inf is a division by zero too (NumPy), though an operand is infinite.
template <class R, class A, class B>
NF_HD unsigned judge_power(R r, A a, B b) {
  const unsigned f = judge(r, a, b);
  if (value_class(r) == 2u && value_class(a) == 4u && !(value_class(b) & 1u)) return f | kDivide;
  return f;
}

// floor_divide, remainder and divmod with a NaN or infinite operand or a zero divisor: the flags the installed
// NumPy reports for that pair of value classes (core/divmod_flags.h), from `table`, the 49
// entries of the step's op and precision that the code generator emits as constants.
template <class T>
NF_HD unsigned judge_divmod(const unsigned char* table, T a, T b) {
  return table[sop::divmod_class(a) * 7 + sop::divmod_class(b)];
}

// Integer division and remainder by zero ("divide by zero encountered in floor_divide"), and
// MIN // -1 (overflow), as NumPy's integer loops raise them.
template <class T>
NF_HD unsigned int_division(T a, T b, bool floor_division) {
  if (b == T(0)) return kDivide;
  if constexpr (is_sint_v<T>) {
    if (floor_division && b == T(-1) && a == T(T(1) << (sizeof(T) * 8 - 1))) return kOverflow;
  }
  return 0u;
}

// Sets `bits` in the flag word `w`: read first, so that a condition met by every element costs
// one atomic per warp that sees the bit unset, not one per element.
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
__device__ __forceinline__ void note(unsigned* w, unsigned bits) {
  if (bits && (*static_cast<volatile unsigned*>(w) & bits) != bits) atomicOr(w, bits);
}
#else
inline void note(unsigned* w, unsigned bits) {  // the CPU emulation of kernels, host tests
  if (bits) __atomic_fetch_or(w, bits, __ATOMIC_RELAXED);
}
#endif

}  // namespace fpc
}  // namespace nf
