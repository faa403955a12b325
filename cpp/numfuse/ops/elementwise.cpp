#include "numfuse/ops/elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "numfuse/backend/backend.h"
#include "numfuse/core/block_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/flush.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/ir/node.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/elementwise_express.h"
#include "numfuse/ops/reduction.h"

namespace nf {

namespace {

// Weak Python scalars become 0-d host arrays (kernel parameters). They are cached per thread by
// value, dtype and the dtype they are converted to: `b = b + 1.0` in a loop reuses one constant
// instead of allocating (and converting) one per op, and a fused group reads it as one leaf.
// Nothing outside the graph ever holds these arrays, so nothing writes into them: their storages
// are marked constant and pending readers of them are not tracked.
class ScalarCache {
 public:
  Array get(const void* value, DType from, DType to) {
    const size_t n = itemsize(from);
    unsigned char bytes[16] = {};
    std::memcpy(bytes, value, n);
    uint64_t w[2];
    std::memcpy(w, bytes, 16);
    // Every key bit must reach the index bits: `b + 1.0` on float32 looks up (1.0, f64 -> f64)
    // and (1.0, f64 -> f32) on every op, keys that differ only in `to`.
    uint64_t h = mix(mix(w[0] ^ (static_cast<uint64_t>(from) << 56 | static_cast<uint64_t>(to) << 48)) ^ w[1]);
    // Two ways per set: the two keys of one op never evict each other.
    Entry* set = &entries_[(h % (kEntries / 2)) * 2];
    for (int way = 0; way < 2; ++way) {
      Entry& e = set[way];
      if (e.array.storage && e.from == from && e.to == to && std::memcmp(e.bytes, bytes, 16) == 0) {
        set[1 - way].recent = false;
        e.recent = true;
        return e.array;
      }
    }
    Entry& e = set[0].recent ? set[1] : set[0];  // replace the way not used last
    set[0].recent = set[1].recent = false;
    e.recent = true;
    Array a = Array::scalar(bytes, from);
    if (to != from) {
      Array converted = Array::empty({}, to, Device::cpu());
      backend::copy_into(a, converted);
      a = std::move(converted);
    }
    a.storage->constant = true;
    e.from = from;
    e.to = to;
    std::memcpy(e.bytes, bytes, 16);
    e.array = a;
    return a;
  }

