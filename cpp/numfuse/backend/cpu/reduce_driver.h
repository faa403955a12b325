// The one CPU reduction driver, for arrays in memory (reduce_cpu.cpp) and for values a fused
// group computes as it goes (reduce_fused_cpu.cpp): they differ only in where values come from
// (a Source), so the split into inner and outer reductions, the division of work between threads
// and the association of every result are decided here once, and fusion never changes a result.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "numfuse/backend/cpu/reduce_kernels.h"
#include "numfuse/backend/cpu/reduce_rows.h"
#include "numfuse/backend/cpu/thread_pool.h"

namespace nf::cpu {

// A Source<R> gives the driver the values of the reduction's input in the loop dtype (R::in_t):
//   int64_t outputs_per_call() const;   outputs reduce_outputs() takes at once at most
//   Acc reduce_range(int64_t o, int64_t in_off, int64_t b, int64_t e) const;
//       the reduced values [b, e) of kept output o (flat index in L.kept; in_off: its first input
//       element, as L.kept's operand 1 gives it), reduced as runs
//   template <class F> void reduce_outputs(int64_t o, int64_t in_off, int64_t si, int64_t n, F f)
//   const;
//       f(j, acc) with the whole reduction of outputs o + j, j < n (consecutive along the innermost
//       kept dim, input offsets in_off + j * si)
//   template <class F> void rows(int64_t o, int64_t in_off, int64_t si, int64_t c0, int64_t n,
//                                int64_t rb, int64_t re, F f) const;
//       for the reduced rows [rb, re) in order: f(v, s, c, m) hands columns [c0 + c, c0 + c + m)
//       of the row, v[j * s] for j < m, every column of [c0, c0 + n) once per row; o: the flat
//       index of the output row (L.kept without its innermost dim), in_off the input offset of
//       its column c0, si the input stride between columns

// acc[j] = op(acc[j], v[j * s]) for j < n: the loop NumPy runs to add whole rows, which the
// compiler vectorises along the contiguous axis. Float sums and max/min go to reduce_rows.cpp's
// kernels, built for several instruction sets.
template <class R>
void accumulate_row(const R& r, typename R::acc_t* acc, const typename R::in_t* v, int64_t n,
                    int64_t s) {
  using T = typename R::in_t;
  using Acc = typename R::acc_t;
  constexpr ReduceOp op = R::kOp;
  if constexpr (std::is_same_v<T, Acc> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    if (s == 1) {
      if constexpr (op == ReduceOp::Sum) return add_row(acc, v, n);
      if constexpr (op == ReduceOp::Max) return max_row(acc, v, n);
      if constexpr (op == ReduceOp::Min) return min_row(acc, v, n);
      if constexpr (op == ReduceOp::Fmax) return fmax_row(acc, v, n);
      if constexpr (op == ReduceOp::Fmin) return fmin_row(acc, v, n);
    }
  }
  if (s == 1) {
    for (int64_t j = 0; j < n; ++j) acc[j] = r.op(acc[j], r.load(v[j]));
  } else {
    for (int64_t j = 0; j < n; ++j) acc[j] = r.op(acc[j], r.load(v[j * s]));
  }
}

template <class R, class Src>
class ReduceDriver {
 public:
  using T = typename R::in_t;
  using Acc = typename R::acc_t;
  using Out = typename R::out_t;

  // `out`: the output array's data, addressed by L.kept's operand 0.
  ReduceDriver(R r, const Layout& L, Src src, Acc id, Acc init, char* out)
      : r_(r), L_(L), src_(src), id_(id), init_(init), out_(reinterpret_cast<Out*>(out)) {}

  void run() {
    if (L_.inner_reduced || L_.kept.ndim() == 0) {
      inner();
    } else {
      outer();
    }
  }

 private:
  Out finish(Acc a) const { return r_.finish(r_.op(init_, a)); }

