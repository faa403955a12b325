#include "numfuse/ops/elementwise.h"

#include <cstring>
#include <limits>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/node.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/nodes.h"

namespace nf {

Operand Operand::py_int(int64_t v) {
  return {Array::scalar(&v, DType::Int64), WeakKind::PyInt};
}
Operand Operand::py_uint(uint64_t v) {
  return {Array::scalar(&v, DType::UInt64), WeakKind::PyInt};
}
Operand Operand::py_float(double v) {
  return {Array::scalar(&v, DType::Float64), WeakKind::PyFloat};
}
Operand Operand::py_complex(double re, double im) {
  complex128 c(re, im);
  return {Array::scalar(&c, DType::Complex128), WeakKind::PyComplex};
}

Device common_device(const std::vector<const Array*>& arrays) {
  const Array* first = nullptr;
  for (const Array* a : arrays) {
    if (a->ndim() == 0 && !a->pending() && a->device().is_cpu() && a->storage->nbytes <= 16) {
      continue;  // host scalars are kernel parameters on any device
    }
    if (!first) {
      first = a;
    } else if (a->device() != first->device()) {
      throw ValueError("arrays are on different devices: " + first->device().str() + " and " +
                       a->device().str() + "; move one with asarray(x, device=...)");
    }
  }
  return first ? first->device() : default_device();
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

// The array an operand contributes to a loop whose input dtype is `loop`: weak scalars are
// converted now (they are kernel parameters), arrays keep their dtype (cast while loading).
Array loop_input(const Operand& op, DType loop) {
  if (op.weak == WeakKind::None || op.array.dtype == loop) return op.array;
  Array s = Array::empty({}, loop, Device::cpu());
  backend::copy_into(op.array, s);
  return s;
}

std::vector<OperandType> operand_types(const std::vector<Operand>& ins) {
  std::vector<OperandType> t;
  for (const Operand& o : ins) t.push_back({o.array.dtype, o.weak});
  return t;
}

}  // namespace

std::vector<Array> ufunc(UFunc op, const std::vector<Operand>& ins, const UFuncOptions& opts) {
  const int nin = ufunc_nin(op), nout = ufunc_nout(op);
  if (static_cast<int>(ins.size()) != nin) {
    throw TypeError(std::string(ufunc_name(op)) + "() takes from " + std::to_string(nin) + " to " +
                    std::to_string(nin + nout) + " positional arguments but " +
                    std::to_string(ins.size()) + " were given");
  }
  std::vector<OperandType> types = operand_types(ins);
  LoopSignature sig = opts.dtype ? resolve_ufunc_with_dtype(op, types.data(), *opts.dtype)
                                 : resolve_ufunc(op, types.data());
  DType out_dtypes_given[2] = {DType::Bool, DType::Bool};
  unsigned out_mask = 0;
  for (size_t j = 0; j < opts.out.size() && j < 2; ++j) {
    if (opts.out[j]) {
      out_dtypes_given[j] = opts.out[j]->dtype;
      out_mask |= 1u << j;
    }
  }
  check_ufunc_casting(op, sig, types.data(), out_dtypes_given, out_mask, opts.casting);
  // Weak operands take the dtype NumPy gives them; Python ints must fit it, except in
  // comparisons, where an out-of-range int makes the answer constant (uint8 < -1: all False).
  std::optional<bool> constant_result;
  std::vector<DType> weak_dtype(nin);
  for (int i = 0; i < nin; ++i) {
    weak_dtype[i] = weak_operand_dtype(op, sig, types.data(), i);
    if (ins[i].weak != WeakKind::PyInt) continue;
    if (sig.flags & kLoopPyIntAnyValue) {
      PyIntCompare c = pyint_comparison_outcome(op, i, pyint_value(ins[i]), sig.in[i]);
      if (c != PyIntCompare::InRange) constant_result = c == PyIntCompare::AllTrue;
    } else {
      check_pyint_fits(pyint_value(ins[i]), weak_dtype[i]);
    }
  }

  // NumPy refuses integer powers with a negative exponent. Scalar exponents are checked here;
  // arrays of exponents are not inspected (that would force their evaluation).
  if (op == UFunc::Power && is_integer(sig.in[1]) && !is_unsigned(ins[1].array.dtype) &&
      ins[1].array.ndim() == 0 &&
      !ins[1].array.pending()) {
    Array e = Array::empty({}, DType::Int64, Device::cpu());
    if (ins[1].array.device().is_cpu()) {
      backend::copy_into(ins[1].array, e);
      if (*e.data_as<int64_t>() < 0) {
        throw ValueError("Integers to negative integer powers are not allowed.");
      }
    }
  }

  std::vector<const Array*> arrays;
  std::vector<Shape> shapes;
  for (const Operand& o : ins) {
    arrays.push_back(&o.array);
    shapes.push_back(o.array.shape);
  }
  for (const auto& o : opts.out) {
    if (o) arrays.push_back(&*o);
  }
  if (opts.where) arrays.push_back(&*opts.where);
  Device device = common_device(arrays);
  Shape shape = broadcast_shapes(shapes);

  std::vector<Array> results;
  if (constant_result) {
    bool v = *constant_result;
    results = {full(shape, DType::Bool, &v, device)};
  } else {
    auto node = std::make_shared<UFuncNode>();
    node->ufunc = op;
    node->device = device;
    for (int i = 0; i < nin; ++i) {
      node->in_loop.push_back(sig.in[i]);
      node->inputs.push_back(loop_input(ins[i], weak_dtype[i]));
    }
    node->out_loop.assign(sig.out, sig.out + nout);
    results = make_pending(node, node->out_loop, std::vector<Shape>(nout, shape));
  }

  if (opts.out.empty() && !opts.where) return results;
  // out= / where=: the results are written into the given arrays (NumPy's semantics).
  std::vector<Array> outs;
  for (int j = 0; j < nout; ++j) {
    const std::optional<Array>* given = j < static_cast<int>(opts.out.size()) ? &opts.out[j] : nullptr;
    if (!given || !*given) {
      // NumPy leaves unselected elements of a fresh output uninitialised: any values will do.
      outs.push_back(results[j]);
      continue;
    }
    const Array& out = **given;
    if (broadcast_shapes(out.shape, shape) != out.shape) {
      throw ValueError("non-broadcastable output operand with shape " + shape_str(out.shape) +
                       " doesn't match the broadcast shape " + shape_str(shape));
    }
    if (!out.writeable) throw ValueError("output array is read-only");
    if (opts.where) {
      Array selected = where(Operand::of(*opts.where), Operand::of(results[j]), Operand::of(out));
      assign(out, selected, Casting::Unsafe, /*src_is_temporary=*/true);
    } else {
      assign(out, results[j], Casting::Unsafe, /*src_is_temporary=*/results.size() == 1);
    }
    outs.push_back(out);
  }
  return outs;
}

Array ufunc1(UFunc op, const Operand& a) { return ufunc(op, {a})[0]; }
Array ufunc2(UFunc op, const Operand& a, const Operand& b) { return ufunc(op, {a, b})[0]; }

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
  return make_pending(node, dt, shape);
}

