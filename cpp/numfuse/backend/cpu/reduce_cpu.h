// The CPU reduction kernels: one setup pass (make_iter_space keyed on the input, so reduced dims
// are walked in memory order), then either an inner reduction per output element (pairwise for
// floats, as NumPy) or an outer reduction that accumulates whole rows into a block of outputs.
#pragma once
#include <cstdint>

#include "numfuse/core/array.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/ir/reduce.h"

namespace nf::cpu {

// Computes spec over `in` (materialised, any strides) into `out` (fresh C-contiguous, in's rank
// with the reduced dims of extent 1).
void reduce(const ReduceSpec& spec, const Array& in, const Array& out);
// ReduceOp::Var (backend/cpu/var_cpu.cpp): m2 / max(n - ddof, 0) per output, ddof in spec.initial.
void variance(const ReduceSpec& spec, const Array& in, const Array& out);

// NumPy's pairwise reduction (numpy/_core/src/umath/loops_utils.h.src): under 8 elements a
// plain loop; up to 128 eight accumulators combined as a tree; above that, halves split at a
// multiple of 8. Its rounding error grows as O(log n) instead of O(n). `load` converts an
// element to the accumulator type, `op` combines two accumulators.
template <bool Contig, class Acc, class T, class Load, class Op>
Acc pairwise_reduce(const T* p, int64_t n, int64_t s, Acc id, const Load& load, const Op& op) {
  const int64_t st = Contig ? 1 : s;
  if (n < 8) {
    Acc res = id;
    for (int64_t i = 0; i < n; ++i) res = op(res, load(p[i * st]));
    return res;
  }
  if (n <= 128) {
    Acc r[8];
    for (int j = 0; j < 8; ++j) r[j] = load(p[j * st]);
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      // As NumPy: without a software prefetch 512 bytes ahead, this runs at a fraction of the
      // memory bandwidth on large arrays (the recursion defeats the hardware prefetcher).
      __builtin_prefetch(p + (i + 512 / sizeof(T)) * st, 0, 3);
      for (int j = 0; j < 8; ++j) r[j] = op(r[j], load(p[(i + j) * st]));
    }
    Acc res = op(op(op(r[0], r[1]), op(r[2], r[3])), op(op(r[4], r[5]), op(r[6], r[7])));
    for (; i < n; ++i) res = op(res, load(p[i * st]));
    return res;
  }
  if (n > kInterruptCheckItems) check_interrupt();
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  // The halves in memory order, named: the arguments of a call may be evaluated in any order
  // (GCC goes right to left), and walking memory backwards defeats the hardware prefetcher.
  const Acc lo = pairwise_reduce<Contig>(p, n2, s, id, load, op);
  const Acc hi = pairwise_reduce<Contig>(p + n2 * st, n - n2, s, id, load, op);
  return op(lo, hi);
}

// The pairwise sum of n floats (stride s, in elements), accumulated in Acc.
template <class Acc, class T>
Acc pairwise_sum(const T* p, int64_t n, int64_t s = 1) {
  auto load = [](T x) { return static_cast<Acc>(x); };
  auto add = [](Acc a, Acc b) { return a + b; };
  if (s == 1) return pairwise_reduce<true>(p, n, 1, Acc(0), load, add);
  return pairwise_reduce<false>(p, n, s, Acc(0), load, add);
}

}  // namespace nf::cpu