  // Innermost dim reduced: each output reduces a run (or several) on its own.
  void inner() {
    const IterSpace& kept = L_.kept;
    const int64_t nout = kept.size(), nred = L_.red.size();
    if (nout == 1 && nred >= 2 * kMinParallel && num_threads() > 1) {
      // One output: each thread reduces a slice; slices combine in order. A few slices per thread,
      // claimed dynamically (parallel_for), so a busy core costs little.
      const int64_t parts = 4 * num_threads();
      std::vector<Acc> partial(parts, id_);
      int64_t off[2];
      offsets_at(kept, 0, off);
      parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
          int64_t b = nred * p / parts, e = nred * (p + 1) / parts;
          b -= b % 8;  // keep the pairwise blocks aligned as in one pass
          if (p + 1 < parts) e -= e % 8;
          partial[p] = src_.reduce_range(0, off[1], b, e);
        }
      });
      Acc acc = partial[0];
      for (int64_t p = 1; p < parts; ++p) acc = r_.op(acc, partial[p]);
      out_[off[0]] = finish(acc);
      return;
    }
    const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(nred, 1));
    parallel_for(nout, grain, [&](int64_t b, int64_t e) {
      const int64_t so = kept.ndim() ? kept.strides[0].back() : 0;
      const int64_t si = kept.ndim() ? kept.strides[1].back() : 0;
      int64_t o = b;
      for_each_run(kept, b, e, src_.outputs_per_call(), [&](const int64_t* off, int64_t n) {
        src_.reduce_outputs(o, off[1], si, n,
                            [&](int64_t j, Acc acc) { out_[off[0] + j * so] = finish(acc); });
        o += n;
      });
    });
  }

  // Innermost dim kept: whole rows of the input accumulate into a row of outputs in order, as
  // NumPy adds them (sequential along the reduced dims, vectorised along the contiguous one).
  void outer() {
    const IterSpace& kept = L_.kept;
    const int kd = kept.ndim();
    const int64_t ncol = kept.shape[kd - 1];
    const int64_t so = kept.strides[0][kd - 1], si = kept.strides[1][kd - 1];
    const int64_t nouter = kept.size() / ncol, nred = L_.red.size();
    IterSpace outer_sp = kept;  // the kept dims but the innermost
    outer_sp.shape.pop_back();
    for (auto& st : outer_sp.strides) st.pop_back();
    const OuterPlan P = outer_plan(ncol, nouter, nred, num_threads(), sizeof(Acc));
    const int64_t rsplit = P.rsplit, width = P.width, nblk = P.nblk, items = nouter * nblk;
    // Partial rows: not zeroed (every element is filled with the identity before its part runs).
    std::unique_ptr<Acc[]> partial(rsplit > 1 ? new Acc[size_t(rsplit * kept.size())] : nullptr);
    // Where the output has the accumulator's type and is contiguous along the row, rows accumulate
    // in the output itself, from the initial value as NumPy does: no buffer, no second pass.
    constexpr bool same_type = std::is_same_v<Acc, Out>;
    const bool direct = same_type && rsplit == 1 && so == 1;
    const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(nred * width, 1));
    parallel_for(items * rsplit, rsplit > 1 ? 1 : grain, [&](int64_t b, int64_t e) {
      std::unique_ptr<Acc[]> own;
      Acc* buf = rsplit > 1 || direct ? nullptr : scratch_row(own, width);
      for (int64_t w = b; w < e; ++w) {
        const int64_t item = w % items, part = w / items;
        const int64_t o = item / nblk, c0 = (item % nblk) * width, n = std::min(width, ncol - c0);
        int64_t off[2] = {0, 0};
        if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
        Acc* acc = buf;
        if (rsplit > 1) acc = partial.get() + part * kept.size() + o * ncol + c0;
        if constexpr (same_type) {
          if (direct) acc = out_ + off[0] + c0;
        }
        std::fill(acc, acc + n, direct ? init_ : id_);
        int64_t since_check = 0;  // a task may be the whole reduction: Ctrl-C is seen within it
        src_.rows(o, off[1] + c0 * si, si, c0, n, nred * part / rsplit, nred * (part + 1) / rsplit,
                  [&](const T* v, int64_t s, int64_t c, int64_t m) {
                    accumulate_row(r_, acc + c, v, m, s);
                    if ((since_check += m) >= kInterruptCheckItems) {
                      since_check = 0;
                      check_interrupt();
                    }
                  });
        if (rsplit > 1 || direct) continue;
        Out* dst = out_ + off[0] + c0 * so;
        for (int64_t j = 0; j < n; ++j) dst[j * so] = finish(acc[j]);
      }
    });
    if (rsplit == 1) return;
    // The parts' partial rows combine in order.
    parallel_for(kept.size(), kMinParallel / rsplit, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t o = i / ncol, j = i % ncol;
        int64_t off[2] = {0, 0};
        if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
        Acc a = partial[i];
        for (int64_t p = 1; p < rsplit; ++p) a = r_.op(a, partial[p * kept.size() + i]);
        out_[off[0] + j * so] = finish(a);
      }
    });
  }

  R r_;
  const Layout& L_;
  Src src_;
  Acc id_, init_;
  Out* out_;
};

