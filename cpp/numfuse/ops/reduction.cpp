#include "numfuse/ops/reduction.h"

#include <cstring>
#include <limits>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/flush.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/views.h"

namespace nf {

namespace {

bool is_value_op(ReduceOp op) { return op <= ReduceOp::Fmin; }
bool is_arg_op(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }

// Dropping unit dims of a fresh C-contiguous result is a relabelling, not a view.
Array drop_reduced_dims(const Array& res, const Shape& kept_shape) {
  Array r = res.view(kept_shape, contiguous_strides(kept_shape), res.byte_offset);
  r.is_view = false;
  return r;
}

// The express lane of a loop's small sums (`x[i:i+8].sum()`): a reduction of a small
// materialised host array runs in the call through the backend, with no node (as the ufuncs'
// lane in elementwise.cpp). False when it does not apply or the loop raised a floating-point flag:
// the node's path then runs and reports it as numpy.errstate says.
bool reduce_now(ReduceOp op, DType loop, const std::vector<bool>& axes, const Array& a, DType result_dtype,
                const Shape& reduced_shape, Array& res) {
  if (!a.device().is_cpu()) return false;
  const GraphLimits& lim = graph_limits();
  if (lim.immediate_max <= 0 || a.size() > lim.immediate_max || lim.trace || a.pending()) return false;
  ReduceSpec spec;
  spec.op = op;
  spec.loop = loop;
  spec.axes = axes;
  res = Array::empty(reduced_shape, result_dtype, a.device());
  if (backend_for(a.device()).run_reduce_now(spec, a, res)) return true;
  res = Array();
  return false;
}

}  // namespace

DType reduce_default_dtype(ReduceOp op, DType in) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
      // NumPy's add/multiply reductions use the default integer for anything narrower.
      if (in == DType::Bool || (is_integer(in) && !is_unsigned(in) && in != DType::Int64)) {
        return DType::Int64;
      }
      if (is_unsigned(in) && in != DType::UInt64) return DType::UInt64;
      return in;
    case ReduceOp::Any:
    case ReduceOp::All: return DType::Bool;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin: return DType::Int64;
    case ReduceOp::Var: return (in == DType::Bool || is_integer(in)) ? DType::Float64 : in;
    default: return in;
  }
}