Array astype(const Array& a, DType dtype, bool copy_always) {
  if (!copy_always && a.dtype == dtype) return a;
  auto node = std::make_shared<CopyNode>();
  node->device = a.device();
  node->inputs = {a};
  return make_pending(node, dtype, a.shape);
}

Array copy(const Array& a) { return astype(a, a.dtype, true); }

namespace {

// Byte range [lo, hi) an array's elements can touch.
std::pair<int64_t, int64_t> byte_extent(const Array& a) {
  int64_t lo = a.byte_offset, hi = a.byte_offset;
  const int64_t size = int64_t(a.itemsize());
  for (int d = 0; d < a.ndim(); ++d) {
    int64_t span = (a.shape[d] - 1) * a.strides[d] * size;
    if (a.shape[d] == 0) return {0, 0};
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + size};
}

bool may_overlap(const Array& a, const Array& b) {
  if (a.storage != b.storage) return false;
  auto [alo, ahi] = byte_extent(a);
  auto [blo, bhi] = byte_extent(b);
  return alo < bhi && blo < ahi;
}

bool same_mapping(const Array& a, const Array& b) {
  return a.storage == b.storage && a.byte_offset == b.byte_offset && a.dtype == b.dtype &&
         a.shape == b.shape && a.strides == b.strides;
}

}  // namespace

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
  if (may_overlap(dst, src) && !same_mapping(dst, src)) {
    // The right side must act as if computed before the write: go through a temporary.
    Array tmp = Array::empty(src.shape, src.dtype, src.device());
    backend::copy_into(src, tmp);
    backend::copy_into(tmp, dst);
    return;
  }
  if (same_mapping(dst, src)) return;
  backend::copy_into(src, dst);
}

void assign(const Array& dst, const Operand& value, bool value_is_temporary) {
  check_weak_int_fits(value, dst.dtype);
  assign(dst, value.array, Casting::Unsafe, value_is_temporary);
}

}  // namespace nf
