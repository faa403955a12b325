// Internal to the ufunc_loops_*.cpp files: the loop templates that run an nf::sop functor over
// strided operands, and the lookup that instantiates them for the dtypes a functor accepts.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "numfuse/backend/cpu/mvec_decls.h"  // before any call to sin/exp/... is compiled
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/kernels/scalar_ops.h"

// Contiguous float loops are compiled three times, for baseline x86-64, AVX2 (x86-64-v3) and
// AVX-512 (x86-64-v4), and picked at load time (ifunc): the library is built for the baseline,
// but sin/exp/log through libmvec are 2-4x faster with the wider variants.
#if defined(NF_HAVE_MVEC) && defined(__linux__)
#define NF_MULTIVERSION __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define NF_MULTIVERSION
#endif
#define NF_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace nf::cpu::detail {

template <class T> using C = compute_t<T>;

// Output storage: the input's storage type where the functor returns the compute type (so a
// float16 loop writes half), otherwise the functor's result type (bool, int32, float for |complex|).
template <class T, class R>
using out_storage_t = std::conditional_t<std::is_same_v<R, compute_t<T>>, T, R>;

template <class T> NF_ALWAYS_INLINE C<T> load(const T& v) { return static_cast<C<T>>(v); }
template <class O, class R> NF_ALWAYS_INLINE O store(R r) {
  if constexpr (std::is_same_v<O, half>) return half(r);
  else return r;
}

template <class Op, class A, class = void> struct result1 {};
template <class Op, class A>
struct result1<Op, A, std::void_t<decltype(Op{}(std::declval<A>()))>> {
  using type = decltype(Op{}(std::declval<A>()));
};
template <class Op, class A, class B, class = void> struct result2 {};
template <class Op, class A, class B>
struct result2<Op, A, B, std::void_t<decltype(Op{}(std::declval<A>(), std::declval<B>()))>> {
  using type = decltype(Op{}(std::declval<A>(), std::declval<B>()));
};
template <class Op, class A, class = void> constexpr bool callable1 = false;
template <class Op, class A>
constexpr bool callable1<Op, A, std::void_t<typename result1<Op, A>::type>> = true;
template <class Op, class A, class B, class = void> constexpr bool callable2 = false;
template <class Op, class A, class B>
constexpr bool callable2<Op, A, B, std::void_t<typename result2<Op, A, B>::type>> = true;

template <class T> constexpr bool is_pair = false;
template <class A, class B> constexpr bool is_pair<pair<A, B>> = true;

// The float loops worth compiling for wider vector units (see NF_MULTIVERSION), and the complex
// arithmetic that vectorises with them (a 256-bit register holds two complex128): complex
// multiply of 32768 elements took 40 us on the baseline against NumPy's 21.
template <class T> constexpr bool kMultiversion = std::is_floating_point_v<C<T>>;
template <class Op> constexpr bool kVectorComplexOp =
    std::is_same_v<Op, sop::Add> || std::is_same_v<Op, sop::Subtract> ||
    std::is_same_v<Op, sop::Multiply> || std::is_same_v<Op, sop::Square> ||
    std::is_same_v<Op, sop::Conjugate>;
template <class Op, class T>
constexpr bool kMultiversionOp = kMultiversion<T> || (is_cplx_v<C<T>> && kVectorComplexOp<Op>);

// ---- one output, contiguous kernels -----------------------------------------------------------
// Each kernel body is always-inlined into a plain and a multiversioned wrapper.
template <class Op, class T, class O>
NF_ALWAYS_INLINE void unary_contig_body(const T* a, O* o, int64_t n) {
  const Op op{};
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(load(a[i])));
}
template <class Op, class T, class O> void unary_contig(const T* a, O* o, int64_t n) {
  unary_contig_body<Op, T, O>(a, o, n);
}
template <class Op, class T, class O> NF_MULTIVERSION void unary_contig_mv(const T* a, O* o, int64_t n) {
  unary_contig_body<Op, T, O>(a, o, n);
}

// kind: 0 both contiguous, 1 a is a broadcast scalar, 2 b is a broadcast scalar.
template <class Op, class A, class B, class O, int kind>
NF_ALWAYS_INLINE void binary_contig_body(const A* a, const B* b, O* o, int64_t n) {
  const Op op{};
  if constexpr (kind == 0) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(load(a[i]), load(b[i])));
  } else if constexpr (kind == 1) {
    const C<A> av = load(a[0]);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(av, load(b[i])));
  } else {
    const C<B> bv = load(b[0]);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(load(a[i]), bv));
  }
}
template <class Op, class A, class B, class O, int kind>
void binary_contig(const A* a, const B* b, O* o, int64_t n) {
  binary_contig_body<Op, A, B, O, kind>(a, b, o, n);
}
template <class Op, class A, class B, class O, int kind>
NF_MULTIVERSION void binary_contig_mv(const A* a, const B* b, O* o, int64_t n) {
  binary_contig_body<Op, A, B, O, kind>(a, b, o, n);
}

