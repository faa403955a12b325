// The express lane of the ufunc family (ops/elementwise_express.h): small host ops of a Python
// loop computed in the call, without a node, through Backend::run_ufunc_now.
#include "numfuse/ops/elementwise_express.h"

#include "numfuse/backend/backend.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/flush.h"

namespace nf {

namespace {

// Operand a's strides over the broadcast `shape`, in elements (0 where a repeats).
void broadcast_strides(const Array& a, const Shape& shape, Strides& st) {
  const size_t nd = shape.size(), lead = nd - a.shape.size();
  st.assign(nd, 0);
  for (size_t d = 0; d < a.shape.size(); ++d) {
    if (a.shape[d] != 1) st[lead + d] = a.strides[d];
  }
}

// The express lane's setup pass: unit dims dropped and a dim merged into the next where one step
// of it is a whole run of the next for every operand. The core's make_iter_space does this and
// more (reordering, a reduce mask) with heap vectors; this one allocates nothing and keeps C
// order, the order the fresh outputs are written in.
void coalesce_express(Shape& shape, Strides* st, int nops) {
  size_t w = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = w > 0;
    for (int k = 0; merge && k < nops; ++k) merge = st[k][w - 1] == st[k][d] * shape[d];
    if (merge) {
      shape[w - 1] *= shape[d];
      for (int k = 0; k < nops; ++k) st[k][w - 1] = st[k][d];
    } else {
      shape[w] = shape[d];
      for (int k = 0; k < nops; ++k) st[k][w] = st[k][d];
      ++w;
    }
  }
  shape.resize(w);
  for (int k = 0; k < nops; ++k) st[k].resize(w);
}

}  // namespace

ResolvedLoop& last_resolved_loop() {
  thread_local ResolvedLoop last;
  return last;
}

bool run_express(UFunc op, const LoopSignature& sig, const Operand* const* ins,
                 const DType* weak_dtype, const Shape& shape, Device device,
                 const UFuncOptions& opts, Array* fresh, bool* written) {
  if (!device.is_cpu()) return false;
  const GraphLimits& lim = graph_limits();
  if (lim.immediate_max <= 0 || lim.trace) return false;
  // The element count without overflowing: a broadcast shape past int64 is refused later, at the
  // node's size check, with NumPy's error.
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == 0) {
      n = 0;
      break;
    }
    if (d > lim.immediate_max || n > lim.immediate_max / d) return false;
    n *= d;
  }
  const int nin = ufunc_nin(op), nout = ufunc_nout(op);
  Array scalars[2];  // weak scalars in their loop dtype (cached constants)
  const void* in[2];
  Strides st[4];
  for (int i = 0; i < nin; ++i) {
    const Operand& o = *ins[i];
    const Array* a = &o.array;
    if (o.weak != WeakKind::None) {
      scalars[i] = loop_input(o, weak_dtype[i]);
      a = &scalars[i];
    }
    // pending() without the graph lock, as run_immediately reads it (graph/eval.cpp).
    if (a->pending() || a->dtype != sig.in[i] || !a->device().is_cpu()) return false;
    broadcast_strides(*a, shape, st[i]);
    in[i] = a->data();
  }
  // Every output is either a given target written in place (of the loop's dtype and the
  // broadcast shape, nothing pending reading it) or fresh; targets of another dtype or shape are
  // assigned from a fresh result afterwards, as the node's results would be.
  void* out[2];
  bool direct[2] = {false, false};
  for (int j = 0; j < nout; ++j) {
    const Array* t = j < static_cast<int>(opts.out.size()) && opts.out[j] ? &*opts.out[j] : nullptr;
    direct[j] = t && t->dtype == sig.out[j] && t->shape == shape && writable_now(*t);
  }
  if (nout == 2 && direct[0] != direct[1]) direct[0] = direct[1] = false;  // one way for both
  for (int j = 0; j < nout; ++j) {
    if (direct[j]) {
      const Array& t = *opts.out[j];
      st[nin + j] = t.strides;
      out[j] = t.data();
    } else {
      fresh[j] = Array::empty(shape, sig.out[j], device);
      st[nin + j] = fresh[j].strides;
      out[j] = fresh[j].data();
    }
  }
  if (n == 0) {
    written[0] = direct[0];
    written[1] = direct[1];
    return true;
  }
  Shape space = shape;
  coalesce_express(space, st, nin + nout);
  if (backend_for(device).run_ufunc_now(op, sig.in, sig.out, in, out, space, st, !direct[0])) {
    written[0] = direct[0];
    written[1] = direct[1];
    return true;
  }
  for (int j = 0; j < nout; ++j) fresh[j] = Array();
  return false;
}

