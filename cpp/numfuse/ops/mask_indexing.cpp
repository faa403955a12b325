#include "numfuse/ops/mask_indexing.h"

#include <algorithm>

#include "numfuse/backend/backend.h"
#include "numfuse/graph/eval.h"

namespace nf {

namespace {

// The mask of a key that is one boolean array matching the leading dims of `a`, or nullptr.
const Array* lone_mask(const Array& a, const std::vector<KeyItem>& key) {
  if (key.size() != 1 || !key[0].is_array || key[0].array.dtype != DType::Bool) return nullptr;
  const Array& m = key[0].array;
  if (m.ndim() == 0 || m.ndim() > a.ndim() ||
      !std::equal(m.shape.begin(), m.shape.end(), a.shape.begin())) {
    return nullptr;
  }
  return &m;
}

// x materialised, C-contiguous and in host memory, as the CPU backend's mask kernels read it.
Array contiguous_host(const Array& x, FlushReason why) {
  eval(x, why);
  if (x.device().is_cpu() && x.c_contiguous()) return x;
  Array h = Array::empty(x.shape, x.dtype, Device::cpu());
  backend::copy_into(x, h);
  return h;
}

}  // namespace

bool mask_getitem_cpu(const Array& a, const std::vector<KeyItem>& key, Array* out) {
  const Array* mask = a.device().is_cpu() ? lone_mask(a, key) : nullptr;
  if (!mask || !backend_for(a.device()).has_eager_masks()) return false;
  Array m = contiguous_host(*mask, FlushReason::DataDependent);
  Array src = contiguous_host(a, FlushReason::DataDependent);
  Shape shape{count_nonzero(m)};
  shape.insert(shape.end(), a.shape.begin() + mask->ndim(), a.shape.end());
  *out = Array::empty(shape, a.dtype, Device::cpu());
  backend_for(a.device()).mask_select(src, m, *out);
  return true;
}

bool mask_store_cpu(const Array& a, const Array& mask, Array v, bool per_true) {
  if (!a.device().is_cpu() || !a.c_contiguous() || !backend_for(a.device()).has_eager_masks())
    return false;
  Array m = contiguous_host(mask, FlushReason::Write);
  // The values and the mask are read while a is written: never from a's own memory (a copy is
  // made at once, so that it reads the values from before the write).
  if (m.storage == a.storage) m = contiguous_host(copy(m), FlushReason::Write);
  if (v.storage == a.storage) v = copy(v);
  v = contiguous_host(v, FlushReason::Write);
  prepare_write(a);
  backend_for(a.device()).mask_store(a, m, v, per_true);
  return true;
}

}  // namespace nf
