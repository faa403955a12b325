// The inner kernels of the CPU reductions, shared by the reduction of arrays in memory
// (reduce_cpu.cpp) and the fused reduction that computes its input as it goes
// (reduce_fused_cpu.cpp): one definition of each loop, so that fusion never changes a result.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "numfuse/backend/cpu/reduce_cpu.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/core/iteration.h"
#include "numfuse/kernels/scalar_ops.h"

namespace nf::cpu {

constexpr int64_t kCastChunk = 1024;    // elements cast at once when the input is not the loop dtype
constexpr int64_t kMinParallel = 32768; // elements of work worth a thread

// The reduction as loops see it: sp over (out, in), split into the kept dims (operands out, in)
// and the reduced dims (operand in), each outermost first.
struct Layout {
  IterSpace kept, red;
  bool inner_reduced = false;  // the input's innermost (smallest-stride) dim is reduced
};

// How an outer reduction (innermost dim kept) divides its work. Rows are read whole, as NumPy reads
// them: every jump to another place in memory starts a new stream for the prefetcher, and rows read
// in pieces ran slower in proportion (pieces of 2-4 KB at a third of the speed, 1000 columns split
// between two threads 2x slower than one thread, 100 KB pieces of 400 KB rows 1.6x slower).
// Threads take whole rows of outputs where there are enough of them; else `rsplit` parts (a few
// per thread, claimed dynamically, so that a thread that loses its core holds up one small part)
// split the reduced rows, each accumulating its rows in order into a partial row, the partials
// combined in order after (two halves' sums are no less accurate than NumPy's one pass, which adds
// the rows of an axis-0 reduction in order); where those partial rows would take too much memory,
// the columns are split in one block per thread instead.
constexpr int64_t kMaxPartialBytes = int64_t(16) << 20;
struct OuterPlan {
  int64_t rsplit = 1, width = 1, nblk = 1;  // nblk: blocks of `width` columns per row
};
inline OuterPlan outer_plan(int64_t ncol, int64_t nouter, int64_t nred, int64_t threads, int64_t acc_bytes) {
  OuterPlan P;
  P.width = ncol;
  const bool worth_threads = threads > 1 && nouter * nred * ncol >= 2 * kMinParallel;
  if (!worth_threads || nouter >= 2 * threads) return P;
  const int64_t parts = std::min(4 * threads, nred);
  if (parts > 1 && parts * nouter * ncol * acc_bytes <= kMaxPartialBytes) {
    P.rsplit = parts;
    return P;
  }
  P.width = std::min(ncol, ((ncol + threads - 1) / threads + 7) / 8 * 8);
  P.nblk = (ncol + P.width - 1) / P.width;
  return P;
}

// A per-thread buffer of at least n T, kept between calls while small; one per Slot, so that a
// caller may hold two of one type.
template <class T, int Slot = 0>
T* scratch_row(std::unique_ptr<T[]>& own, int64_t n) {
  constexpr int64_t kKeep = 16384;
  thread_local std::unique_ptr<T[]> kept(new T[kKeep]);
  if (n <= kKeep) return kept.get();
  own.reset(new T[n]);
  return own.get();
}

// The layout of a reduction of `in` over `axes` (make_iter_space keyed on the input).
Layout make_layout(const Array& in, const std::vector<bool>& axes);

// Element offsets of flat index i of a space, per operand.
void offsets_at(const IterSpace& sp, int64_t i, int64_t* off);

// 16-byte GCC vector types (SSE2 on x86-64, NEON on arm64): the baseline every build has.
template <class T> struct Vec16;
template <> struct Vec16<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef int32_t M __attribute__((vector_size(16)));
};
template <> struct Vec16<double> {
  typedef double V __attribute__((vector_size(16)));
  typedef int64_t M __attribute__((vector_size(16)));
};

