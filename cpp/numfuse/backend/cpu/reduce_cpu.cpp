#include "numfuse/backend/cpu/reduce_cpu.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "numfuse/backend/cpu/reduce_kernels.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/cpu/ufunc_loops.h"

namespace nf::cpu {

Layout make_layout(const Array& in, const std::vector<bool>& axes) {
  Strides out_s = contiguous_strides([&] {
    Shape s;
    for (int d = 0; d < in.ndim(); ++d) s.push_back(axes[d] ? 1 : in.shape[d]);
    return s;
  }());
  for (int d = 0; d < in.ndim(); ++d) {
    if (axes[d]) out_s[d] = 0;
  }
  IterSpace sp = make_iter_space(in.shape, {out_s, in.strides}, 1);
  Layout L;
  L.kept.strides.assign(2, Strides{});
  L.red.strides.assign(1, Strides{});
  for (int d = 0; d < sp.ndim(); ++d) {
    if (sp.strides[0][d] == 0 && sp.shape[d] > 1) {
      L.red.shape.push_back(sp.shape[d]);
      L.red.strides[0].push_back(sp.strides[1][d]);
      L.inner_reduced = d == sp.ndim() - 1;
    } else {
      L.kept.shape.push_back(sp.shape[d]);
      L.kept.strides[0].push_back(sp.strides[0][d]);
      L.kept.strides[1].push_back(sp.strides[1][d]);
    }
  }
  return L;
}

void offsets_at(const IterSpace& sp, int64_t i, int64_t* off) {
  for (size_t k = 0; k < sp.strides.size(); ++k) off[k] = 0;
  for (int d = sp.ndim() - 1; d >= 0; --d) {
    int64_t idx = i % sp.shape[d];
    i /= sp.shape[d];
    for (size_t k = 0; k < sp.strides.size(); ++k) off[k] += idx * sp.strides[k][d];
  }
}

namespace {

template <class R>
class Reducer {
 public:
  using T = typename R::in_t;
  using Acc = typename R::acc_t;
  using Out = typename R::out_t;

  Reducer(R r, const Layout& L, const Array& in, CastLoop cast, Acc id, Acc init, char* out)
      : r_(r), L_(L), in_(in.data()), isz_(int64_t(in.itemsize())), cast_(cast), id_(id),
        init_(init), out_(reinterpret_cast<Out*>(out)) {}

  void run() {
    if (L_.inner_reduced || L_.kept.ndim() == 0) {
      inner();
    } else {
      outer();
    }
  }

 private:
  // n elements from p (bytes, stride s in input elements), cast on the fly when needed.
  Acc run_reduce(const char* p, int64_t n, int64_t s) const {
    auto load = [this](T x) { return r_.load(x); };
    auto op = [this](Acc a, Acc b) { return r_.op(a, b); };
    if (!cast_) {
      const T* q = reinterpret_cast<const T*>(p);
      if (s == 1) return reduce_contig(r_, q, n, id_);
      return pairwise_reduce<false>(q, n, s, id_, load, op);
    }
    T buf[kCastChunk];
    Acc acc = id_;
    for (int64_t i = 0; i < n; i += kCastChunk) {
      int64_t m = std::min(kCastChunk, n - i);
      cast_(p + i * s * isz_, s, buf, m);
      acc = r_.op(acc, pairwise_reduce<true>(buf, m, 1, id_, load, op));
    }
    return acc;
  }

  // The reduced sub-space [b, e) below one output (`base`: the output's first input element).
  Acc reduce_range(const char* base, int64_t b, int64_t e) const {
    const IterSpace& red = L_.red;
    if (red.ndim() == 0) return run_reduce(base, 1, 1);
    if (red.ndim() == 1) return run_reduce(base + b * red.strides[0][0] * isz_, e - b, red.strides[0][0]);
    Acc acc = id_;
    const int64_t s = red.strides[0].back();
    for_each_run(red, b, e, std::numeric_limits<int64_t>::max(), [&](const int64_t* off, int64_t n) {
      acc = r_.op(acc, run_reduce(base + off[0] * isz_, n, s));
    });
    return acc;
  }

