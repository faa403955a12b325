// The scalar types every kernel sees, compiled by g++ for the CPU and by NVRTC for the GPU.
// Nothing here may include a host-only header under NVRTC (__CUDACC_RTC__).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define NF_HD __host__ __device__ __forceinline__
#define NF_DEVICE_CODE 1
#else
#define NF_HD inline
#endif

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#include <cuda_fp16.h>
#else
#include <cstdint>
#include <cstring>
#endif

namespace nf {

// IEEE binary16 storage. Arithmetic happens in float (compute_t<half> == float), as in NumPy.
struct half {
  uint16_t bits;
  half() = default;
  NF_HD explicit half(float f) : bits(from_float(f)) {}
  NF_HD operator float() const { return to_float(bits); }

  NF_HD static float to_float(uint16_t h) {
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(h));
#else
    _Float16 v;
    std::memcpy(&v, &h, 2);
    return static_cast<float>(v);
#endif
  }
  NF_HD static uint16_t from_float(float f) {
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
    return __half_as_ushort(__float2half_rn(f));
#else
    _Float16 v = static_cast<_Float16>(f);
    uint16_t h;
    std::memcpy(&h, &v, 2);
    return h;
#endif
  }
};

// A complex number laid out as NumPy's (real, imag). The arithmetic operators live here;
// transcendental functions are in kernels/complex_math.h.
template <class T>
struct complex {
  T re, im;
  complex() = default;
  NF_HD constexpr complex(T r, T i = T(0)) : re(r), im(i) {}
  template <class U>
  NF_HD explicit constexpr complex(const complex<U>& o) : re(T(o.re)), im(T(o.im)) {}
  NF_HD T real() const { return re; }
  NF_HD T imag() const { return im; }
};
using complex64 = complex<float>;
using complex128 = complex<double>;

template <class T> NF_HD complex<T> operator+(complex<T> a, complex<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T> NF_HD complex<T> operator-(complex<T> a, complex<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T> NF_HD complex<T> operator-(complex<T> a) { return {-a.re, -a.im}; }
template <class T> NF_HD complex<T> operator*(complex<T> a, complex<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// Smith's algorithm, as NumPy uses, to avoid overflow for large operands.
template <class T> NF_HD complex<T> operator/(complex<T> a, complex<T> b) {
  T abs_br = b.re < 0 ? -b.re : b.re;
  T abs_bi = b.im < 0 ? -b.im : b.im;
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) {
      return {a.re / abs_br, a.im / abs_bi};
    }
    T rat = b.im / b.re;
    T scl = T(1) / (b.re + b.im * rat);
    return {(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};
  }
  T rat = b.re / b.im;
  T scl = T(1) / (b.im + b.re * rat);
  return {(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};
}
template <class T> NF_HD bool operator==(complex<T> a, complex<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> NF_HD bool operator!=(complex<T> a, complex<T> b) { return !(a == b); }

}  // namespace nf