// argmax / argmin as a Source sees them: values in their own dtype, no cast (ops/ casts none).
template <class T, bool Max>
struct ArgR {
  static constexpr ReduceOp kOp = Max ? ReduceOp::ArgMax : ReduceOp::ArgMin;
  using in_t = T;
  using acc_t = T;
  using out_t = int64_t;
};

// One row r of an outer argmax/argmin: where v beats best (the first extreme wins ties; the first
// NaN wins and stays), best and idx take the row's value and r. Branch-free selects: vectorisable.
template <class T>
void arg_update_row(T* best, int64_t* idx, const T* v, int64_t n, int64_t s, int64_t r, bool max) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (s == 1) {
      if (max) {
        for (int64_t j = 0; j < n; ++j) {
          const T x = v[j], b = best[j];
          const bool take = x > b || (x != x && b == b);
          best[j] = take ? x : b;
          idx[j] = take ? r : idx[j];
        }
      } else {
        for (int64_t j = 0; j < n; ++j) {
          const T x = v[j], b = best[j];
          const bool take = x < b || (x != x && b == b);
          best[j] = take ? x : b;
          idx[j] = take ? r : idx[j];
        }
      }
      return;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const T x = v[j * s], b = best[j];
    if (arg_isnan(b)) continue;
    if (arg_isnan(x) || arg_better(x, b, max)) {
      best[j] = x;
      idx[j] = r;
    }
  }
}

