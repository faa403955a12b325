#include "numfuse/ops/advanced_indexing.h"

#include <algorithm>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/core/array_rows.h"
#include "numfuse/core/iteration.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ir/gather.h"
#include "numfuse/ops/reduction.h"
#include "numfuse/ops/scan.h"
#include "numfuse/ops/mask_indexing.h"
#include "numfuse/ops/views.h"

namespace nf {

namespace {

[[noreturn]] void out_of_bounds(int64_t i, int axis, int64_t size) {
  throw IndexError("index " + std::to_string(i) + " is out of bounds for axis " +
                   std::to_string(axis) + " with size " + std::to_string(size));
}


// The first index out of [-size, size), in C order, raises NumPy's IndexError.
void check_bounds(const Array& idx, int axis, int64_t size) {
  for_each_row<int64_t>(idx, [&](const int64_t* p, int64_t n, int64_t st) {
    bool bad = false;
    for (int64_t i = 0; i < n; ++i) bad |= p[i * st] < -size || p[i * st] >= size;
    if (!bad) return;
    for (int64_t i = 0; i < n; ++i) {
      if (p[i * st] < -size || p[i * st] >= size) out_of_bounds(p[i * st], axis, size);
    }
  });
}

Array int64_scalar(int64_t v) { return Array::scalar(&v, DType::Int64); }

// A device mask or index array of at most this many elements is counted, searched (nonzero) and
// bounds-checked on the host: its values must come back to the host anyway (a count, a min and
// a max), and one copy of a few KB costs less than the reduction and scan kernels, whose NVRTC
// compiles were most of a cold x[mask] (7 compiles, 945 ms on the H100; docs/decisions.md,
// "Cold first calls").
constexpr int64_t kHostIndexElements = 4096;

bool small_on_device(const Array& a) {
  return !a.device().is_cpu() && a.size() <= kHostIndexElements;
}

// x on `device`: itself when it is there, else a copy (an index or mask from the host reaches a
// CUDA array this way, and a device index a host array).
Array on_device(const Array& x, Device device, FlushReason why) {
  if (x.device() == device) return x;
  eval(x, why);
  Array out = Array::empty(x.shape, x.dtype, device);
  backend::copy_into(x, out);
  return out;
}

// A materialised host array with x's values (x itself when it is one).
Array host_copy(const Array& x) {
  eval(x, FlushReason::DataDependent);
  return on_device(x, Device::cpu(), FlushReason::DataDependent);
}

// The value of a 0-d int64 array (a reduction's result), read back to the host.
int64_t read_int64(const Array& x) {
  Array h = host_copy(x);
  return *h.data_as<int64_t>();
}

// check_bounds wherever idx lives: on a device, its min and max through the reduction kernels
// are the only values read back; the host looks for the first bad index only on failure.
void check_index(const Array& idx, int axis, int64_t size) {
  if (idx.size() == 0) return;
  if (idx.device().is_cpu() || small_on_device(idx)) {
    check_bounds(host_copy(idx), axis, size);
    return;
  }
  Array lo = reduce(ReduceOp::Min, idx), hi = reduce(ReduceOp::Max, idx);
  eval({lo, hi}, FlushReason::DataDependent);
  if (read_int64(lo) >= -size && read_int64(hi) < size) return;
  check_bounds(host_copy(idx), axis, size);
}

// Truth flags of a device array (a bool array is its own).
Array flags_of(const Array& a) {
  if (a.dtype == DType::Bool) return a;
  return ufunc2(UFunc::NotEqual, Operand::of(a), Operand::py_int(0));
}

}  // namespace

void check_index_bounds(const IndexPlan& plan, bool arrays) {
  if (arrays && numel(plan.bshape) == 0) return;
  for (size_t j = 0; j < plan.indices.size(); ++j) {
    if (plan.scalar_index[j] == arrays || plan.from_mask[j]) continue;
    check_index(plan.indices[j], plan.adv_axes[j], plan.view.shape[plan.adv_dims[j]]);
  }
}

IndexPlan plan_index(const Array& a, const std::vector<KeyItem>& key, bool check_arrays) {
  int consumed = 0, ellipses = 0;
  bool has_array = false;
  for (const KeyItem& k : key) {
    if (k.is_array) {
      has_array = true;
      consumed += k.array.dtype == DType::Bool ? k.array.ndim() : 1;
    } else if (k.basic.kind == IndexItem::Kind::Integer || k.basic.kind == IndexItem::Kind::Slice) {
      ++consumed;
    } else if (k.basic.kind == IndexItem::Kind::Ellipsis) {
      ++ellipses;
    }
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > a.ndim()) {
    throw IndexError("too many indices for array: array is " + std::to_string(a.ndim()) +
                     "-dimensional, but " + std::to_string(consumed) + " were indexed");
  }
  for (const KeyItem& k : key) {
    if (k.is_array && k.array.dtype != DType::Bool && !is_integer(k.array.dtype)) {
      throw IndexError("arrays used as indices must be of integer (or boolean) type");
    }
  }

  IndexPlan plan;
  std::vector<IndexItem> basic;
  const IndexItem all = IndexItem::slice(false, 0, false, 0, 1);
  int view_dim = 0, axis = 0;
  // NumPy's test of adjacency (mapiter_fill_info): -1 no array yet, 0 inside the first run of
  // arrays, 1 after it, 2 a second run began.
  int consec = -1;
  // Integers (and 0-d integer arrays) are checked even when the broadcast result is empty.
  std::vector<bool> scalar_index;
  auto add = [&](Array idx, bool from_mask = false) {
    scalar_index.push_back(idx.ndim() == 0);
    plan.from_mask.push_back(from_mask);
    plan.adv_dims.push_back(view_dim++);
    plan.adv_axes.push_back(axis);
    plan.indices.push_back(std::move(idx));
  };
  for (const KeyItem& k : key) {
    const bool fancy = k.is_array || (has_array && k.basic.kind == IndexItem::Kind::Integer);
    if (fancy) {
      if (consec == -1) {
        plan.pos = view_dim;
        consec = 0;
      } else if (consec == 1) {
        consec = 2;
      }
    } else if (consec == 0) {
      consec = 1;
    }
    if (!k.is_array) {
      switch (k.basic.kind) {
        case IndexItem::Kind::Integer:
          if (has_array) {
            basic.push_back(all);
            add(int64_scalar(k.basic.index));
          } else {
            basic.push_back(k.basic);
          }
          ++axis;
          break;
        case IndexItem::Kind::Slice:
          basic.push_back(k.basic);
          ++view_dim;
          ++axis;
          break;
        case IndexItem::Kind::NewAxis:
          basic.push_back(k.basic);
          ++view_dim;
          break;
        case IndexItem::Kind::Ellipsis: {
          int n = a.ndim() - consumed;
          basic.push_back(k.basic);
          view_dim += n;
          axis += n;
          break;
        }
      }
      continue;
    }
    const Array& arr = k.array;
    if (arr.dtype != DType::Bool) {
      basic.push_back(all);
      add(astype(arr, DType::Int64, false));
      ++axis;
    } else if (arr.ndim() == 0) {
      // A scalar boolean is a new axis of length 1 (True) or 0 (False), indexed by an array.
      Array truth = host_copy(arr);
      basic.push_back(IndexItem::new_axis());
      int64_t zero = 0;
      Array idx = *truth.data() ? Array::empty({1}, DType::Int64, Device::cpu())
                              : Array::empty({0}, DType::Int64, Device::cpu());
      if (idx.size()) *idx.data_as<int64_t>() = zero;
      add(idx);
    } else {
      for (int d = 0; d < arr.ndim(); ++d) {
        // NumPy leaves a boolean axis of length 0 unchecked (it selects nothing anyway):
        // x[np.zeros(0, bool)] is empty whatever len(x) is.
        if (arr.shape[d] != 0 && arr.shape[d] != a.shape[axis + d]) {
          throw IndexError("boolean index did not match indexed array along axis " +
                           std::to_string(axis + d) + "; size of axis is " +
                           std::to_string(a.shape[axis + d]) +
                           " but size of corresponding boolean axis is " +
                           std::to_string(arr.shape[d]));
        }
      }
      for (Array& idx : nonzero(arr)) {
        basic.push_back(all);
        add(std::move(idx), /*from_mask=*/true);
        ++axis;
      }
    }
  }
  plan.adjacent = consec != 2;
  if (!plan.adjacent) plan.pos = 0;
  plan.view = basic_index(a, basic);

  std::vector<Shape> shapes;
  for (const Array& idx : plan.indices) shapes.push_back(idx.shape);
  try {
    plan.bshape = broadcast_shapes(shapes);
  } catch (const ValueError&) {
    std::string s;
    for (const Shape& sh : shapes) s += shape_str(sh) + " ";
    throw IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes " + s);
  }
  // NumPy checks the bounds of every index at the call: integers first, then the arrays (only
  // when the broadcast result is not empty; a write checks its value's shape in between).
  eval(plan.indices, FlushReason::DataDependent);
  plan.scalar_index = scalar_index;
  check_index_bounds(plan, /*arrays=*/false);
  if (check_arrays) check_index_bounds(plan, /*arrays=*/true);
  // Checked where they live (a host index never waits for the device); the kernels read them
  // where the array lives.
  for (Array& idx : plan.indices) {
    idx = on_device(idx, a.device(), FlushReason::DataDependent);
    // The CUDA kernels load indices as 8-byte words: a view at an odd offset is copied.
    if (!idx.device().is_cpu() && reinterpret_cast<uintptr_t>(idx.data()) % 8 != 0) idx = copy(idx);
  }

  std::vector<bool> is_adv(plan.view.ndim(), false);
  for (int d : plan.adv_dims) is_adv[d] = true;
  Shape rest_before, rest_after;
  for (int d = 0; d < plan.view.ndim(); ++d) {
    if (is_adv[d]) continue;
    (plan.adjacent && d < plan.pos ? rest_before : rest_after).push_back(plan.view.shape[d]);
  }
  plan.result_shape = rest_before;
  plan.result_shape.insert(plan.result_shape.end(), plan.bshape.begin(), plan.bshape.end());
  plan.result_shape.insert(plan.result_shape.end(), rest_after.begin(), rest_after.end());
  return plan;
}

Array gather(const IndexPlan& plan) {
  auto node = std::make_shared<GatherNode>();
  node->device = plan.view.device();
  node->adv_dims = plan.adv_dims;
  node->adv_axes = plan.adv_axes;
  node->bshape = plan.bshape;
  node->adjacent = plan.adjacent;
  node->inputs.push_back(plan.view);
  for (const Array& idx : plan.indices) node->inputs.push_back(idx);
  return make_pending(node, plan.view.dtype, plan.result_shape);
}

Array getitem(const Array& a, const std::vector<KeyItem>& key) {
  Array selected;
  if (mask_getitem_cpu(a, key, &selected)) return selected;
  return gather(plan_index(a, key));
}

namespace {

// value as an array of dst's dtype (a weak Python int must fit it, as NumPy requires).
Array value_as(const Operand& value, DType dtype) {
  if (value.weak != WeakKind::None) {
    // A Python scalar already held in the target's dtype (x[mask] = 0.5 into float64) is read
    // as it is: nothing to convert, nothing that could overflow.
    if (value.array.dtype == dtype && value.array.device().is_cpu() && !value.array.pending()) {
      return value.array;
    }
    Array s = Array::empty({}, dtype, Device::cpu());
    assign(s, value);
    return s;
  }
  return astype(value.array, dtype, false);
}

// a[mask] = v as a where() when v does not depend on how many Trues the mask holds: no
// evaluation of the mask. `v` has a's dtype and broadcasts against a.shape[mask.ndim:].
// Mask and value move to a's device first (a host 0-d value is a kernel parameter there).
void masked_assign(const Array& a, const Array& mask, const Array& v_in) {
  Shape cond_shape = mask.shape;
  cond_shape.resize(a.ndim(), 1);
  Array cond = reshape(on_device(mask, a.device(), FlushReason::Write), cond_shape);
  Array v = v_in;
  if (v.device() != a.device()) {
    eval(v, FlushReason::Write);
    if (!(v.ndim() == 0 && v.device().is_cpu() && v.storage->nbytes <= 16)) {
      v = on_device(v, a.device(), FlushReason::Write);
    }
  }
  // Only this call holds the where(): its fused group may write straight into a.
  assign(a, where(Operand::of(cond), Operand::of(v), Operand::of(a)), Casting::Unsafe, true);
}

}  // namespace

Array strip_leading_ones(const Array& v, size_t ndim) {
  size_t drop = 0;
  while (v.shape.size() - drop > ndim && v.shape[drop] == 1) ++drop;
  if (!drop) return v;
  return v.view(Shape(v.shape.begin() + drop, v.shape.end()),
                Strides(v.strides.begin() + drop, v.strides.end()), v.byte_offset);
}

void setitem(const Array& a, const std::vector<KeyItem>& key, const Operand& value) {
  if (!a.writeable) throw ValueError("assignment destination is read-only");
  if (key.size() == 1 && key[0].is_array && key[0].array.dtype == DType::Bool) {
    const Array& mask = key[0].array;
    const int k = mask.ndim();
    bool matches = k <= a.ndim() && std::equal(mask.shape.begin(), mask.shape.end(), a.shape.begin());
    if (matches && k == a.ndim()) {
      // NumPy's assignment through one full-rank boolean array: a 0-d or 1-d value, of one
      // element or of as many as the mask has Trues.
      Array v = value_as(value, a.dtype);
      if (v.ndim() > 1) {
        throw TypeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                        "input, input has " + std::to_string(v.ndim()) + " dimensions");
      }
      if (v.size() == 1) {
        if (mask_store_cpu(a, mask, reshape(v, {}), false)) return;
        masked_assign(a, mask, reshape(v, {}));
        return;
      }
      int64_t count = count_nonzero(mask);
      if (v.size() != count) {
        throw ValueError("NumPy boolean array indexing assignment cannot assign " +
                         std::to_string(v.size()) + " input values to the " +
                         std::to_string(count) + " output values where the mask is true");
      }
      if (mask_store_cpu(a, mask, v, true)) return;
    } else if (matches && k >= 1) {
      Shape rest(a.shape.begin() + k, a.shape.end());
      Array v = strip_leading_ones(value.array, rest.size() + 1);
      if (v.ndim() == static_cast<int>(rest.size()) + 1 && v.shape[0] == 1) {
        v = strip_leading_ones(v, rest.size());
      }
      if (v.ndim() <= static_cast<int>(rest.size()) && broadcasts_to(v.shape, rest)) {
        Operand op = value;
        op.array = v;
        Array block = value_as(op, a.dtype);
        // The host kernel takes the one block every True receives, in full.
        if (a.device().is_cpu() && a.c_contiguous()) {
          mask_store_cpu(a, mask, copy(broadcast_to(block, rest)), false);
          return;
        }
        masked_assign(a, mask, block);
        return;
      }
    }
  }