// ---- the loops the registry hands out ---------------------------------------------------------
template <class Op, class T>
void unary_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  using R = typename result1<Op, C<T>>::type;
  using O = out_storage_t<T, R>;
  const T* a = static_cast<const T*>(in[0]);
  O* o = static_cast<O*>(out[0]);
  const int64_t s = st[0];
  if (s == 1) {
    if constexpr (kMultiversionOp<Op, T>) unary_contig_mv<Op, T, O>(a, o, n);
    else unary_contig<Op, T, O>(a, o, n);
  } else if (s == 0) {
    const O v = store<O>(Op{}(load(a[0])));
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  } else {
    const Op op{};
    for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(load(a[i * s])));
  }
}

template <class Op, class A, class B>
void binary_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  using R = typename result2<Op, C<A>, C<B>>::type;
  using O = out_storage_t<A, R>;
  const A* a = static_cast<const A*>(in[0]);
  const B* b = static_cast<const B*>(in[1]);
  O* o = static_cast<O*>(out[0]);
  const int64_t sa = st[0], sb = st[1];
  constexpr bool mv = kMultiversionOp<Op, A>;
  if (sa == 1 && sb == 1) {
    if constexpr (mv) binary_contig_mv<Op, A, B, O, 0>(a, b, o, n);
    else binary_contig<Op, A, B, O, 0>(a, b, o, n);
  } else if (sa == 0 && sb == 1) {
    if constexpr (mv) binary_contig_mv<Op, A, B, O, 1>(a, b, o, n);
    else binary_contig<Op, A, B, O, 1>(a, b, o, n);
  } else if (sa == 1 && sb == 0) {
    if constexpr (mv) binary_contig_mv<Op, A, B, O, 2>(a, b, o, n);
    else binary_contig<Op, A, B, O, 2>(a, b, o, n);
  } else {
    const Op op{};
    for (int64_t i = 0; i < n; ++i) o[i] = store<O>(op(load(a[i * sa]), load(b[i * sb])));
  }
  if constexpr (std::is_same_v<Op, sop::Power> && std::is_floating_point_v<C<A>>) {
    // pow(±0, -inf) is inf without glibc raising divide-by-zero, which NumPy's loop reports
    bool pole = false;
    for (int64_t i = 0; i < n; ++i) {
      pole |= load(a[i * sa]) == 0 && load(b[i * sb]) == -std::numeric_limits<C<B>>::infinity();
    }
    if (pole) fp_raise(kRaiseDivide);
  }
}

template <class Op, class A, int nin> struct two_out_result : result1<Op, A> {};
template <class Op, class A> struct two_out_result<Op, A, 2> : result2<Op, A, A> {};

// Two outputs (divmod, frexp, modf): rare enough for one generic strided loop.
template <class Op, class T, int nin>
void two_out_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[nin - 1]);
  const int64_t sa = st[0], sb = st[nin - 1];
  const Op op{};
  using R = typename two_out_result<Op, C<T>, nin>::type;
  using O1 = out_storage_t<T, decltype(R::first)>;
  using O2 = out_storage_t<T, decltype(R::second)>;
  O1* o1 = static_cast<O1*>(out[0]);
  O2* o2 = static_cast<O2*>(out[1]);
  for (int64_t i = 0; i < n; ++i) {
    R r;
    if constexpr (nin == 1) r = op(load(a[i * sa]));
    else r = op(load(a[i * sa]), load(b[i * sb]));
    o1[i] = store<O1>(r.first);
    o2[i] = store<O2>(r.second);
  }
}

// ---- lookup -----------------------------------------------------------------------------------
template <class T> constexpr DType dtype_v = dtype_of<T>::value;

// The loop of Op for inputs of storage types A (and B), or nullptr where Op is not callable.
template <class Op, int nin, int nout, class A, class B = A>
UFuncLoop make_loop(DType* out) {
  if constexpr (nin == 1) {
    if constexpr (callable1<Op, C<A>>) {
      using R = typename result1<Op, C<A>>::type;
      if constexpr (nout == 1) {
        out[0] = dtype_v<out_storage_t<A, R>>;
        return &unary_loop<Op, A>;
      } else {
        out[0] = dtype_v<out_storage_t<A, decltype(R::first)>>;
        out[1] = dtype_v<out_storage_t<A, decltype(R::second)>>;
        return &two_out_loop<Op, A, 1>;
      }
    }
  } else {
    if constexpr (callable2<Op, C<A>, C<B>>) {
      using R = typename result2<Op, C<A>, C<B>>::type;
      if constexpr (nout == 1) {
        out[0] = dtype_v<out_storage_t<A, R>>;
        return &binary_loop<Op, A, B>;
      } else {
        out[0] = dtype_v<out_storage_t<A, decltype(R::first)>>;
        out[1] = dtype_v<out_storage_t<A, decltype(R::second)>>;
        return &two_out_loop<Op, A, 2>;
      }
    }
  }
  return nullptr;
}