  // Innermost dim reduced: each output reduces a run (or several) on its own.
  void inner() {
    const IterSpace& kept = L_.kept;
    const int64_t nout = kept.size(), nred = L_.red.size();
    if (nout == 1 && nred >= 2 * kMinParallel && num_threads() > 1) {
      // One output: each thread reduces a slice; slices combine in order.
      // A few slices per thread, claimed dynamically (parallel_for), so a busy core costs little.
      const int64_t parts = 4 * num_threads();
      std::vector<Acc> partial(parts, id_);
      int64_t off[2];
      offsets_at(kept, 0, off);
      const char* base = in_ + off[1] * isz_;
      parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
          int64_t b = nred * p / parts, e = nred * (p + 1) / parts;
          b -= b % 8;  // keep the pairwise blocks aligned as in one pass
          if (p + 1 < parts) e -= e % 8;
          partial[p] = reduce_range(base, b, e);
        }
      });
      Acc acc = partial[0];
      for (int64_t p = 1; p < parts; ++p) acc = r_.op(acc, partial[p]);
      out_[off[0]] = r_.finish(r_.op(init_, acc));
      return;
    }
    const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(nred, 1));
    parallel_for(nout, grain, [&](int64_t b, int64_t e) {
      const int64_t so = kept.ndim() ? kept.strides[0].back() : 0;
      const int64_t si = kept.ndim() ? kept.strides[1].back() : 0;
      for_each_run(kept, b, e, std::numeric_limits<int64_t>::max(), [&](const int64_t* off, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          Acc acc = reduce_range(in_ + (off[1] + j * si) * isz_, 0, nred);
          out_[off[0] + j * so] = r_.finish(r_.op(init_, acc));
        }
      });
    });
  }

  // acc[j] = op(acc[j], row[j * s]) for j < n: the vectorisable heart of the outer reduction.
  void accumulate_row(Acc* acc, const char* row, int64_t n, int64_t s) const {
    if (cast_) {
      T buf[kBlock];
      for (int64_t c = 0; c < n; c += kBlock) {
        const int64_t m = std::min(kBlock, n - c);
        cast_(row + c * s * isz_, s, buf, m);
        for (int64_t j = 0; j < m; ++j) acc[c + j] = r_.op(acc[c + j], r_.load(buf[j]));
      }
      return;
    }
    const T* p = reinterpret_cast<const T*>(row);
    if (s == 1) {
      for (int64_t j = 0; j < n; ++j) acc[j] = r_.op(acc[j], r_.load(p[j]));
    } else {
      for (int64_t j = 0; j < n; ++j) acc[j] = r_.op(acc[j], r_.load(p[j * s]));
    }
  }

  // Accumulates the reduced rows [rb, re) into acc[0..n) for the columns starting at `base`.
  void accumulate_rows(Acc* acc, const char* base, int64_t n, int64_t s, int64_t rb, int64_t re) const {
    const IterSpace& red = L_.red;
    // No reduced dim (axis=(), or only size-1 axes): one row per output, at offset 0.
    const int64_t rs = red.ndim() ? red.strides[0].back() : 0;
    for_each_run(red, rb, re, std::numeric_limits<int64_t>::max(), [&](const int64_t* off, int64_t m) {
      for (int64_t i = 0; i < m; ++i) accumulate_row(acc, base + (off[0] + i * rs) * isz_, n, s);
    });
  }

  // Innermost dim kept: rows of the input accumulate into blocks of outputs (outer_plan), as
  // NumPy accumulates rows (sequential along the reduced dims, vectorised across outputs).
  void outer() {
    const IterSpace& kept = L_.kept;
    const int kd = kept.ndim();
    const int64_t ncol = kept.shape[kd - 1];
    const int64_t so = kept.strides[0][kd - 1], si = kept.strides[1][kd - 1];
    const int64_t nouter = kept.size() / ncol, nred = L_.red.size();
    IterSpace outer_sp = kept;  // the kept dims but the innermost
    outer_sp.shape.pop_back();
    for (auto& st : outer_sp.strides) st.pop_back();
    // Few outputs over many rows: the rows are split between threads too, partials combine in order.
    const OuterPlan P = outer_plan(ncol, nouter, nred, num_threads());
    const int64_t rsplit = P.rsplit, width = P.width, nblk = P.nblk, items = nouter * nblk;
    std::vector<Acc> partial(rsplit > 1 ? size_t(rsplit * kept.size()) : 0);
    const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(nred * width, 1));
    parallel_for(items * rsplit, rsplit > 1 ? 1 : grain, [&](int64_t b, int64_t e) {
      thread_local std::unique_ptr<Acc[]> acc_buf(new Acc[kMaxWidth]);
      Acc* acc = acc_buf.get();
      for (int64_t w = b; w < e; ++w) {
        const int64_t item = w % items, part = w / items;
        const int64_t o = item / nblk, c0 = (item % nblk) * width, n = std::min(width, ncol - c0);
        int64_t off[2] = {0, 0};
        if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
        for (int64_t j = 0; j < n; ++j) acc[j] = id_;
        const char* base = in_ + (off[1] + c0 * si) * isz_;
        accumulate_rows(acc, base, n, si, nred * part / rsplit, nred * (part + 1) / rsplit);
        if (rsplit > 1) {
          std::copy(acc, acc + n, partial.begin() + part * kept.size() + o * ncol + c0);
          continue;
        }
        Out* dst = out_ + off[0] + c0 * so;
        for (int64_t j = 0; j < n; ++j) dst[j * so] = r_.finish(r_.op(init_, acc[j]));
      }
    });
    if (rsplit == 1) return;
    for (int64_t o = 0; o < nouter; ++o) {
      int64_t off[2] = {0, 0};
      if (outer_sp.ndim()) offsets_at(outer_sp, o, off);
      for (int64_t j = 0; j < ncol; ++j) {
        Acc a = partial[o * ncol + j];
        for (int64_t p = 1; p < rsplit; ++p) a = r_.op(a, partial[p * kept.size() + o * ncol + j]);
        out_[off[0] + j * so] = r_.finish(r_.op(init_, a));
      }
    }
  }

  R r_;
  const Layout& L_;
  const char* in_;
  int64_t isz_;
  CastLoop cast_;
  Acc id_, init_;
  Out* out_;
};

