// Complex elementary functions for nf::complex<float|double>, host and device (NVRTC).
// NumPy calls the C99 <complex.h> functions of the platform (glibc here); these follow the same
// contract: C99 Annex G special values (inf/nan/signed zero), the principal branches with the
// branch cuts on the axes and continuity taken from the sign of a zero imaginary part. The finite
// cases use the cancellation-free formulas of W. Kahan, "Branch Cuts for Complex Elementary
// Functions" (1987). Results agree with NumPy to a few ulp (tests/test_complex_math.cpp).
#pragma once

#ifndef __CUDACC_RTC__
#include "numfuse/kernels/scalar_math.h"
#endif

namespace nf {
namespace cm {

template <class T> using C = complex<T>;

// Multiplication by i and -i, as used by the identities sin z = -i sinh(iz) and friends.
template <class T> NF_HD C<T> mul_i(C<T> z) { return {-z.im, z.re}; }
template <class T> NF_HD C<T> mul_neg_i(C<T> z) { return {z.im, -z.re}; }

template <class T> NF_HD T abs(C<T> z) { return m::hypot(z.re, z.im); }

// Above this |x|, exp(x) overflows; exp(x/2)^2 * cos(y) may still be finite.
template <class T> NF_HD T exp_overflow() { return sizeof(T) == 4 ? T(88.0) : T(709.0); }

template <class T> NF_HD C<T> exp(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isfinite(x) && m::isfinite(y)) {
    if (y == 0) return {m::exp(x), y};
    const T c = m::cos(y), s = m::sin(y);
    if (x > exp_overflow<T>()) {
      const T h = m::exp(x * T(0.5));
      return {(h * c) * h, (h * s) * h};
    }
    const T e = m::exp(x);
    return {e * c, e * s};
  }
  if (m::isnan(x)) return {x, y == 0 ? y : x};  // NaN + i0 keeps the zero
  if (m::isinf(x)) {
    if (x > 0) {
      if (y == 0) return {x, y};
      if (!m::isfinite(y)) return {x, m::nan(x)};
      return {x * m::cos(y), x * m::sin(y)};
    }
    if (!m::isfinite(y)) return {T(0), m::copysign(T(0), y)};
    return {T(0) * m::cos(y), T(0) * m::sin(y)};
  }
  return {m::nan(x), m::nan(x)};  // finite x, y inf or NaN
}

template <class T> NF_HD C<T> log(C<T> z) {
  const T ax = m::fabs(z.re), ay = m::fabs(z.im);
  const T h = m::hypot(ax, ay);
  T re;
  if (h > T(0.71) && h < T(1.73)) {
    // |z| near 1: log|z| = log1p(|z|^2 - 1) / 2, with (x-1)(x+1) exact for x in [0.5, 2].
    const T big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    re = T(0.5) * m::log1p((big - 1) * (big + 1) + small * small);
  } else {
    re = m::log(h);
  }
  return {re, m::atan2(z.im, z.re)};
}

template <class T> NF_HD C<T> log2(C<T> z) {
  const C<T> l = log(z);
  return {l.re * m::log2e<T>(), l.im * m::log2e<T>()};
}
template <class T> NF_HD C<T> log10(C<T> z) {
  const C<T> l = log(z);
  return {l.re * m::log10e<T>(), l.im * m::log10e<T>()};
}

// log(1 + z), accurate for small |z| where log(1 + z) would round 1 + z.
template <class T> NF_HD C<T> log1p(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isfinite(x) && m::isfinite(y) && m::fabs(x) < T(0.5) && m::fabs(y) < T(0.5)) {
    // |1+z|^2 - 1 = x(2 + x) + y^2
    return {T(0.5) * m::log1p(x * (T(2) + x) + y * y), m::atan2(y, x + T(1))};
  }
  return log(C<T>{x + T(1), y});
}

// expm1 as NumPy computes it: re = expm1(x) cos y - 2 sin^2(y/2), im = exp(x) sin y.
template <class T> NF_HD C<T> expm1(C<T> z) {
  const T a = m::sin(z.im * T(0.5));
  return {m::expm1(z.re) * m::cos(z.im) - T(2) * a * a, m::exp(z.re) * m::sin(z.im)};
}

template <class T> NF_HD C<T> exp2(C<T> z) { return exp(C<T>{z.re * m::ln2<T>(), z.im * m::ln2<T>()}); }