  IndexPlan plan = plan_index(a, key, /*check_arrays=*/false);
  Array v = strip_leading_ones(value.array, plan.result_shape.size());
  if (!broadcasts_to(v.shape, plan.result_shape)) {
    throw ValueError("shape mismatch: value array of shape " + shape_str(value.array.shape) +
                     " could not be broadcast to indexing result of shape " +
                     shape_str(plan.result_shape));
  }
  check_index_bounds(plan, /*arrays=*/true);
  Operand op = value;
  op.array = v;
  v = value_as(op, a.dtype);
  // The values are copied out first (from any device to a's): they may read the memory being
  // written.
  Array vals = Array::empty(plan.result_shape, a.dtype, a.device());
  eval(v, FlushReason::Write);
  backend::copy_into(v, vals);
  prepare_write(a);
  if (vals.size() == 0) return;
  if (!a.device().is_cpu()) {
    // The device kernels read the indices while they write: an index array in a's own memory
    // (a[a] = v) is read from a copy.
    for (Array& idx : plan.indices) {
      if (idx.storage == a.storage) idx = copy(idx);
    }
    eval(plan.indices, FlushReason::Write);
  }
  GatherGeometry g = gather_geometry(plan.view, plan.adv_dims, plan.adv_axes, plan.indices,
                                     plan.bshape, plan.adjacent);
  backend_for(a.device()).scatter(vals, g, plan.view);
}