bool ufunc2_arrays_now(UFunc op, const Array& a, const Array& b, Array* result) {
  // Power's integer loops check the exponents' signs first (ufunc_into); the rest of ufunc_into's
  // checks concern weak scalars, out= and where=, none of which are here.
  if (op == UFunc::Power || ufunc_nin(op) != 2 || ufunc_nout(op) != 1) return false;
  if (a.shape != b.shape || a.pending() || b.pending() || !a.device().is_cpu() ||
      !b.device().is_cpu())
    return false;
  const GraphLimits& lim = graph_limits();
  const int64_t n = a.size();
  if (lim.immediate_max <= 0 || lim.trace || n > lim.immediate_max) return false;
  const OperandType types[2] = {{a.dtype, WeakKind::None}, {b.dtype, WeakKind::None}};
  const DType no_out[2] = {DType::Bool, DType::Bool};
  ResolvedLoop& last = last_resolved_loop();
  LoopSignature sig;
  if (last.matches(op, types, 2, 0u, no_out)) {
    sig = last.sig;
  } else {
    sig =
        resolve_ufunc(op, types);  // NumPy's errors (no loop, casting) at the call, as ufunc_into's
    check_ufunc_casting(op, sig, types, no_out, 0u, Casting::SameKind);
    last = ResolvedLoop{op,  {types[0], types[1]}, 0u,  {no_out[0], no_out[1]},
                        sig, {a.dtype, b.dtype},   true};
  }
  if (sig.in[0] != a.dtype || sig.in[1] != b.dtype || (sig.flags & kLoopPyIntAnyValue))
    return false;
  Array out = Array::empty(a.shape, sig.out[0], Device::cpu());
  const void* in[2] = {a.data(), b.data()};
  void* outp[2] = {out.data(), nullptr};
  Shape space = a.shape;
  Strides st[3] = {a.strides, b.strides, out.strides};
  coalesce_express(space, st, 3);  // contiguous operands: one run
  if (n > 0 &&
      !backend_for(Device::cpu()).run_ufunc_now(op, sig.in, sig.out, in, outp, space, st, true)) {
    return false;
  }
  *result = std::move(out);
  return true;
}

bool ufunc2_array_float_now(UFunc op, const Array& a, double v, bool scalar_first, Array* result) {
  if (op == UFunc::Power || ufunc_nin(op) != 2 || ufunc_nout(op) != 1) return false;
  if (a.pending() || !a.device().is_cpu()) return false;
  const GraphLimits& lim = graph_limits();
  const int64_t n = a.size();
  if (lim.immediate_max <= 0 || lim.trace || n > lim.immediate_max) return false;
  const int ai = scalar_first ? 1 : 0, si = 1 - ai;  // operand positions of the array, the float
  OperandType types[2];
  types[ai] = {a.dtype, WeakKind::None};
  types[si] = {DType::Float64, WeakKind::PyFloat};
  const DType no_out[2] = {DType::Bool, DType::Bool};
  ResolvedLoop& last = last_resolved_loop();
  LoopSignature sig;
  DType weak;
  if (last.matches(op, types, 2, 0u, no_out)) {
    sig = last.sig;
    weak = last.weak_dtype[si];
  } else {
    sig = resolve_ufunc(op, types);
    check_ufunc_casting(op, sig, types, no_out, 0u, Casting::SameKind);
    weak = weak_operand_dtype(op, sig, types, si);
    DType weak_dtypes[2];
    weak_dtypes[ai] = a.dtype;
    weak_dtypes[si] = weak;
    last = ResolvedLoop{op,  {types[0], types[1]},
                        0u,  {no_out[0], no_out[1]},
                        sig, {weak_dtypes[0], weak_dtypes[1]},
                        true};
  }
  if (sig.in[ai] != a.dtype || sig.in[si] != weak || (sig.flags & kLoopPyIntAnyValue)) return false;
  const Array s = constant_scalar(&v, DType::Float64, weak);  // the cached constant, converted
  Array out = Array::empty(a.shape, sig.out[0], Device::cpu());
  const void* in[2];
  in[ai] = a.data();
  in[si] = s.data();
  void* outp[2] = {out.data(), nullptr};
  Shape space = a.shape;
  Strides st[3];
  st[ai] = a.strides;
  st[si].assign(a.shape.size(), 0);
  st[2] = out.strides;
  coalesce_express(space, st, 3);
  if (n > 0 &&
      !backend_for(Device::cpu()).run_ufunc_now(op, sig.in, sig.out, in, outp, space, st, true)) {
    return false;
  }
  *result = std::move(out);
  return true;
}

}  // namespace nf