template <class T> NF_HD C<T> sqrt(C<T> z) {
  T x = z.re, y = z.im;
  if (x == 0 && y == 0) return {T(0), y};
  if (m::isinf(y)) return {m::inf(x), y};
  if (m::isnan(x)) return {x, m::nan(x)};
  if (m::isinf(x)) {
    if (x > 0) return {x, m::isnan(y) ? y : m::copysign(T(0), y)};
    return {m::isnan(y) ? y : T(0), m::copysign(m::inf(x), y)};
  }
  if (m::isnan(y)) return {y, y};
  // Scale so that |x| + hypot(x, y) neither overflows nor loses subnormal bits.
  const T big = sizeof(T) == 4 ? T(1e37) : T(1e307);
  const T tiny = sizeof(T) == 4 ? T(1e-37) : T(1e-307);
  T scale = T(1);
  if (m::fabs(x) > big || m::fabs(y) > big) {
    x *= T(0.25), y *= T(0.25), scale = T(2);
  } else if (m::fabs(x) < tiny && m::fabs(y) < tiny) {
    const T up = sizeof(T) == 4 ? T(16777216.0) : T(4503599627370496.0);  // 2^24, 2^52
    x *= up * up, y *= up * up, scale = T(1) / up;
  }
  const T t = m::sqrt((m::fabs(x) + m::hypot(x, y)) * T(0.5));
  if (x >= 0) return {t * scale, (y / (2 * t)) * scale};
  return {(m::fabs(y) / (2 * t)) * scale, m::copysign(t, y) * scale};
}

// cosh(x) and sinh(x) for the hyperbolic functions below: exp(|x|)/2 overflows before
// cosh(x) * cos(y) does, so large |x| multiplies by exp(|x|/2) twice.
template <class T> NF_HD C<T> cosh(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isfinite(x) && m::isfinite(y)) {
    if (y == 0) return {m::cosh(x), m::copysign(T(1), x) * y};  // sinh(x) * 0 without inf * 0
    if (m::fabs(x) > exp_overflow<T>()) {
      const T h = m::exp(m::fabs(x) * T(0.5)) * T(0.5);
      const T c = (h * m::cos(y)) * h * 2, s = (h * m::sin(y)) * h * 2;
      return {c, m::copysign(T(1), x) * s};
    }
    return {m::cosh(x) * m::cos(y), m::sinh(x) * m::sin(y)};
  }
  if (y == 0) return {x * x, m::isnan(x) ? y : m::copysign(T(1), x) * y};
  if (x == 0) return {m::nan(x), T(0)};  // y inf or NaN
  if (m::isinf(x)) {
    if (!m::isfinite(y)) return {m::inf(x), m::nan(x)};
    return {m::inf(x) * m::cos(y), x * m::sin(y)};
  }
  return {m::nan(x), m::nan(x)};
}

template <class T> NF_HD C<T> sinh(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isfinite(x) && m::isfinite(y)) {
    if (y == 0) return {m::sinh(x), y};
    if (m::fabs(x) > exp_overflow<T>()) {
      const T h = m::exp(m::fabs(x) * T(0.5)) * T(0.5);
      const T c = (h * m::cos(y)) * h * 2, s = (h * m::sin(y)) * h * 2;
      return {m::copysign(T(1), x) * c, s};
    }
    return {m::sinh(x) * m::cos(y), m::cosh(x) * m::sin(y)};
  }
  if (y == 0) return {x, y};
  if (x == 0) return {x, m::nan(x)};  // y inf or NaN
  if (m::isinf(x)) {
    if (!m::isfinite(y)) return {m::inf(x), m::nan(x)};  // glibc's sign choice
    return {x * m::cos(y), m::inf(x) * m::sin(y)};
  }
  return {m::nan(x), m::nan(x)};
}

template <class T> NF_HD C<T> tanh(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isinf(x)) {
    // tanh(+-inf + iy) = +-1 + i0 sin(2y); for y inf or NaN the zero's sign is unspecified.
    const T im = m::copysign(T(0), m::isfinite(y) ? m::sin(y) * m::cos(y) : y);
    return {m::copysign(T(1), x), im};
  }
  if (m::isnan(x)) return {x, y == 0 ? y : x};
  if (!m::isfinite(y)) return {x == 0 ? x : m::nan(x), m::nan(x)};  // tanh(+-0 + i inf) = +-0 + iNaN (C11)
  // For large |x|, tanh(z) = sign(x) + i 4 sin(y) cos(y) exp(-2|x|) to working precision.
  if (m::fabs(x) > (sizeof(T) == 4 ? T(9) : T(22))) {
    const T e = m::exp(-2 * m::fabs(x));
    return {m::copysign(T(1), x), T(4) * m::sin(y) * m::cos(y) * e};
  }
  // Kahan: t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2); tanh z = (b r s + i t) / (1 + b s^2)
  const T t = m::tan(y), b = 1 + t * t, s = m::sinh(x), r = m::sqrt(1 + s * s);
  const T d = 1 + b * s * s;
  return {(b * r * s) / d, t / d};
}