int64_t count_nonzero(const Array& a) {
  if (small_on_device(a)) return count_nonzero(host_copy(a));
  if (!a.device().is_cpu()) {
    // A sum of the truth flags, one value read back.
    Array total = reduce(ReduceOp::Sum, flags_of(a));
    eval(total, FlushReason::DataDependent);
    return read_int64(total);
  }
  eval(a, FlushReason::DataDependent);
  return backend_for(a.device()).count_nonzero(a);
}

std::vector<Array> nonzero(const Array& a) {
  if (a.ndim() == 0) {
    throw ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar)."
                     "nonzero() instead.");
  }
  if (!a.device().is_cpu() && a.size() == 0) {
    std::vector<Array> out;
    for (int d = 0; d < a.ndim(); ++d) out.push_back(Array::empty({0}, DType::Int64, a.device()));
    return out;
  }
  if (small_on_device(a)) {
    std::vector<Array> idx = nonzero(host_copy(a));
    for (Array& i : idx) i = on_device(i, a.device(), FlushReason::DataDependent);
    return idx;
  }
  if (!a.device().is_cpu()) {
    // Each flagged element's row is its inclusive cumsum minus one; the last cumsum is the count.
    Array pos = scan(ScanOp::CumSum, flags_of(a), std::nullopt);
    eval(pos, FlushReason::DataDependent);
    if (!pos.c_contiguous()) pos = copy(pos);
    eval(pos, FlushReason::DataDependent);
    const int64_t n = read_int64(pos.view({}, {}, pos.byte_offset + (a.size() - 1) * 8));
    return backend_for(a.device()).nonzero_from_cumsum(pos, a.shape, n);
  }
  return backend_for(a.device()).nonzero(a, count_nonzero(a));
}

}  // namespace nf
