#include "numfuse/backend/cpu/reduce_fused_cpu.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "numfuse/backend/cpu/fp_check_cpu.h"
#include "numfuse/backend/cpu/prologue_cpu.h"
#include "numfuse/backend/cpu/reduce_driver.h"
#include "numfuse/backend/cpu/reduce_kernels.h"
#include "numfuse/backend/cpu/run_buffers.h"
#include "numfuse/backend/cpu/thread_pool.h"

namespace nf::cpu {

namespace {

// Values computed at once. Any size gives the same results: a run's pairwise tree splits the same
// way wherever its values come from, so its subtrees of at most kChunk values are computed and
// reduced one at a time. Small enough that the values and the program's scratch stay in L1 between
// being computed and being reduced (4096 doubles ran 40% slower); a multiple of kCastChunk, so
// that casts see reduce_cpu's chunks.
constexpr int64_t kChunk = 1024;
static_assert(kChunk % kCastChunk == 0, "chunks must align");

// The per-thread buffer of computed values (kChunk of the widest dtype).
char* value_buffer() {
  thread_local std::unique_ptr<char[]> buf(new char[kChunk * 16 + 64]);
  return buf.get();
}

// The orders in which the reductions ask for values (Prologue::space). The layout (reduce_cpu's
// make_layout over the value as if it were stored C-contiguous, as the unfused path stores it)
// decides everything else; these orders walk the same elements as its kept and reduced spaces.
struct Orders {
  std::vector<int> by_output;  // kept dims, then reduced dims: flat index = output * nred + r
  std::vector<int> by_row;     // kept dims but the trailing ones, reduced dims, trailing kept dims:
                               // flat index = (outer * nred + r) * ncol + column
};

Orders make_orders(const Shape& shape, const std::vector<bool>& axes) {
  std::vector<int> kept, red;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (shape[d] != 1) (axes[d] ? red : kept).push_back(d);
  }
  Orders o;
  o.by_output = kept;
  o.by_output.insert(o.by_output.end(), red.begin(), red.end());
  const int last_red = red.empty() ? -1 : red.back();
  for (int d : kept) {
    if (d < last_red) o.by_row.push_back(d);
  }
  o.by_row.insert(o.by_row.end(), red.begin(), red.end());
  for (int d : kept) {
    if (d > last_red) o.by_row.push_back(d);
  }
  return o;
}

// The values of the reduction's input computed by the prologue, a chunk at a time, into a small
// per-thread buffer: the same runs as reduce_cpu's MemorySource over the value stored C-contiguous
// (a run's pairwise tree splits the same way wherever its values come from).
template <class R>
class FusedSource {
 public:
  using T = typename R::in_t;
  using Acc = typename R::acc_t;

  FusedSource(R r, const Layout& L, const Prologue& pro, const IterSpace& by_output, const IterSpace& by_row,
              CastLoop cast, Acc id)
      : r_(r), L_(L), pro_(pro), A_(by_output), B_(by_row), cast_(cast), id_(id),
        vsize_(int64_t(itemsize(pro.dtype()))) {}

  // Short reductions: the values of several outputs are computed in one go.
  int64_t outputs_per_call() const {
    const int64_t nred = L_.red.size();
    return L_.red.ndim() <= 1 && kChunk / nred >= 2 ? kChunk / nred : 1;
  }

