"""The C++ a translated kernel starts with: Python's integer division and modulo, index
wrapping, NaN-propagating min/max, complex numbers and the atomics. No #include, so that NVRTC
compiles a kernel in tens of milliseconds."""

PRELUDE = r"""
#pragma nv_diag_suppress 177
#define NF_D static __device__ __forceinline__
#define NF_DS __device__ __forceinline__
NF_D long long nf_wrap(long long i, long long n) { return i < 0 ? i + n : i; }
//@section nf_floordiv nf_mod nf_pow nf_abs nf_min nf_max nf_c64 nf_c128
template <typename T> NF_D T nf_floordiv(T a, T b) {
  if (b == 0) return T(0);  // NumPy: 0 (with a warning)
  T q = a / b;
  if (a % b != 0 && ((a < T(0)) != (b < T(0)))) --q;
  return q;
}
template <typename T> NF_D T nf_mod(T a, T b) {
  if (b == 0) return T(0);
  T r = a % b;
  if (r != 0 && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
#define NF_FLOAT_DIVMOD(T, FMOD, FLOOR, COPYSIGN)                                     \
  template <> NF_DS T nf_mod<T>(T a, T b) {                                            \
    T m = FMOD(a, b);                                                                 \
    if (b == 0) return m;                                                             \
    if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else m = COPYSIGN(T(0), b);       \
    return m;                                                                         \
  }                                                                                   \
  template <> NF_DS T nf_floordiv<T>(T a, T b) {                                       \
    if (b == 0) return a / b;                                                         \
    T m = FMOD(a, b);                                                                 \
    T d = (a - m) / b;                                                                \
    if (m != 0 && ((b < 0) != (m < 0))) d -= T(1);                                    \
    if (d != 0) { T f = FLOOR(d); if (d - f > T(0.5)) f += T(1); return f; }          \
    return COPYSIGN(T(0), a / b);                                                     \
  }
NF_FLOAT_DIVMOD(float, fmodf, floorf, copysignf)
NF_FLOAT_DIVMOD(double, fmod, floor, copysign)
template <typename T> NF_D T nf_pow(T a, T b) {  // integers: NumPy's (b < 0 raises there; 0 here)
  if (b < T(0)) return T(0);
  T r = T(1);
  while (b) { if (b & T(1)) r *= a; a *= a; b >>= 1; }
  return r;
}
template <> NF_DS float nf_pow<float>(float a, float b) { return powf(a, b); }
template <> NF_DS double nf_pow<double>(double a, double b) { return pow(a, b); }
template <> NF_DS bool nf_pow<bool>(bool a, bool b) { return a || !b; }
template <typename T> NF_D T nf_abs(T a) { return a < T(0) ? T(-a) : a; }
template <typename T> NF_D T nf_min(T a, T b) { return (b < a) ? b : a; }
template <typename T> NF_D T nf_max(T a, T b) { return (a < b) ? b : a; }
template <> NF_DS float nf_min<float>(float a, float b) { return (a != a || a <= b) ? a : b; }
template <> NF_DS float nf_max<float>(float a, float b) { return (a != a || a >= b) ? a : b; }
template <> NF_DS double nf_min<double>(double a, double b) { return (a != a || a <= b) ? a : b; }
template <> NF_DS double nf_max<double>(double a, double b) { return (a != a || a >= b) ? a : b; }
//@section nf_c64 nf_c128 nf_cabs nf_nonzero
struct nf_c128;
struct nf_c64 {
  float re, im;
  __device__ nf_c64() : re(0), im(0) {}
  __device__ nf_c64(float r, float i = 0) : re(r), im(i) {}
  __device__ explicit nf_c64(const nf_c128& c);
};
struct nf_c128 {
  double re, im;
  __device__ nf_c128() : re(0), im(0) {}
  __device__ nf_c128(double r, double i = 0) : re(r), im(i) {}
  __device__ nf_c128(const nf_c64& c) : re(c.re), im(c.im) {}
};
__device__ inline nf_c64::nf_c64(const nf_c128& c) : re((float)c.re), im((float)c.im) {}
#define NF_COMPLEX_OPS(C, R, SQRT, EXP, LOG, ATAN2, COS, SIN, HYPOT)                   \
  NF_D C operator+(C a, C b) { return C(a.re + b.re, a.im + b.im); }                  \
  NF_D C operator-(C a, C b) { return C(a.re - b.re, a.im - b.im); }                  \
  NF_D C operator-(C a) { return C(-a.re, -a.im); }                                   \
  NF_D C operator*(C a, C b) { return C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
  NF_D C operator/(C a, C b) {                                                        \
    R d = b.re * b.re + b.im * b.im;                                                  \
    return C((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);       \
  }                                                                                   \
  NF_D bool operator==(C a, C b) { return a.re == b.re && a.im == b.im; }             \
  NF_D bool operator!=(C a, C b) { return !(a == b); }                                \
  NF_D bool operator<(C a, C b) { return a.re < b.re || (a.re == b.re && a.im < b.im); } \
  NF_D bool operator>(C a, C b) { return b < a; }                                     \
  NF_D bool operator<=(C a, C b) { return !(b < a); }                                 \
  NF_D bool operator>=(C a, C b) { return !(a < b); }                                 \
  NF_D R nf_cabs(C a) { return HYPOT(a.re, a.im); }                                   \
  NF_D bool nf_nonzero(C a) { return a.re != 0 || a.im != 0; }                        \
  template <> NF_DS C nf_pow<C>(C a, C b) {                                            \
    if (a.re == 0 && a.im == 0) return (b.re == 0 && b.im == 0) ? C(1) : C(0);        \
    R lr = LOG(HYPOT(a.re, a.im)), th = ATAN2(a.im, a.re);                            \
    R mag = EXP(b.re * lr - b.im * th), ang = b.im * lr + b.re * th;                  \
    return C(mag * COS(ang), mag * SIN(ang));                                         \
  }
NF_COMPLEX_OPS(nf_c64, float, sqrtf, expf, logf, atan2f, cosf, sinf, hypotf)
NF_COMPLEX_OPS(nf_c128, double, sqrt, exp, log, atan2, cos, sin, hypot)
//@section nf_atomic_
// int, unsigned and unsigned long long natively; long long through unsigned long long (CUDA has
// no signed 64-bit atomicAdd / atomicExch; two's complement makes them the same bits).
#define NF_ATOMIC_INTS(NAME, FN)                                                      \
  NF_D int NAME(int* p, int v) { return FN(p, v); }                                   \
  NF_D unsigned NAME(unsigned* p, unsigned v) { return FN(p, v); }                    \
  NF_D unsigned long long NAME(unsigned long long* p, unsigned long long v) {         \
    return FN(p, v);                                                                  \
  }                                                                                   \
  NF_D long long NAME(long long* p, long long v) {                                    \
    return (long long)FN((unsigned long long*)p, (unsigned long long)v);              \
  }
NF_ATOMIC_INTS(nf_atomic_add, atomicAdd)
NF_ATOMIC_INTS(nf_atomic_exch, atomicExch)
NF_D float nf_atomic_add(float* p, float v) { return atomicAdd(p, v); }
NF_D double nf_atomic_add(double* p, double v) { return atomicAdd(p, v); }
template <typename T> NF_D T nf_atomic_sub(T* p, T v) { return nf_atomic_add(p, T(T(0) - v)); }
NF_D int nf_atomic_max(int* p, int v) { return atomicMax(p, v); }
NF_D unsigned nf_atomic_max(unsigned* p, unsigned v) { return atomicMax(p, v); }
NF_D long long nf_atomic_max(long long* p, long long v) { return atomicMax(p, v); }
NF_D unsigned long long nf_atomic_max(unsigned long long* p, unsigned long long v) { return atomicMax(p, v); }
NF_D int nf_atomic_min(int* p, int v) { return atomicMin(p, v); }
NF_D unsigned nf_atomic_min(unsigned* p, unsigned v) { return atomicMin(p, v); }
NF_D long long nf_atomic_min(long long* p, long long v) { return atomicMin(p, v); }
NF_D unsigned long long nf_atomic_min(unsigned long long* p, unsigned long long v) { return atomicMin(p, v); }
// Floating max/min: a compare-and-swap loop on the bits (no hardware instruction).
#define NF_FLOAT_MINMAX(NAME, T, U, TO_U, FROM_U, KEEP)                               \
  NF_D T NAME(T* p, T v) {                                                            \
    U* a = (U*)p;                                                                     \
    U old = *a, assumed;                                                              \
    do {                                                                              \
      assumed = old;                                                                  \
      T cur = FROM_U(assumed);                                                        \
      if (KEEP) return cur;                                                           \
      old = atomicCAS(a, assumed, (U)TO_U(v));                                        \
    } while (old != assumed);                                                         \
    return FROM_U(old);                                                               \
  }
NF_FLOAT_MINMAX(nf_atomic_max, float, unsigned, __float_as_uint, __uint_as_float, cur >= v)
NF_FLOAT_MINMAX(nf_atomic_min, float, unsigned, __float_as_uint, __uint_as_float, cur <= v)
NF_FLOAT_MINMAX(nf_atomic_max, double, unsigned long long, __double_as_longlong, __longlong_as_double, cur >= v)
NF_FLOAT_MINMAX(nf_atomic_min, double, unsigned long long, __double_as_longlong, __longlong_as_double, cur <= v)
NF_D int nf_atomic_cas(int* p, int c, int v) { return atomicCAS(p, c, v); }
NF_D unsigned nf_atomic_cas(unsigned* p, unsigned c, unsigned v) { return atomicCAS(p, c, v); }
NF_D unsigned long long nf_atomic_cas(unsigned long long* p, unsigned long long c, unsigned long long v) {
  return atomicCAS(p, c, v);
}
NF_D long long nf_atomic_cas(long long* p, long long c, long long v) {
  return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)c, (unsigned long long)v);
}
NF_D float nf_atomic_exch(float* p, float v) { return atomicExch(p, v); }
NF_D double nf_atomic_exch(double* p, double v) {
  return __longlong_as_double((long long)atomicExch((unsigned long long*)p,
                                                    (unsigned long long)__double_as_longlong(v)));
}
//@section nf_dynamic_smem_bytes
NF_D unsigned nf_dynamic_smem_bytes() {
  unsigned n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
"""


def _sections():
    out = []
    for i, part in enumerate(PRELUDE.split("//@section ")):
        if i == 0:
            out.append(((), part))
            continue
        head, _, body = part.partition("\n")
        out.append((tuple(head.split()), body))
    return out


_SECTIONS = _sections()


def prelude_for(code):
    """The parts of the prelude that `code` uses (fewer lines: faster NVRTC compiles)."""
    return "".join(body for names, body in _SECTIONS if not names or any(n in code for n in names))