template <class T> NF_HD C<T> sin(C<T> z) {
  if (m::isinf(z.im) && !m::isfinite(z.re)) return {m::nan(z.re), m::inf(z.re)};  // as glibc
  return mul_neg_i(sinh(mul_i(z)));
}
template <class T> NF_HD C<T> cos(C<T> z) { return cosh(mul_i(z)); }
template <class T> NF_HD C<T> tan(C<T> z) { return mul_neg_i(tanh(mul_i(z))); }

// asinh, with the special values of Annex G; finite values through Kahan's asin.
template <class T> NF_HD C<T> asinh(C<T> z) {
  const T x = z.re, y = z.im;
  if (m::isnan(x)) {
    if (y == 0) return {x, y};
    if (m::isinf(y)) return {m::fabs(y), x};
    return {x, x};
  }
  if (m::isnan(y)) return {m::isinf(x) ? x : y, y};
  if (m::isinf(x) || m::isinf(y)) {
    if (m::isinf(x) && m::isinf(y)) return {x, m::copysign(m::pi<T>() / 4, y)};
    if (m::isinf(x)) return {x, m::copysign(T(0), y)};
    return {m::copysign(m::inf(x), x), m::copysign(m::pi<T>() / 2, y)};
  }
  // asinh z = -i asin(iz), Kahan: asin w = atan(u / Re(s1 s2)) + i asinh(Im(conj(s1) s2)),
  // s1 = sqrt(1 - w), s2 = sqrt(1 + w); w = iz = (-y, x).
  const T u = -y, v = x;
  const C<T> s1 = sqrt(C<T>{1 - u, -v}), s2 = sqrt(C<T>{1 + u, v});
  const T a = m::atan(u / (s1.re * s2.re - s1.im * s2.im));
  const T b = m::asinh(s1.re * s2.im - s1.im * s2.re);
  return {b, -a};
}

template <class T> NF_HD C<T> asin(C<T> z) {
  if (m::isinf(z.re) && m::isnan(z.im)) return {z.im, m::inf(z.im)};  // as glibc
  return mul_neg_i(asinh(mul_i(z)));
}

template <class T> NF_HD C<T> acos(C<T> z) {
  const T x = z.re, y = z.im;
  const T pi = m::pi<T>();
  if (m::isnan(x)) {
    if (m::isinf(y)) return {x, -y};
    return {x, x};
  }
  if (m::isnan(y)) {
    if (m::isinf(x)) return {y, -m::inf(x)};
    if (x == 0) return {pi / 2, y};
    return {y, y};
  }
  if (m::isinf(x) || m::isinf(y)) {
    T re = pi / 2;
    if (m::isinf(x)) re = m::isinf(y) ? (x > 0 ? pi / 4 : 3 * pi / 4) : (x > 0 ? T(0) : pi);
    return {re, m::signbit(y) ? m::inf(x) : -m::inf(x)};
  }
  // Kahan: acos z = 2 atan(Re s1 / Re s2) + i asinh(Im(conj(s2) s1)); s1 = sqrt(1-z), s2 = sqrt(1+z).
  const C<T> s1 = sqrt(C<T>{1 - x, -y}), s2 = sqrt(C<T>{1 + x, y});
  return {2 * m::atan2(s1.re, s2.re), m::asinh(s2.re * s1.im - s2.im * s1.re)};
}

// acosh z = i acos z for Im z >= +0 and -i acos z for Im z <= -0.
template <class T> NF_HD C<T> acosh(C<T> z) {
  const C<T> w = acos(z);
  if (m::isnan(w.re) && m::isnan(w.im)) return w;
  if (m::isnan(w.re) && m::isinf(w.im)) return {m::inf(w.im), w.re};  // acosh(+-inf + iNaN)
  return m::signbit(z.im) ? mul_neg_i(w) : C<T>{m::fabs(w.im), w.re};
}

