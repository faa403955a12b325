#include "numfuse/ops/fft.h"

#include <string>

#include "numfuse/core/error.h"
#include "numfuse/ops/creation.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/indexing.h"

namespace nf {

namespace {

// `a` with axis `axis` cut to its first `len` values or zero-padded to `len` (NumPy's n=).
Array fit_axis(const Array& a, int axis, int64_t len) {
  const int64_t have = a.shape[axis];
  if (have == len) return a;
  std::vector<IndexItem> items(a.ndim(), IndexItem::slice(false, 0, false, 0, 1));
  if (have > len) {
    items[axis] = IndexItem::slice(false, 0, true, len, 1);
    return basic_index(a, items);
  }
  Shape shape = a.shape;
  shape[axis] = len;
  Array padded = zeros(shape, a.dtype, a.device());
  items[axis] = IndexItem::slice(false, 0, true, have, 1);
  assign(basic_index(padded, items), a);
  return padded;
}

}  // namespace

DType fft_complex_dtype(DType dt) {
  if (dt == DType::Float16 || dt == DType::Float32 || dt == DType::Complex64)
    return DType::Complex64;
  return DType::Complex128;
}

Array fft(const Array& a, FftKind kind, bool forward, const std::vector<int64_t>& axes_in,
          const std::vector<int64_t>& n, double scale) {
  if (axes_in.size() != n.size()) throw ValueError("Shape and axes have different lengths.");
  std::vector<int> axes;
  std::vector<bool> seen(a.ndim(), false);
  for (int64_t ax : axes_in) {
    const int d = normalize_axis(ax, a.ndim());
    if (seen[d]) throw ValueError("fft: axis " + std::to_string(ax) + " is repeated in axes");
    seen[d] = true;
    axes.push_back(d);
  }
  for (int64_t len : n) {
    if (len < 1) {
      throw ValueError("Invalid number of FFT data points (" + std::to_string(len) +
                       ") specified.");
    }
  }
  if (kind == FftKind::R2C && is_complex(a.dtype)) {
    throw TypeError(
        "ufunc 'rfft' not supported for the input types: a real input is expected, "
        "got " +
        std::string(dtype_name(a.dtype)));
  }
  const DType cdt = fft_complex_dtype(a.dtype);
  const DType rdt = real_dtype(cdt);
  Array in = astype(a, kind == FftKind::R2C ? rdt : cdt, false);
  Shape out_shape = in.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    const bool last = i + 1 == axes.size();
    const int64_t in_len = (kind == FftKind::C2R && last) ? n[i] / 2 + 1 : n[i];
    in = fit_axis(in, axes[i], in_len);
    out_shape[axes[i]] = (kind == FftKind::R2C && last) ? n[i] / 2 + 1 : n[i];
  }
  auto node = std::make_shared<FftNode>();
  node->device = in.device();
  node->spec.kind = kind;
  node->spec.forward = forward;
  node->spec.axes = axes;
  node->inputs = {in};
  Array res = make_pending(node, kind == FftKind::C2R ? rdt : cdt, out_shape);
  // The normalisation: an elementwise node the planner fuses with the consumers of the result
  // (abs(ifft(x))**2 scales inside the same kernel), a weak scalar so complex64 stays complex64.
  if (scale != 1.0) res = ufunc2(UFunc::Multiply, Operand::of(res), Operand::py_float(scale));
  // NumPy 2 computes a float16 half spectrum in float32 and returns float16 (irfft, hfft).
  if (kind == FftKind::C2R && a.dtype == DType::Float16) res = astype(res, DType::Float16, false);
  return res;
}

}  // namespace nf