// pairwise_reduce for a contiguous float sum, written with vector registers: the same eight
// accumulators and the same tree as NumPy (bit-identical to the scalar form). No software prefetch,
// unlike NumPy's loop: the hardware prefetcher follows this one stream, and the prefetch
// instruction made a 1e7-element sum out of cache 12% slower (24.5 -> 27.6 GB/s on one core, equal
// in cache; 2026-11-25). Named registers, not arrays: an array of accumulators was stored to the stack on every step (1.7x slower than NumPy on data
// in cache, where the fused reductions read their values from).
template <class T>
T pairwise_sum_contig(const T* p, int64_t n) {
  if (n < 8) {
    T res = T(0);
    for (int64_t i = 0; i < n; ++i) res += p[i];
    return res;
  }
  if (n <= 128) {
    using V = typename Vec16<T>::V;
    constexpr int L = 16 / sizeof(T);  // lanes: accumulators j..j+L-1 share a register
    auto ld = [](const T* q) {
      V v;
      std::memcpy(&v, q, sizeof(V));
      return v;
    };
    // Eight accumulators: four registers of two doubles, or two of four floats (r2, r3 unused).
    V r0 = ld(p), r1 = ld(p + L), r2 = V{}, r3 = V{};
    if constexpr (L == 2) {
      r2 = ld(p + 4);
      r3 = ld(p + 6);
    }
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      r0 += ld(p + i);
      r1 += ld(p + i + L);
      if constexpr (L == 2) {
        r2 += ld(p + i + 4);
        r3 += ld(p + i + 6);
      }
    }
    T a[8];
    if constexpr (L == 2) {
      a[0] = r0[0], a[1] = r0[1], a[2] = r1[0], a[3] = r1[1];
      a[4] = r2[0], a[5] = r2[1], a[6] = r3[0], a[7] = r3[1];
    } else {
      for (int k = 0; k < 4; ++k) a[k] = r0[k], a[4 + k] = r1[k];
    }
    T res = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    for (; i < n; ++i) res += p[i];
    return res;
  }
  if (n > kInterruptCheckItems) check_interrupt();
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  const T lo = pairwise_sum_contig(p, n2);  // in memory order (see pairwise_reduce)
  return lo + pairwise_sum_contig(p + n2, n - n2);
}

#ifdef __SSE2__
inline Vec16<float>::V simd_max(Vec16<float>::V a, Vec16<float>::V b) { return _mm_max_ps(a, b); }
inline Vec16<float>::V simd_min(Vec16<float>::V a, Vec16<float>::V b) { return _mm_min_ps(a, b); }
inline Vec16<double>::V simd_max(Vec16<double>::V a, Vec16<double>::V b) { return _mm_max_pd(a, b); }
inline Vec16<double>::V simd_min(Vec16<double>::V a, Vec16<double>::V b) { return _mm_min_pd(a, b); }
#endif

// Max/Min/Fmax/Fmin of contiguous floats in vector registers. The compiler cannot vectorise the
// NaN-propagating scalar op, so NaNs are tracked in a mask beside bitwise compare-selects: Max and
// Min give NaN if any element is NaN, Fmax and Fmin ignore NaNs (NaN if all are). A run may be fed
// in pieces (the fused reductions compute theirs a chunk at a time): every piece but the last a
// multiple of kStep values, the lanes see the same values as in one call, and so the result, down
// to the sign of a zero, is the same.
template <class T, ReduceOp Op>
class VecExtreme {
  using V = typename Vec16<T>::V;
  using M = typename Vec16<T>::M;
  static constexpr int L = 16 / sizeof(T), U = 4;
  static constexpr bool is_max = Op == ReduceOp::Max || Op == ReduceOp::Fmax;
  static constexpr bool propagate = Op == ReduceOp::Max || Op == ReduceOp::Min;
  static constexpr T start = is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();

 public:
  static constexpr int64_t kStep = U * L;