template <class T> NF_HD C<T> atanh(C<T> z) {
  const T x = z.re, y = z.im;
  const T half_pi = m::pi<T>() / 2;
  if (m::isnan(x) || m::isnan(y)) {
    if (m::isinf(x)) return {m::copysign(T(0), x), y};
    if (m::isinf(y)) return {m::copysign(T(0), x), m::copysign(half_pi, y)};
    if (x == 0) return {x, y};
    return {m::nan(x), m::nan(x)};
  }
  const T ax = m::fabs(x), ay = m::fabs(y);
  // Beyond sqrt(max)/4 the squares below overflow; there atanh z = 1/z + i pi/2 sign(y).
  const T big = sizeof(T) == 4 ? T(1e18) : T(1e150);
  if (ax > big || ay > big) {
    T re = T(0);
    if (m::isfinite(ax) && m::isfinite(ay)) {
      const T h = m::hypot(ax, ay);
      re = (ax / h) / h;
    }
    return {m::copysign(re, x), m::copysign(half_pi, y)};
  }
  if (ax == 1 && ay == 0) return {m::copysign(m::inf(x), x), y};
  // re = log(|1+z|^2 / |1-z|^2) / 4, im = arg((1+z)(1-conj z)) / 2
  const T d = (1 - ax) * (1 - ax) + ay * ay;
  const T re = T(0.25) * m::log1p(4 * ax / d);
  const T im = T(0.5) * m::atan2(2 * y, (1 - ax) * (1 + ax) - ay * ay);
  return {m::copysign(re, x), im};
}

template <class T> NF_HD C<T> atan(C<T> z) { return mul_neg_i(atanh(mul_i(z))); }

// 1/z as NumPy's reciprocal loop computes it (Smith's scaling, no overflow for large |z|).
template <class T> NF_HD C<T> reciprocal(C<T> z) {
  if (m::fabs(z.im) <= m::fabs(z.re)) {
    const T r = z.im / z.re, d = z.re + z.im * r;
    return {1 / d, -r / d};
  }
  const T r = z.re / z.im, d = z.re * r + z.im;
  return {r / d, -1 / d};
}

template <class T> NF_HD C<T> square(C<T> z) { return z * z; }

// a * b with the infinity recovery of C99 Annex G (GCC's __muldc3), which glibc's cpow relies on:
// an infinite operand gives an infinite product even where the plain formula gives NaN.
template <class T> NF_HD C<T> mul_annex_g(C<T> p, C<T> q) {
  T a = p.re, b = p.im, c = q.re, d = q.im;
  const T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  T x = ac - bd, y = ad + bc;
  if (m::isnan(x) && m::isnan(y)) {
    bool again = false;
    auto box = [](T v) { return m::copysign(m::isinf(v) ? T(1) : T(0), v); };
    auto unnan = [](T v) { return m::isnan(v) ? m::copysign(T(0), v) : v; };
    if (m::isinf(a) || m::isinf(b)) {
      a = box(a), b = box(b), c = unnan(c), d = unnan(d);
      again = true;
    }
    if (m::isinf(c) || m::isinf(d)) {
      c = box(c), d = box(d), a = unnan(a), b = unnan(b);
      again = true;
    }
    if (!again && (m::isinf(ac) || m::isinf(bd) || m::isinf(ad) || m::isinf(bc))) {
      a = unnan(a), b = unnan(b), c = unnan(c), d = unnan(d);
      again = true;
    }
    if (again) {
      x = m::inf(a) * (a * c - b * d);
      y = m::inf(a) * (a * d + b * c);
    }
  }
  return {x, y};
}

// a ** b as NumPy's nc_pow: exact small integer powers by repeated multiplication, zero bases
// special-cased, exp(b log a) otherwise.
template <class T> NF_HD C<T> pow(C<T> a, C<T> b) {
  if (b.re == 0 && b.im == 0) return {T(1), T(0)};
  if (a.re == 0 && a.im == 0) {
    if (b.re > 0) return {T(0), T(0)};
    return {m::nan(a.re), m::nan(a.re)};
  }
  if (b.im == 0 && b.re > T(-100) && b.re < T(100)) {
    const int n = int(b.re);
    if (T(n) == b.re) {
      if (n == 1) return a;
      if (n == 2) return a * a;
      if (n == 3) return (a * a) * a;
      int k = n < 0 ? -n : n;
      C<T> acc{T(1), T(0)}, p = a;
      while (true) {
        if (k & 1) acc = acc * p;
        k >>= 1;
        if (k == 0) break;
        p = p * p;
      }
      return n < 0 ? C<T>{T(1), T(0)} / acc : acc;
    }
  }
  return exp(mul_annex_g(log(a), b));
}

}  // namespace cm
}  // namespace nf