  Acc reduce_range(int64_t o, int64_t, int64_t b, int64_t e) const {
    const IterSpace& red = L_.red;
    const int64_t base = o * red.size();
    if (red.ndim() <= 1) return run_values(base + b, red.ndim() == 0 ? 1 : e - b);
    Acc acc = id_;
    int64_t pos = b;
    // Short runs (a middle axis kept: sum over axes 0 and 2, say) are consecutive values of the
    // by-output order: one fill computes a window of several, each reduced as its own run, as
    // run_values would (a fill per run of 100 values ran at half NumPy's speed).
    int64_t win_lo = 0, win_hi = 0;
    const char* vals = value_buffer();
    for_each_run(red, b, e, std::numeric_limits<int64_t>::max(), [&](const int64_t*, int64_t n) {
      if (n > kChunk / 2) {
        acc = op(acc, run_values(base + pos, n));
        win_hi = win_lo;  // run_values used the buffer
      } else {
        if (pos + n > win_hi) {
          win_lo = pos;
          win_hi = std::min(e, pos + kChunk);
          pro_.fill(A_, base + win_lo, win_hi - win_lo, value_buffer());
        }
        acc = op(acc, reduce_buffer(vals + (pos - win_lo) * vsize_, n));
      }
      pos += n;
    });
    return acc;
  }

  template <class F>
  void reduce_outputs(int64_t o, int64_t, int64_t, int64_t n, F&& f) const {
    const int64_t nred = L_.red.size();
    if (n == 1) return f(int64_t(0), reduce_range(o, 0, 0, nred));
    char* vals = value_buffer();
    pro_.fill(A_, o * nred, n * nred, vals);
    for (int64_t k = 0; k < n; ++k) f(k, reduce_buffer(vals + k * nred * vsize_, nred));
  }

  // argmax / argmin (R = ArgR): the winner of values [b, e) of output o, a chunk at a time; the
  // first NaN ends the scan.
  std::pair<int64_t, T> arg_range(int64_t o, int64_t, int64_t b, int64_t e, bool max) const {
    const int64_t nred = L_.red.size();
    char* vals = value_buffer();
    const T* v = reinterpret_cast<const T*>(vals);
    std::pair<int64_t, T> best{-1, T{}};
    for (int64_t i = b; i < e; i += kChunk) {
      const int64_t m = std::min(kChunk, e - i);
      pro_.fill(A_, o * nred + i, m, vals);
      std::pair<int64_t, T> w = arg_run(v, 0, m, 1, max);
      w.first += i;
      if (best.first < 0 || arg_isnan(w.second) || arg_better(w.second, best.second, max)) best = w;
      if (arg_isnan(best.second)) break;
    }
    return best;
  }

  template <class F>
  void arg_outputs(int64_t o, int64_t, int64_t, int64_t n, bool max, F&& f) const {
    const int64_t nred = L_.red.size();
    if (n == 1) return f(int64_t(0), arg_range(o, 0, 0, nred, max).first);
    char* vals = value_buffer();
    const T* v = reinterpret_cast<const T*>(vals);
    pro_.fill(A_, o * nred, n * nred, vals);
    for (int64_t k = 0; k < n; ++k) f(k, arg_run(v + k * nred, 0, nred, 1, max).first);
  }

  // Rows [rb, re) of columns [c0, c0 + n) of outer output o, computed a chunk at a time.
  template <class F>
  void rows(int64_t o, int64_t, int64_t, int64_t c0, int64_t n, int64_t rb, int64_t re, F&& f) const {
    const int64_t ncol = L_.kept.shape.back(), nred = L_.red.size();
    char* vals = value_buffer();
    if (n == ncol && ncol <= kChunk / 2) {  // whole short rows are consecutive: several per fill
      const int64_t rows = kChunk / ncol;
      for (int64_t r = rb; r < re; r += rows) {
        const int64_t m = std::min(rows, re - r);
        pro_.fill(B_, (o * nred + r) * ncol, m * ncol, vals);
        for (int64_t i = 0; i < m; ++i) give(vals + i * ncol * vsize_, 0, n, f);
      }
      return;
    }
    for (int64_t r = rb; r < re; ++r) {
      for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t m = std::min(kChunk, n - c);
        pro_.fill(B_, (o * nred + r) * ncol + c0 + c, m, vals);
        give(vals, c, m, f);
      }
    }
  }

 private:
  Acc op(Acc a, Acc b) const { return r_.op(a, b); }