Array reduce(ReduceOp op, const Array& a_in, const ReduceOptions& opts) {
  Array a = a_in;
  const char* name = reduce_op_name(op);
  std::vector<bool> axes;
  if (is_arg_op(op)) {
    if (!opts.axis) {
      a = ravel(a);
      axes = {true};
    } else {
      if (opts.axis->size() != 1) throw TypeError("'tuple' object cannot be interpreted as an integer");
      axes = normalize_axes(*opts.axis, a.ndim());
    }
  } else if (opts.axis) {
    axes = normalize_axes(*opts.axis, a.ndim());
  } else {
    axes.assign(a.ndim(), true);
  }

  // With out= and no dtype=, NumPy reduces in the common type of the input and out, and casts
  // the result: a float sum into an int8 out= is summed as floats, then truncated; a complex64
  // sum into a float64 out= is summed as complex128.
  DType loop = opts.dtype                        ? *opts.dtype
               : (opts.out && is_value_op(op)) ? promote_types(a.dtype, opts.out->dtype)
                                               : reduce_default_dtype(op, a.dtype);
  if (!is_value_op(op) && op != ReduceOp::Var && opts.dtype) loop = reduce_default_dtype(op, a.dtype);
  DType result_dtype = is_value_op(op) || op == ReduceOp::Var ? loop : reduce_default_dtype(op, a.dtype);
  if (op == ReduceOp::Var && (!is_inexact(loop) || is_complex(loop) || opts.where)) {
    throw TypeError(std::string("var reduction: unsupported ") + (opts.where ? "where=" : dtype_name(loop)));
  }

  Shape kept_shape, reduced_shape;  // without and with keepdims
  bool empty_reduction = false;
  for (int d = 0; d < a.ndim(); ++d) {
    if (axes[d]) {
      reduced_shape.push_back(1);
      if (a.shape[d] == 0) empty_reduction = true;
    } else {
      reduced_shape.push_back(a.shape[d]);
      kept_shape.push_back(a.shape[d]);
    }
  }
  const Shape& result_shape = opts.keepdims ? reduced_shape : kept_shape;
  const bool no_identity = op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::Fmax ||
                           op == ReduceOp::Fmin;
  // NumPy refuses an empty reduced axis even when the result is empty too (max of a (0, 0) array
  // along axis 0).
  if (empty_reduction) {
    if (is_arg_op(op)) {
      throw ValueError(std::string("attempt to get ") + name + " of an empty sequence");
    }
    if (no_identity && !opts.initial) {
      throw ValueError(std::string("zero-size array to reduction operation ") + name +
                       " which has no identity");
    }
  }
  if (opts.out) {
    const Array& o = *opts.out;
    if (o.ndim() != static_cast<int>(result_shape.size())) {
      throw ValueError(std::string("output parameter for reduction operation ") + name +
                       " has the wrong number of dimensions: Found " + std::to_string(o.ndim()) +
                       " but expected " + std::to_string(result_shape.size()));
    }
    if (o.shape != result_shape) {
      throw ValueError("operands could not be broadcast together with remapped shapes: output " +
                       shape_str(o.shape) + " result " + shape_str(result_shape));
    }
  }

  if (Array res; !opts.out && !opts.where && !opts.initial && reduce_now(op, loop, axes, a, result_dtype, reduced_shape, res)) {
    return opts.keepdims ? res : drop_reduced_dims(res, kept_shape);
  }
  auto node = std::allocate_shared<ReduceNode>(PoolAllocator<ReduceNode>());  // a loop's small sums
  node->device = a.device();
  node->spec.op = op;
  node->spec.loop = loop;
  node->spec.axes = std::move(axes);
  // A sum's or a product's initial value is combined once with the reduction's result, below:
  // a reduction node's initial seeds every partial accumulator (each GPU thread's, each CPU
  // block's), which only max/min-like ops (idempotent) and var (its ddof) may take. Seeding the
  // partials counted it once per GPU thread (sum(x, initial=1) gave 256 more).
  const bool initial_after = opts.initial && (op == ReduceOp::Sum || op == ReduceOp::Prod);
  Array initial_value;
  if (opts.initial && (is_value_op(op) || op == ReduceOp::Var)) {
    eval(*opts.initial, FlushReason::HostRead);
    Array init = Array::empty({}, loop, Device::cpu());
    backend::copy_into(*opts.initial, init);
    if (initial_after) {
      initial_value = init;
    } else {
      std::memcpy(node->spec.initial, init.data(), itemsize(loop));
      node->spec.has_initial = true;
    }
  }
  if (opts.where) {
    if (is_arg_op(op)) throw TypeError(std::string(name) + "() got an unexpected keyword argument 'where'");
    if (no_identity && !opts.initial) {
      throw ValueError(std::string("reduction operation '") + name +
                       "' does not have an identity, so to use a where mask one has to specify 'initial'");
    }
    // Masked-out elements become the identity, which leaves every result unchanged; an op
    // without one (max, min) takes initial, which its result already includes.
    Shape b = broadcast_shapes(opts.where->shape, a.shape);
    if (b != a.shape) {
      throw ValueError("operands could not be broadcast together with remapped shapes " +
                       shape_str(opts.where->shape) + " " + shape_str(a.shape));
    }
    DType fill_dtype = is_value_op(op) ? loop : DType::Bool;
    unsigned char fill[16] = {};
    if (no_identity) {
      std::memcpy(fill, node->spec.initial, sizeof(fill));
    } else {
      reduce_identity(op, fill_dtype, fill);
    }
    Array x = is_value_op(op) ? astype(a, loop, false) : a;
    a = where(Operand::of(*opts.where), Operand::of(x), Operand::of(Array::scalar(fill, fill_dtype)));
  }
  node->inputs = {a};
  Array res = make_pending(node, result_dtype, reduced_shape, opts.out ? RunNow::Never : RunNow::IfSmall);
  if (initial_after) {
    const Array init = res.device().is_cpu() ? initial_value : Array::scalar(initial_value.data(), loop, res.device());
    res = ufunc2(op == ReduceOp::Sum ? UFunc::Add : UFunc::Multiply, Operand::of(init), Operand::of(res));
  }
  if (!opts.keepdims) res = drop_reduced_dims(res, kept_shape);
  if (opts.out) {
    assign(*opts.out, res, Casting::Unsafe, true);
    return *opts.out;
  }
  return res;
}

}  // namespace nf
