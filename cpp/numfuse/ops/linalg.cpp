#include "numfuse/ops/linalg.h"

#include <algorithm>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/graph/flush.h"
#include "numfuse/ops/elementwise.h"

namespace nf {

namespace {

constexpr const char* kSignature = "(n?,k),(k,m?)->(n?,m?)";

// NumPy's spelling of a remapped shape: the batch dims, then `newaxis` for each core dim. Only
// operands with batch dims reach it, so the tuple always has two or more entries.
std::string remapped(const Shape& s, int core) {
  std::string out;
  const int nb = static_cast<int>(s.size()) - core;
  for (int i = 0; i < nb + core; ++i) {
    out += (i ? "," : "") + (i < nb ? std::to_string(s[i]) : std::string("newaxis"));
  }
  return "(" + out + ")";
}

}  // namespace

Shape matmul_shape(const Shape& a, const Shape& b) {
  for (int i = 0; i < 2; ++i) {
    const Shape& s = i == 0 ? a : b;
    if (s.empty()) {
      throw ValueError("matmul: Input operand " + std::to_string(i) +
                       " does not have enough dimensions (has 0, gufunc core with signature " +
                       kSignature + " requires 1)");
    }
  }
  const int64_t k_a = a.back();
  const int64_t k_b = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (k_a != k_b) {
    throw ValueError(std::string("matmul: Input operand 1 has a mismatch in its core dimension 0, "
                                 "with gufunc signature ") +
                     kSignature + " (size " + std::to_string(k_b) + " is different from " +
                     std::to_string(k_a) + ")");
  }
  const int core_a = a.size() == 1 ? 1 : 2, core_b = b.size() == 1 ? 1 : 2;
  // No batch dims (a product in a loop): nothing to broadcast.
  if (a.size() <= 2 && b.size() <= 2) {
    Shape out;
    if (core_a == 2) out.push_back(a[0]);
    if (core_b == 2) out.push_back(b[1]);
    return out;
  }
  const Shape batch_a(a.begin(), a.end() - core_a), batch_b(b.begin(), b.end() - core_b);
  Shape out;
  try {
    out = broadcast_shapes(batch_a, batch_b);
  } catch (const ValueError&) {
    Shape req;
    if (core_a == 2) req.push_back(a[a.size() - 2]);
    if (core_b == 2) req.push_back(b.back());
    throw ValueError("operands could not be broadcast together with remapped shapes "
                     "[original->remapped]: " + shape_str(a) + "->" + remapped(a, core_a) + " " +
                     shape_str(b) + "->" + remapped(b, core_b) + "  and requested shape " +
                     shape_str(req));
  }
  if (core_a == 2) out.push_back(a[a.size() - 2]);
  if (core_b == 2) out.push_back(b.back());
  return out;
}

namespace {

// How a matrix of shape (r, c) and element strides (s0, s1) is handed to BLAS as row-major: its
// own rows contiguous (transposed = false, lda = s0), or its columns (then its transpose is the
// row-major matrix: transposed = true, lda = s1). False for any other layout (negative or
// non-unit inner strides): the node path copies those.
bool row_major_view(int64_t r, int64_t c, int64_t s0, int64_t s1, bool* transposed, int64_t* lda) {
  if (c == 1 || s1 == 1) {
    *transposed = false;
    *lda = r <= 1 ? std::max<int64_t>(1, c) : s0;
    if (*lda >= std::max<int64_t>(1, c)) return true;
  }
  if (r == 1 || s0 == 1) {
    *transposed = true;
    *lda = c <= 1 ? std::max<int64_t>(1, r) : s1;
    if (*lda >= std::max<int64_t>(1, r)) return true;
  }
  return false;
}

}  // namespace

bool matmul_now(const Array& a, const Array& b, Array* result) {
  const int na = a.ndim(), nb = b.ndim();
  if (na < 1 || nb < 1 || na > 2 || nb > 2 || (na == 2 && nb == 2) || a.dtype != b.dtype ||
      a.pending() || b.pending() || !a.device().is_cpu() || !b.device().is_cpu())
    return false;
  const DType dt = a.dtype;
  if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::Complex64 &&
      dt != DType::Complex128)
    return false;
  const GraphLimits& lim = graph_limits();
  if (lim.immediate_max <= 0 || lim.trace) return false;
  Backend& cpu = backend_for(Device::cpu());
  if (na == 1 && nb == 1) {
    if (a.shape[0] != b.shape[0]) return false;
    Array out = Array::empty(Shape{}, dt, Device::cpu());
    if (!cpu.run_vector_dot_now(dt, a.shape[0], a.data(), a.strides[0], b.data(), b.strides[0],
                                out.data()))
      return false;
    *result = std::move(out);
    return true;
  }
  // v @ M is M^T v; M @ v is M v. The matrix as BLAS reads it, then op() flipped if stored transposed.
  const Array& m = na == 2 ? a : b;
  const Array& v = na == 2 ? b : a;
  const int64_t r = m.shape[0], c = m.shape[1];
  if (v.shape[0] != (na == 2 ? c : r)) return false;
  bool transposed;
  int64_t lda;
  if (!row_major_view(r, c, m.strides[0], m.strides[1], &transposed, &lda)) return false;
  const bool trans = (na == 1) != transposed;  // v @ M wants M^T; a stored transpose flips it
  const int64_t rows = transposed ? c : r, cols = transposed ? r : c;
  Array out = Array::empty(Shape{na == 2 ? r : c}, dt, Device::cpu());
  if (!cpu.run_matvec_now(dt, trans, rows, cols, m.data(), lda, v.data(), v.strides[0], out.data()))
    return false;
  *result = std::move(out);
  return true;
}

Array matmul(const Array& a, const Array& b, std::optional<DType> dtype, Casting casting) {
  const Shape shape = matmul_shape(a.shape, b.shape);
  const Device device = common_device({&a, &b});
  DType dt = dtype ? *dtype : promote_types(a.dtype, b.dtype);
  if (dtype) {
    for (int i = 0; i < 2; ++i) {
      const DType from = (i == 0 ? a : b).dtype;
      if (!can_cast(from, dt, casting)) {
        throw UFuncTypeError("Cannot cast ufunc 'matmul' input " + std::to_string(i) +
                             " from dtype('" + dtype_name(from) + "') to dtype('" +
                             dtype_name(dt) + "') with casting rule '" + casting_name(casting) +
                             "'");
      }
    }
  }
  auto node = std::make_shared<MatmulNode>();
  node->device = device;
  node->inputs.reserve(2);  // moved in: an initializer list would copy each Array once more
  node->inputs.push_back(astype(a, dt, false));
  node->inputs.push_back(astype(b, dt, false));
  return make_pending(node, dt, shape);
}

}  // namespace nf