  // Hands m computed values (columns c...) to f in the loop dtype.
  template <class F>
  void give(const char* vals, int64_t c, int64_t m, F& f) const {
    if (!cast_) return f(reinterpret_cast<const T*>(vals), int64_t(1), c, m);
    T buf[kChunk];
    cast_(vals, 1, buf, m);
    f(buf, int64_t(1), c, m);
  }

  // Continues `acc` over n computed values that need a cast: kCastChunk at a time, as reduce_cpu.
  Acc cast_chunks(Acc acc, const char* vals, int64_t n) const {
    T buf[kCastChunk];
    auto load = [this](T x) { return r_.load(x); };
    auto opf = [this](Acc a, Acc b) { return r_.op(a, b); };
    for (int64_t i = 0; i < n; i += kCastChunk) {
      const int64_t m = std::min(kCastChunk, n - i);
      cast_(vals + i * vsize_, 1, buf, m);
      acc = op(acc, pairwise_reduce<true>(buf, m, 1, id_, load, opf));
    }
    return acc;
  }

  // One run of n values already computed.
  Acc reduce_buffer(const char* vals, int64_t n) const {
    if (cast_) return cast_chunks(id_, vals, n);
    return reduce_contig(r_, reinterpret_cast<const T*>(vals), n, id_);
  }

  // The values [f, f + n) of the by-output space as one run (reduce_cpu's run_reduce).
  Acc run_values(int64_t f, int64_t n) const {
    char* vals = value_buffer();
    constexpr ReduceOp op_kind = R::kOp;
    if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                  (op_kind == ReduceOp::Max || op_kind == ReduceOp::Min || op_kind == ReduceOp::Fmax ||
                   op_kind == ReduceOp::Fmin)) {
      if (!cast_) {  // reduce_contig's vector extreme, fed a chunk at a time
        static_assert(kChunk % VecExtreme<T, op_kind>::kStep == 0, "pieces must keep the lanes");
        VecExtreme<T, op_kind> e;
        for (int64_t i = 0; i < n; i += kChunk) {
          if (i % kInterruptCheckItems == 0) check_interrupt();
          const int64_t m = std::min(kChunk, n - i);
          pro_.fill(A_, f + i, m, vals);
          e.feed(reinterpret_cast<const T*>(vals), m);
        }
        return e.finish();
      }
    }
    if (cast_) {
      Acc acc = id_;
      for (int64_t i = 0; i < n; i += kChunk) {
        if (i % kInterruptCheckItems == 0) check_interrupt();
        const int64_t m = std::min(kChunk, n - i);
        pro_.fill(A_, f + i, m, vals);
        acc = cast_chunks(acc, vals, m);
      }
      return acc;
    }
    if (n <= kChunk) {
      pro_.fill(A_, f, n, vals);
      return reduce_contig(r_, reinterpret_cast<const T*>(vals), n, id_);
    }
    if (n > kInterruptCheckItems) check_interrupt();
    int64_t n2 = n / 2;  // pairwise_reduce's split; the halves in memory order
    n2 -= n2 % 8;
    const Acc lo = run_values(f, n2);
    return op(lo, run_values(f + n2, n - n2));
  }

  R r_;
  const Layout& L_;
  const Prologue& pro_;
  const IterSpace &A_, &B_;
  CastLoop cast_;
  Acc id_;
  int64_t vsize_;
};

template <class R>
void run_fused(R r, const Layout& L, const Prologue& pro, const IterSpace& A, const IterSpace& B, CastLoop cast,
               const void* id_bytes, const void* init_bytes, const Array& out) {
  auto [id, init] = reducer_start(r, id_bytes, init_bytes);
  ReduceDriver<R, FusedSource<R>>(r, L, FusedSource<R>(r, L, pro, A, B, cast, id), id, init, out.data()).run();
}