 private:
  static constexpr size_t kEntries = 32;
  struct Entry {
    DType from = DType::Bool, to = DType::Bool;
    unsigned char bytes[16] = {};
    bool recent = false;
    Array array;
  };
  static uint64_t mix(uint64_t x) {  // MurmurHash3's 64-bit finaliser
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
  }
  Entry entries_[kEntries];
};

}  // namespace

Array constant_scalar(const void* value, DType from, DType to) {
  thread_local ScalarCache cache;
  return cache.get(value, from, to);
}

Array loop_input(const Operand& op, DType loop) {
  if (op.weak == WeakKind::None || op.array.dtype == loop) return op.array;
  return constant_scalar(op.array.data(), op.array.dtype, loop);
}

Operand Operand::py_int(int64_t v) {
  return {constant_scalar(&v, DType::Int64, DType::Int64), WeakKind::PyInt};
}
Operand Operand::py_uint(uint64_t v) {
  return {constant_scalar(&v, DType::UInt64, DType::UInt64), WeakKind::PyInt};
}
Operand Operand::py_float(double v) {
  return {constant_scalar(&v, DType::Float64, DType::Float64), WeakKind::PyFloat};
}
Operand Operand::py_complex(double re, double im) {
  complex128 c(re, im);
  return {constant_scalar(&c, DType::Complex128, DType::Complex128), WeakKind::PyComplex};
}
Operand Operand::py_bool(bool v) { return Operand::of(constant_scalar(&v, DType::Bool, DType::Bool)); }

Device common_device(const Array* const* arrays, size_t n) {
  const Array* first = nullptr;
  bool host_array = false;  // a host scalar that is an array, not a Python scalar's constant
  for (size_t i = 0; i < n; ++i) {
    const Array* a = arrays[i];
    if (a->ndim() == 0 && !a->pending() && a->device().is_cpu() && a->storage->nbytes <= 16) {
      host_array = host_array || !a->storage->constant;
      continue;  // host scalars are kernel parameters on any device
    }
    if (!first) {
      first = a;
    } else if (a->device() != first->device()) {
      throw ValueError("arrays are on different devices: " + first->device().str() + " and " +
                       a->device().str() + "; move one with asarray(x, device=...)");
    }
  }
  // Only scalars: an operation of host 0-d arrays stays on the host (the default device, a GPU
  // where there is one, is for operations of Python scalars alone).
  if (first) return first->device();
  return host_array ? Device::cpu() : default_device();
}

Device common_device(const std::vector<const Array*>& arrays) {
  return common_device(arrays.data(), arrays.size());
}

namespace {

PyIntValue pyint_value(const Operand& op) {
  if (op.array.dtype == DType::UInt64) return PyIntValue::of_unsigned(*op.array.data_as<uint64_t>());
  return PyIntValue::of(*op.array.data_as<int64_t>());
}

// A weak Python int must fit the integer dtype it meets (NEP 50): OverflowError otherwise.
void check_weak_int_fits(const Operand& op, DType target) {
  if (op.weak == WeakKind::PyInt) check_pyint_fits(pyint_value(op), target);
}

// Whether an integer array holds a negative value (a 0-d host value is read directly; anything
// else through a min reduction on its device).
bool min_is_negative(const Array& a) {
  if (a.size() == 0) return false;
  Array m = a.view(Shape{}, Strides{}, a.byte_offset);  // the one element, as a 0-d array
  if (a.size() > 1 || a.pending() || !a.device().is_cpu()) {
    m = astype(reduce(ReduceOp::Min, a), DType::Int64, false);
    eval(m, FlushReason::DataDependent);
  }
  Array h = Array::empty({}, DType::Int64, Device::cpu());
  backend::copy_into(m, h);
  return *h.data_as<int64_t>() < 0;
}

// The one implementation behind ufunc/ufunc1/ufunc2. Operands arrive by pointer and results go to
// `results[nout]`: every op of a Python loop passes here, so nothing but the node itself and its
// outputs is allocated.
void ufunc_into(UFunc op, const Operand* const* ins, const UFuncOptions& opts, Array* results) {
  const int nin = ufunc_nin(op), nout = ufunc_nout(op);
  OperandType types[2];
  for (int i = 0; i < nin; ++i) types[i] = {ins[i]->array.dtype, ins[i]->weak};
  LoopSignature sig;
  DType weak_dtype[2];
  // Resolution and its casting checks are a pure function of the op, the operand types and the
  // out= dtypes when no dtype= or casting= is given: the last such call of this thread is
  // remembered (a Python loop repeats one op, `a[i:, j] /= s` with its out= included).
  DType out_dtypes_given[2] = {DType::Bool, DType::Bool};
  unsigned out_mask = 0;
  for (size_t j = 0; j < opts.out.size() && j < 2; ++j) {
    if (opts.out[j]) {
      out_dtypes_given[j] = opts.out[j]->dtype;
      out_mask |= 1u << j;
    }
  }
  const bool plain = !opts.dtype && opts.out.size() <= 2 && opts.casting == Casting::SameKind;
  ResolvedLoop& last = last_resolved_loop();
  if (plain && last.matches(op, types, nin, out_mask, out_dtypes_given)) {
    sig = last.sig;
    weak_dtype[0] = last.weak_dtype[0];
    weak_dtype[1] = last.weak_dtype[1];
  } else {
    sig = opts.dtype ? resolve_ufunc_with_dtype(op, types, *opts.dtype) : resolve_ufunc(op, types);
    check_ufunc_casting(op, sig, types, out_dtypes_given, out_mask, opts.casting);
    // Weak operands take the dtype NumPy gives them.
    for (int i = 0; i < nin; ++i) {
      weak_dtype[i] = ins[i]->weak == WeakKind::None ? ins[i]->array.dtype : weak_operand_dtype(op, sig, types, i);
    }
    if (plain) {
      last = ResolvedLoop{op, {types[0], types[1]}, out_mask, {out_dtypes_given[0], out_dtypes_given[1]},
                          sig, {weak_dtype[0], weak_dtype[1]}, true};
    }
  }
  // Python ints must fit their weak dtype, except in comparisons, where an out-of-range int makes
  // the answer constant (uint8 < -1: all False).
  std::optional<bool> constant_result;
  for (int i = 0; i < nin; ++i) {
    if (ins[i]->weak != WeakKind::PyInt) continue;
    if (sig.flags & kLoopPyIntAnyValue) {
      PyIntCompare c = pyint_comparison_outcome(op, i, pyint_value(*ins[i]), sig.in[i]);
      if (c != PyIntCompare::InRange) constant_result = c == PyIntCompare::AllTrue;
    } else {
      check_pyint_fits(pyint_value(*ins[i]), weak_dtype[i]);
    }
  }

  // NumPy refuses integer powers with a negative exponent, at the call: an array of exponents
  // is evaluated and its minimum read for that, as NumPy's eager loop would have read it.
  if (op == UFunc::Power && is_integer(sig.in[1]) && is_integer(ins[1]->array.dtype) &&
      !is_unsigned(ins[1]->array.dtype) && min_is_negative(ins[1]->array)) {
    throw ValueError("Integers to negative integer powers are not allowed.");
  }

  const Array* arrays[6];
  size_t narrays = 0;
  for (int i = 0; i < nin; ++i) arrays[narrays++] = &ins[i]->array;
  for (size_t j = 0; j < opts.out.size() && j < 2; ++j) {
    if (opts.out[j]) arrays[narrays++] = &*opts.out[j];
  }
  if (opts.where) arrays[narrays++] = &*opts.where;
  Device device = common_device(arrays, narrays);
  Shape shape = nin == 1 ? ins[0]->array.shape : broadcast_shapes(ins[0]->array.shape, ins[1]->array.shape);
  if (opts.where) {  // where= broadcasts with the operands (and may widen the result)
    std::vector<Shape> all;
    for (int i = 0; i < nin; ++i) all.push_back(ins[i]->array.shape);
    all.push_back(opts.where->shape);
    shape = broadcast_shapes(all);
  }

  Array fresh[2];
  const bool fresh_result = opts.out.empty() && !opts.where;
  bool written[2] = {false, false};  // the express lane stored this output into its target
  if (constant_result) {
    bool v = *constant_result;
    fresh[0] = full(shape, DType::Bool, &v, device);
  } else if (!opts.where && run_express(op, sig, ins, weak_dtype, shape, device, opts, fresh, written)) {
    // computed in the call
  } else {
    auto node = std::allocate_shared<UFuncNode>(PoolAllocator<UFuncNode>());
    node->ufunc = op;
    node->device = device;
    node->inputs.reserve(static_cast<size_t>(nin));
    for (int i = 0; i < nin; ++i) {
      node->in_loop.push_back(sig.in[i]);
      node->inputs.push_back(loop_input(*ins[i], weak_dtype[i]));
    }
    node->out_loop.assign(sig.out, sig.out + nout);
    // A result written into out= stays pending: assign() redirects its kernel into the target.
    make_pending(std::move(node), sig.out, shape, nout, fresh, fresh_result ? RunNow::IfSmall : RunNow::Never);
  }

  if (opts.out.empty() && !opts.where) {
    for (int j = 0; j < nout; ++j) results[j] = std::move(fresh[j]);
    return;
  }
  // out= / where=: the results are written into the given arrays (NumPy's semantics).
  for (int j = 0; j < nout; ++j) {
    const std::optional<Array>* given = j < static_cast<int>(opts.out.size()) ? &opts.out[j] : nullptr;
    if (!given || !*given) {
      // NumPy leaves unselected elements of a fresh output uninitialised: any values will do.
      results[j] = fresh[j];
      continue;
    }
    const Array& out = **given;
    if (broadcast_shapes(out.shape, shape) != out.shape) {
      throw ValueError("non-broadcastable output operand with shape " + shape_str(out.shape) +
                       " doesn't match the broadcast shape " + shape_str(shape));
    }
    if (!out.writeable) throw ValueError("output array is read-only");
    if (written[j]) {
      // stored by the express lane
    } else if (opts.where) {
      Array selected = where(Operand::of(*opts.where), Operand::of(fresh[j]), Operand::of(out));
      assign(out, selected, Casting::Unsafe, /*src_is_temporary=*/true);
    } else {
      assign(out, fresh[j], Casting::Unsafe, /*src_is_temporary=*/nout == 1);
    }
    results[j] = out;
  }
}

}  // namespace

std::vector<Array> ufunc(UFunc op, const std::vector<Operand>& ins, const UFuncOptions& opts) {
  const int nin = ufunc_nin(op), nout = ufunc_nout(op);
  if (static_cast<int>(ins.size()) != nin) {
    throw TypeError(std::string(ufunc_name(op)) + "() takes from " + std::to_string(nin) + " to " +
                    std::to_string(nin + nout) + " positional arguments but " +
                    std::to_string(ins.size()) + " were given");
  }
  const Operand* p[2] = {&ins[0], nin > 1 ? &ins[1] : nullptr};
  Array res[2];
  ufunc_into(op, p, opts, res);
  std::vector<Array> out;
  out.reserve(static_cast<size_t>(nout));
  for (int j = 0; j < nout; ++j) out.push_back(std::move(res[j]));
  return out;
}

namespace {
const UFuncOptions kNoOptions{};  // ufunc1/ufunc2: no out=, where=, dtype=, default casting
}  // namespace

Array ufunc1(UFunc op, const Operand& a) {
  if (ufunc_nin(op) != 1) return ufunc(op, {a})[0];  // the argument-count error
  const Operand* p[1] = {&a};
  Array res[2];
  ufunc_into(op, p, kNoOptions, res);
  return std::move(res[0]);
}

Array ufunc2(UFunc op, const Operand& a, const Operand& b) {
  if (ufunc_nin(op) != 2) return ufunc(op, {a, b})[0];
  const Operand* p[2] = {&a, &b};
  Array res[2];
  ufunc_into(op, p, kNoOptions, res);
  return std::move(res[0]);
}

void ufunc2_inplace(UFunc op, const Array& self, const Operand& b) {
  if (ufunc_nin(op) != 2 || ufunc_nout(op) != 1) {
    UFuncOptions opts;
    opts.out.push_back(self);
    ufunc(op, {Operand::of(self), b}, opts);
    return;
  }
  // One options object per thread, its out= slot refilled per call: `a[i:, j] /= s` in a Python
  // loop allocates no vector. A nested call (a Python callback of errstate run inside this one)
  // gets its own.
  thread_local UFuncOptions opts;
  thread_local bool busy = false;
  if (busy) {
    UFuncOptions own;
    own.out.push_back(self);
    Array res[2];
    const Operand a = Operand::of(self);
    const Operand* p[2] = {&a, &b};
    ufunc_into(op, p, own, res);
    return;
  }
  struct Release {
    ~Release() {
      opts.out[0].reset();  // the target is not kept alive past the call
      busy = false;
    }
  } release;
  busy = true;
  if (opts.out.empty()) opts.out.emplace_back();
  opts.out[0] = self;
  const Operand a = Operand::of(self);
  const Operand* p[2] = {&a, &b};
  Array res[2];
  ufunc_into(op, p, opts, res);
}

Array where(const Operand& cond, const Operand& x, const Operand& y) {
  OperandType xy[2] = {{x.array.dtype, x.weak}, {y.array.dtype, y.weak}};
  DType dt = result_type(xy, 2);
  Device device = common_device({&cond.array, &x.array, &y.array});
  Shape shape = broadcast_shapes(std::vector<Shape>{cond.array.shape, x.array.shape, y.array.shape});
  auto node = std::make_shared<WhereNode>();
  node->device = device;
  check_weak_int_fits(x, dt);
  check_weak_int_fits(y, dt);
  node->inputs = {loop_input(cond, DType::Bool), loop_input(x, dt), loop_input(y, dt)};
  return make_pending(node, dt, shape, RunNow::IfSmall);
}

Array astype(const Array& a, DType dtype, bool copy_always) {
  if (!copy_always && a.dtype == dtype) return a;
  auto node = std::make_shared<CopyNode>();
  node->device = a.device();
  node->inputs = {a};
  return make_pending(node, dtype, a.shape, RunNow::IfSmall);
}

Array copy(const Array& a) { return astype(a, a.dtype, true); }

void assign(const Array& dst, const Array& src, Casting casting, bool src_is_temporary) {
  if (!dst.writeable) throw ValueError("assignment destination is read-only");
  if (!can_cast(src.dtype, dst.dtype, casting)) {
    throw UFuncTypeError(std::string("Cannot cast array data from dtype('") + dtype_name(src.dtype) +
                         "') to dtype('" + dtype_name(dst.dtype) + "') according to the rule '" +
                         casting_name(casting) + "'");
  }
  Shape b = broadcast_shapes(dst.shape, src.shape);
  if (b != dst.shape) {
    throw ValueError("could not broadcast input array from shape " + shape_str(src.shape) +
                     " into shape " + shape_str(dst.shape));
  }
  common_device({&dst, &src});
  if (src_is_temporary && dst.size() > 0 && eval_into(src, dst)) return;
  eval(src, FlushReason::Write);
  prepare_write(dst);
  if (dst.size() == 0) return;
  const MemOverlap overlap = memory_overlap(dst, src);
  if (overlap == MemOverlap::Partial) {
    // The right side must act as if computed before the write: go through a temporary.
    Array tmp = Array::empty(src.shape, src.dtype, src.device());
    backend::copy_into(src, tmp);
    backend::copy_into(tmp, dst);
    return;
  }
  if (overlap == MemOverlap::Same) return;
  backend::copy_into(src, dst);
}

void check_scalar_storable(const Operand& value, DType target) {
  if (target == DType::Bool) return;  // any Python scalar converts by truthiness
  if (value.weak == WeakKind::PyInt) {
    check_pyint_fits(pyint_value(value), target);
  } else if (value.weak == WeakKind::PyComplex && !is_complex(target)) {
    throw TypeError(is_integer(target) ? "int() argument must be a string, a bytes-like object or a real number, not 'complex'"
                                       : "float() argument must be a string or a real number, not 'complex'");
  } else if (value.weak == WeakKind::PyFloat && is_integer(target)) {
    // NumPy stores a Python float into an integer array through int(value).
    const double v = *value.array.data_as<double>();
    if (std::isnan(v)) throw ValueError("cannot convert float NaN to integer");
    if (std::isinf(v)) throw OverflowError("cannot convert float infinity to integer");
    const double t = std::trunc(v);
    PyIntValue iv;
    iv.negative = t < 0;
    const double mag = std::fabs(t);
    iv.huge = mag >= 18446744073709551616.0;  // 2**64
    iv.magnitude = iv.huge ? 0 : static_cast<uint64_t>(mag);
    check_pyint_fits(iv, target);
  }
}

void assign(const Array& dst, const Operand& value, bool value_is_temporary) {
  check_scalar_storable(value, dst.dtype);
  assign(dst, value.array, Casting::Unsafe, value_is_temporary);
}

}  // namespace nf