  void feed(const T* p, int64_t n) {
    // Named registers, not arrays: arrays indexed by lane afterwards get spilled to the stack.
    V r0 = r_[0], r1 = r_[1], r2 = r_[2], r3 = r_[3];
    M f0 = f_[0], f1 = f_[1], f2 = f_[2], f3 = f_[3];
    auto ld = [](const T* q) {
      V v;
      std::memcpy(&v, q, sizeof(V));
      return v;
    };
    auto step = [](V& r, M& f, V x) {
#ifdef __SSE2__
      // maxps/minps are exactly `x > r ? x : r` (a NaN x leaves r): one instruction.
      r = is_max ? simd_max(x, r) : simd_min(x, r);
#else
      M m = is_max ? (x > r) : (x < r);
      r = (V)(((M)x & m) | ((M)r & ~m));
#endif
      f |= propagate ? (x != x) : (x == x);
    };
    int64_t i = 0;
    for (; i + kStep <= n; i += kStep) {
      step(r0, f0, ld(p + i));
      step(r1, f1, ld(p + i + L));
      step(r2, f2, ld(p + i + 2 * L));
      step(r3, f3, ld(p + i + 3 * L));
    }
    r_[0] = r0, r_[1] = r1, r_[2] = r2, r_[3] = r3;
    f_[0] = f0, f_[1] = f1, f_[2] = f2, f_[3] = f3;
    tail_ = p + i;  // the last piece's rest, taken after the lanes as in one call
    ntail_ = n - i;
  }

  // The extreme of everything fed; the last piece must still be in memory.
  T finish() const {
    T best = start;
    bool flag = false;
    auto take = [&](T x) { best = (is_max ? x > best : x < best) ? x : best; };
    for (int k = 0; k < U; ++k) {
      for (int l = 0; l < L; ++l) {
        take(r_[k][l]);
        flag |= f_[k][l] != 0;
      }
    }
    for (int64_t i = 0; i < ntail_; ++i) {
      const T x = tail_[i];
      flag |= propagate ? x != x : x == x;
      take(x);
    }
    return flag == propagate ? std::numeric_limits<T>::quiet_NaN() : best;
  }

 private:
  V r_[U] = {V{} + start, V{} + start, V{} + start, V{} + start};
  M f_[U] = {};
  const T* tail_ = nullptr;
  int64_t ntail_ = 0;
};

template <class T, ReduceOp Op>
T vec_extreme(const T* p, int64_t n) {
  VecExtreme<T, Op> e;
  e.feed(p, n);
  return e.finish();
}

// A value reduction: T is the loop dtype's storage type, Acc what it accumulates in.
template <class T, class F, ReduceOp Op>
struct ValueR {
  static constexpr ReduceOp kOp = Op;
  using in_t = T;
  using acc_t = compute_t<T>;
  using out_t = T;
  F f;
  acc_t load(T x) const { return static_cast<acc_t>(x); }
  acc_t op(acc_t a, acc_t b) const { return f(a, b); }
  out_t finish(acc_t a) const { return convert<T>(a); }
};

// any / all over any input dtype: truth values, or-ed or and-ed.
template <class T, bool All>
struct LogicR {
  static constexpr ReduceOp kOp = All ? ReduceOp::All : ReduceOp::Any;
  using in_t = T;
  using acc_t = bool;
  using out_t = bool;
  bool load(T x) const { return truth(x); }
  bool op(bool a, bool b) const { return All ? (a && b) : (a || b); }
  bool finish(bool a) const { return a; }
};

// Calls go(R{}) with the ValueR of a value reduction op (sum, prod, max, min, fmax, fmin) over T;
// other ops are not value reductions and call nothing.
template <class T, class Go>
void with_value_reducer(ReduceOp op, Go&& go) {
  switch (op) {
    case ReduceOp::Sum: return go(ValueR<T, sop::Add, ReduceOp::Sum>{});
    case ReduceOp::Prod: return go(ValueR<T, sop::Multiply, ReduceOp::Prod>{});
    case ReduceOp::Max: return go(ValueR<T, sop::Maximum, ReduceOp::Max>{});
    case ReduceOp::Min: return go(ValueR<T, sop::Minimum, ReduceOp::Min>{});
    case ReduceOp::Fmax: return go(ValueR<T, sop::Fmax, ReduceOp::Fmax>{});
    case ReduceOp::Fmin: return go(ValueR<T, sop::Fmin, ReduceOp::Fmin>{});
    default: return;
  }
}