template <class T>
void value_fused(const ReduceSpec& spec, const Layout& L, const Prologue& pro, const IterSpace& A,
                 const IterSpace& B, const Array& out) {
  unsigned char id[16], init[16];
  reduce_identity(spec.op, spec.loop, id);
  std::memcpy(init, spec.has_initial ? spec.initial : id, sizeof(init));
  CastLoop cast = pro.dtype() == spec.loop ? nullptr : find_cast_loop(pro.dtype(), spec.loop);
  with_value_reducer<T>(spec.op, [&](auto r) { run_fused(r, L, pro, A, B, cast, id, init, out); });
}

// argmax / argmin over computed values: the driver's, a chunk of values at a time.
template <class T>
void arg_fused(bool max, const Layout& L, const Prologue& pro, const IterSpace& A, const IterSpace& B,
               const Array& out) {
  using R = ArgR<T, true>;
  arg_reduce_layout<T>(max, L, FusedSource<R>(R{}, L, pro, A, B, nullptr, T{}), out.data_as<int64_t>());
}

}  // namespace

namespace {
void reduce_program(const ReduceSpec& spec, const GroupProgram& p, const Array& out, const Prologue& pro);
}  // namespace

void run_reduction_program(const ReduceSpec& spec, const GroupProgram& p, const Array& out, FpState state) {
  if (out.size() == 0) return;
  fp_hw_take();  // earlier work's flags are not this group's
  Prologue pro(p);
  reduce_program(spec, p, out, pro);
  pro.record_fp_flags();  // the steps' flags were taken as they ran: what is left is the reduction's
  if (uint8_t f = fp_hw_take() | pro.flags_before_fills()) record_reduce_flags(spec.op, state, f);
}

namespace {
void reduce_program(const ReduceSpec& spec, const GroupProgram& p, const Array& out, const Prologue& pro) {
  const DType vt = p.dtype_of(p.reduced);
  if (numel(p.shape) == 0) {  // nothing to compute: every output is the initial value or identity
    reduce(spec, Array::empty(p.shape, vt, Device::cpu()), out);
    return;
  }
  if (spec.op == ReduceOp::Var) {  // the GPU's one-pass variance: here from the stored value
    Array stored = Array::empty(p.shape, vt, Device::cpu());
    std::vector<int> all(p.shape.size());
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int>(d);
    pro.fill(pro.space(all), 0, numel(p.shape), stored.data());
    variance(spec, stored, out);
    return;
  }
  // The layout of the value as the unfused path would store it: C-contiguous.
  Array stored;
  stored.dtype = vt;
  stored.shape = p.shape;
  stored.strides = contiguous_strides(p.shape);
  const Layout L = make_layout(stored, spec.axes);
  const Orders orders = make_orders(p.shape, spec.axes);
  const IterSpace A = pro.space(orders.by_output);
  switch (spec.op) {
    case ReduceOp::Any:
    case ReduceOp::All: {
      const bool all = spec.op == ReduceOp::All;
      const unsigned char id = all ? 1 : 0;
      NF_DISPATCH(vt, reduce_op_name(spec.op), {
        if (all) run_fused(LogicR<scalar_t, true>{}, L, pro, A, pro.space(orders.by_row), nullptr, &id, &id, out);
        else run_fused(LogicR<scalar_t, false>{}, L, pro, A, pro.space(orders.by_row), nullptr, &id, &id, out);
      });
      return;
    }
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      NF_DISPATCH(vt, reduce_op_name(spec.op), { arg_fused<scalar_t>(spec.op == ReduceOp::ArgMax, L, pro, A, pro.space(orders.by_row), out); });
      return;
    default: {
      const IterSpace B = pro.space(orders.by_row);
      NF_DISPATCH(spec.loop, reduce_op_name(spec.op), { value_fused<scalar_t>(spec, L, pro, A, B, out); });
    }
  }
}

}  // namespace

}  // namespace nf::cpu