// Dispatches the input dtypes to make_loop. Binary loops are homogeneous, except ldexp whose
// exponent is int32 or int64.
template <class Op, int nin, int nout>
UFuncLoop lookup(const DType* in, DType* out) {
  if constexpr (std::is_same_v<Op, sop::Ldexp>) {
    switch (in[0]) {
      case DType::Float16:
      case DType::Float32:
      case DType::Float64:
        break;
      default:
        return nullptr;
    }
    if (in[1] != DType::Int32 && in[1] != DType::Int64) return nullptr;
#define NF_LDEXP_CASE_(E, T)                                                           \
  case DType::E:                                                                       \
    return in[1] == DType::Int32 ? make_loop<Op, 2, 1, T, int32_t>(out)                \
                                 : make_loop<Op, 2, 1, T, int64_t>(out);
    switch (in[0]) {
      NF_LDEXP_CASE_(Float16, half)
      NF_LDEXP_CASE_(Float32, float)
      NF_LDEXP_CASE_(Float64, double)
      default:
        return nullptr;
    }
#undef NF_LDEXP_CASE_
  } else {
    if constexpr (std::is_same_v<Op, sop::Equal> || std::is_same_v<Op, sop::NotEqual> ||
                  std::is_same_v<Op, sop::Less> || std::is_same_v<Op, sop::LessEqual> ||
                  std::is_same_v<Op, sop::Greater> || std::is_same_v<Op, sop::GreaterEqual>) {
      // NumPy compares int64 with uint64 exactly, without promoting to float64.
      if (in[0] == DType::Int64 && in[1] == DType::UInt64) return make_loop<Op, 2, 1, int64_t, uint64_t>(out);
      if (in[0] == DType::UInt64 && in[1] == DType::Int64) return make_loop<Op, 2, 1, uint64_t, int64_t>(out);
    }
    for (int i = 1; i < nin; ++i) {
      if (in[i] != in[0]) return nullptr;
    }
    switch (in[0]) {
#define NF_LOOKUP_CASE_(E, T, CH, N) \
  case DType::E:                     \
    return make_loop<Op, nin, nout, T>(out);
      NF_FOR_EACH_DTYPE(NF_LOOKUP_CASE_)
#undef NF_LOOKUP_CASE_
    }
    return nullptr;
  }
}

// The ufuncs are split over four files so that each compiles in reasonable time.
enum class Family { Arithmetic, Logic, Transcendental, FloatMisc };
constexpr Family family_of(UFunc op) {
  switch (op) {
    case UFunc::Equal: case UFunc::NotEqual: case UFunc::Less: case UFunc::LessEqual:
    case UFunc::Greater: case UFunc::GreaterEqual: case UFunc::LogicalAnd: case UFunc::LogicalOr:
    case UFunc::LogicalXor: case UFunc::LogicalNot: case UFunc::BitwiseAnd: case UFunc::BitwiseOr:
    case UFunc::BitwiseXor: case UFunc::Invert: case UFunc::LeftShift: case UFunc::RightShift:
    case UFunc::Isnan: case UFunc::Isinf: case UFunc::Isfinite: case UFunc::Signbit:
    case UFunc::Floor: case UFunc::Ceil: case UFunc::Trunc: case UFunc::Rint:
    case UFunc::BitwiseCount:
      return Family::Logic;
    case UFunc::Sqrt: case UFunc::Cbrt: case UFunc::Exp: case UFunc::Exp2: case UFunc::Expm1:
    case UFunc::Log: case UFunc::Log2: case UFunc::Log10: case UFunc::Log1p: case UFunc::Sin:
    case UFunc::Cos: case UFunc::Tan: case UFunc::Arcsin: case UFunc::Arccos: case UFunc::Arctan:
    case UFunc::Sinh: case UFunc::Cosh: case UFunc::Tanh: case UFunc::Arcsinh:
    case UFunc::Arccosh: case UFunc::Arctanh:
      return Family::Transcendental;
    case UFunc::Arctan2: case UFunc::Hypot: case UFunc::Copysign: case UFunc::Nextafter:
    case UFunc::Ldexp: case UFunc::Heaviside: case UFunc::Logaddexp: case UFunc::Logaddexp2:
    case UFunc::Deg2rad: case UFunc::Rad2deg: case UFunc::Frexp: case UFunc::Modf:
    case UFunc::Spacing:
      return Family::FloatMisc;
    default:
      return Family::Arithmetic;
  }
}

// The body of each family's finder: a case per ufunc, instantiating only the family's own.
#define NF_FAMILY_CASE_(E, NAME, NIN, NOUT)                                        \
  case UFunc::E:                                                                   \
    if constexpr (::nf::cpu::detail::family_of(UFunc::E) == kFamily) {             \
      return ::nf::cpu::detail::lookup<::nf::sop::E, NIN, NOUT>(in, out);          \
    } else {                                                                       \
      return nullptr;                                                              \
    }

UFuncLoop find_loop_arithmetic(UFunc op, const DType* in, DType* out);
UFuncLoop find_loop_logic(UFunc op, const DType* in, DType* out);
UFuncLoop find_loop_transcendental(UFunc op, const DType* in, DType* out);
UFuncLoop find_loop_float_misc(UFunc op, const DType* in, DType* out);

}  // namespace nf::cpu::detail