template <class R>
void run_reducer(R r, const Layout& L, const Array& in, CastLoop cast, const void* id_bytes,
                 const void* init_bytes, const Array& out) {
  auto [id, init] = reducer_start(r, id_bytes, init_bytes);
  Reducer<R>(r, L, in, cast, id, init, out.data()).run();
}

template <class T>
void value_reduce(const ReduceSpec& spec, const Layout& L, const Array& in, const Array& out) {
  unsigned char id[16], init[16];
  reduce_identity(spec.op, spec.loop, id);
  std::memcpy(init, spec.has_initial ? spec.initial : id, sizeof(init));
  CastLoop cast = in.dtype == spec.loop ? nullptr : find_cast_loop(in.dtype, spec.loop);
  with_value_reducer<T>(spec.op, [&](auto r) { run_reducer(r, L, in, cast, id, init, out); });
}

// ---- argmax / argmin (the scans are in reduce_kernels.h) ---------------------------------------

template <class T>
void arg_reduce(const ReduceSpec& spec, const Layout& L, const Array& in, const Array& out) {
  const bool max = spec.op == ReduceOp::ArgMax;
  const T* src = in.data_as<T>();
  int64_t* dst = out.data_as<int64_t>();
  const IterSpace& kept = L.kept;
  const int64_t n = L.red.size(), s = L.red.ndim() ? L.red.strides[0][0] : 1;
  if (kept.size() == 1 && n >= 2 * kMinParallel && num_threads() > 1) {
    const int64_t parts = 4 * num_threads();
    std::vector<std::pair<int64_t, T>> partial(parts);
    parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) partial[p] = arg_run(src, n * p / parts, n * (p + 1) / parts, s, max);
    });
    auto win = partial[0];
    for (int64_t p = 1; p < parts && !arg_isnan(win.second); ++p) {
      if (arg_isnan(partial[p].second) || arg_better(partial[p].second, win.second, max)) win = partial[p];
    }
    int64_t off[2];
    offsets_at(kept, 0, off);
    dst[off[0]] = win.first;
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kMinParallel / std::max<int64_t>(n, 1));
  parallel_for(kept.size(), grain, [&](int64_t b, int64_t e) {
    const int64_t so = kept.ndim() ? kept.strides[0].back() : 0;
    const int64_t si = kept.ndim() ? kept.strides[1].back() : 0;
    for_each_run(kept, b, e, std::numeric_limits<int64_t>::max(), [&](const int64_t* off, int64_t m) {
      for (int64_t j = 0; j < m; ++j) dst[off[0] + j * so] = arg_run(src + off[1] + j * si, 0, n, s, max).first;
    });
  });
}

}  // namespace

void reduce(const ReduceSpec& spec, const Array& in, const Array& out) {
  if (out.size() == 0) return;
  if (in.size() == 0) {  // every output reduces nothing: the initial value or the identity
    unsigned char v[16];
    if (spec.has_initial) {
      std::memcpy(v, spec.initial, sizeof(v));
    } else {
      reduce_identity(spec.op, out.dtype, v);
    }
    const size_t sz = out.itemsize();
    for (int64_t i = 0; i < out.size(); ++i) std::memcpy(out.data() + i * sz, v, sz);
    return;
  }
  Layout L = make_layout(in, spec.axes);
  switch (spec.op) {
    case ReduceOp::Any:
    case ReduceOp::All: {
      const bool all = spec.op == ReduceOp::All;
      unsigned char id = all ? 1 : 0;
      NF_DISPATCH(in.dtype, reduce_op_name(spec.op), {
        if (all) run_reducer(LogicR<scalar_t, true>{}, L, in, nullptr, &id, &id, out);
        else run_reducer(LogicR<scalar_t, false>{}, L, in, nullptr, &id, &id, out);
      });
      return;
    }
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      NF_DISPATCH(in.dtype, reduce_op_name(spec.op), { arg_reduce<scalar_t>(spec, L, in, out); });
      return;
    default:
      NF_DISPATCH(spec.loop, reduce_op_name(spec.op), { value_reduce<scalar_t>(spec, L, in, out); });
  }
}

}  // namespace nf::cpu