// A reducer's identity and starting value (initial=, or the identity again), from their bytes in
// the loop dtype (one bool for any/all), as accumulators.
template <class R>
std::pair<typename R::acc_t, typename R::acc_t> reducer_start(const R& r, const void* id_bytes,
                                                              const void* init_bytes) {
  using Acc = typename R::acc_t;
  using T = typename R::in_t;
  if constexpr (std::is_same_v<Acc, bool>) {
    // initial= of a bool max/min (max(..., initial=True)) starts the result like any other's.
    return {*static_cast<const bool*>(id_bytes), *static_cast<const bool*>(init_bytes)};
  } else {
    T idv, initv;
    std::memcpy(&idv, id_bytes, sizeof(T));
    std::memcpy(&initv, init_bytes, sizeof(T));
    return {r.load(idv), r.load(initv)};
  }
}

// The reduction of n >= 1 contiguous values of the loop dtype, as one run: the vector kernels
// for float/double sums and extremes, NumPy's pairwise tree otherwise.
template <class R>
typename R::acc_t reduce_contig(const R& r, const typename R::in_t* q, int64_t n, typename R::acc_t id) {
  using T = typename R::in_t;
  using Acc = typename R::acc_t;
  constexpr ReduceOp op_kind = R::kOp;
  constexpr bool flt = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if constexpr (flt && (op_kind == ReduceOp::Max || op_kind == ReduceOp::Min || op_kind == ReduceOp::Fmax ||
                        op_kind == ReduceOp::Fmin)) {
    return vec_extreme<T, op_kind>(q, n);
  } else if constexpr (flt && op_kind == ReduceOp::Sum) {
    return pairwise_sum_contig(q, n);
  } else {
    return pairwise_reduce<true>(q, n, 1, id, [&r](T x) { return r.load(x); },
                                 [&r](Acc a, Acc b) { return r.op(a, b); });
  }
}

// ---- argmax / argmin: the first index of the extreme; NaN is the extreme -------------------------

template <class T> bool arg_isnan(T x) {
  if constexpr (is_cplx_v<T>) return x.re != x.re || x.im != x.im;
  else if constexpr (std::is_same_v<T, half>) return float(x) != float(x);
  else return x != x;
}
template <class T> bool arg_better(T x, T best, bool max) {
  if constexpr (is_cplx_v<T>) {
    return max ? (x.re > best.re || (x.re == best.re && x.im > best.im))
               : (x.re < best.re || (x.re == best.re && x.im < best.im));
  } else if constexpr (std::is_same_v<T, half>) {
    return max ? float(x) > float(best) : float(x) < float(best);
  } else {
    return max ? x > best : x < best;
  }
}

// arg_run over n contiguous floats: each block of 256 is reduced with the vector max/min first
// and scanned only when it holds a NaN or beats the best so far (the first index of the block's
// extreme). The same answer as the scalar scan, at the speed of max(): the scan alone ran at
// half NumPy's.
template <class T>
std::pair<int64_t, T> arg_run_contig(const T* p, int64_t n, bool max) {
  constexpr int64_t B = 256;
  int64_t bi = 0;
  T best = p[0];
  for (int64_t b0 = 0; b0 < n; b0 += B) {
    const T* q = p + b0;
    const int64_t m = std::min(B, n - b0);
    const T ext = max ? vec_extreme<T, ReduceOp::Max>(q, m) : vec_extreme<T, ReduceOp::Min>(q, m);
    if (ext != ext) {  // a NaN: the first one wins
      for (int64_t j = 0;; ++j) {
        if (q[j] != q[j]) return {b0 + j, q[j]};
      }
    }
    if (max ? ext > best : ext < best) {
      int64_t j = 0;
      while (!(q[j] == ext)) ++j;
      bi = b0 + j;
      best = ext;
    }
  }
  return {bi, best};
}

// The winner of [b, e) along a strided run: (index, value); stops at the first NaN.
template <class T>
std::pair<int64_t, T> arg_run(const T* p, int64_t b, int64_t e, int64_t s, bool max) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (s == 1) {
      std::pair<int64_t, T> w = arg_run_contig(p + b, e - b, max);
      w.first += b;
      return w;
    }
  }
  int64_t bi = b;
  T best = p[b * s];
  if (arg_isnan(best)) return {bi, best};
  for (int64_t i = b + 1; i < e; ++i) {
    T x = p[i * s];
    if (arg_isnan(x)) return {i, x};
    if (arg_better(x, best, max)) {
      best = x;
      bi = i;
    }
  }
  return {bi, best};
}

}  // namespace nf::cpu