// argmax / argmin with the innermost dim kept (L.kept.ndim() > 0, !L.inner_reduced): rows of
// values update a row of winners in order, split between threads as the value reductions are
// (outer_plan), the parts' winners combined in order. `src`: a Source<ArgR<T, Max>>.
template <class T, class Src>
void arg_outer(bool max, const Layout& L, const Src& src, int64_t* dst) {
  const IterSpace& kept = L.kept;
  const int kd = kept.ndim();
  const int64_t ncol = kept.shape[kd - 1];
  const int64_t so = kept.strides[0][kd - 1], si = kept.strides[1][kd - 1];
  const int64_t nouter = kept.size() / ncol, nred = L.red.size();
  IterSpace outer_sp = kept;
  outer_sp.shape.pop_back();
  for (auto& st : outer_sp.strides) st.pop_back();
  const OuterPlan P = outer_plan(ncol, nouter, nred, num_threads(), sizeof(T) + sizeof(int64_t));
  const int64_t rsplit = P.rsplit, width = P.width, nblk = P.nblk, items = nouter * nblk;
  std::vector<T> part_best(rsplit > 1 ? size_t(rsplit * kept.size()) : 0);
  std::vector<int64_t> part_idx(part_best.size());
  const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(nred * width, 1));
  parallel_for(items * rsplit, rsplit > 1 ? 1 : grain, [&](int64_t b, int64_t e) {
    std::unique_ptr<T[]> own_best;
    std::unique_ptr<int64_t[]> own_idx;
    T* best = scratch_row(own_best, width);
    int64_t* idx = scratch_row<int64_t, 1>(own_idx, width);
    for (int64_t w = b; w < e; ++w) {
      const int64_t item = w % items, part = w / items;
      const int64_t o = item / nblk, c0 = (item % nblk) * width, n = std::min(width, ncol - c0);
      const int64_t rb = nred * part / rsplit, re = nred * (part + 1) / rsplit;
      int64_t off[2] = {0, 0};
      if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
      int64_t r = rb;  // the row rows() hands now: it ends where the columns reach n
      int64_t since_check = 0;
      src.rows(o, off[1] + c0 * si, si, c0, n, rb, re,
               [&](const T* v, int64_t s, int64_t c, int64_t m) {
                 if ((since_check += m) >= kInterruptCheckItems) {
                   since_check = 0;
                   check_interrupt();
                 }
                 if (r == rb) {
                   for (int64_t j = 0; j < m; ++j) best[c + j] = v[j * s], idx[c + j] = r;
                 } else {
                   arg_update_row(best + c, idx + c, v, m, s, r, max);
                 }
                 if (c + m == n) ++r;
               });
      if (rsplit > 1) {
        const int64_t at = part * kept.size() + o * ncol + c0;
        std::copy(best, best + n, part_best.begin() + at);
        std::copy(idx, idx + n, part_idx.begin() + at);
        continue;
      }
      for (int64_t j = 0; j < n; ++j) dst[off[0] + (c0 + j) * so] = idx[j];
    }
  });
  if (rsplit == 1) return;
  for (int64_t o = 0; o < nouter; ++o) {
    int64_t off[2] = {0, 0};
    if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
    for (int64_t j = 0; j < ncol; ++j) {
      T win = part_best[o * ncol + j];
      int64_t wi = part_idx[o * ncol + j];
      for (int64_t p = 1; p < rsplit && !arg_isnan(win); ++p) {
        const T x = part_best[p * kept.size() + o * ncol + j];
        if (arg_isnan(x) || arg_better(x, win, max))
          win = x, wi = part_idx[p * kept.size() + o * ncol + j];
      }
      dst[off[0] + j * so] = wi;
    }
  }
}

// argmax / argmin over L (any layout): arg_outer when the innermost dim is kept; else each output
// scans its run (Source::arg_range / arg_outputs), one output split between threads when it is
// the only one, the slices' winners combined in order (the first NaN, else the first extreme).
template <class T, class Src>
void arg_reduce_layout(bool max, const Layout& L, const Src& src, int64_t* dst) {
  if (!L.inner_reduced && L.kept.ndim() > 0) return arg_outer<T>(max, L, src, dst);
  const IterSpace& kept = L.kept;
  const int64_t nout = kept.size(), n = L.red.size();
  if (nout == 1 && n >= 2 * kMinParallel && num_threads() > 1) {
    const int64_t parts = 4 * num_threads();
    std::vector<std::pair<int64_t, T>> partial(parts);
    int64_t off[2];
    offsets_at(kept, 0, off);
    parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p)
        partial[p] = src.arg_range(0, off[1], n * p / parts, n * (p + 1) / parts, max);
    });
    auto win = partial[0];
    for (int64_t p = 1; p < parts && !arg_isnan(win.second); ++p) {
      if (arg_isnan(partial[p].second) || arg_better(partial[p].second, win.second, max))
        win = partial[p];
    }
    dst[off[0]] = win.first;
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(n, 1));
  parallel_for(nout, grain, [&](int64_t b, int64_t e) {
    const int64_t so = kept.ndim() ? kept.strides[0].back() : 0;
    const int64_t si = kept.ndim() ? kept.strides[1].back() : 0;
    int64_t o = b;
    for_each_run(kept, b, e, src.outputs_per_call(), [&](const int64_t* off, int64_t m) {
      src.arg_outputs(o, off[1], si, m, max,
                      [&](int64_t j, int64_t idx) { dst[off[0] + j * so] = idx; });
      o += m;
    });
  });
}

}  // namespace nf::cpu
