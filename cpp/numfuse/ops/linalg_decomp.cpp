#include "numfuse/ops/linalg_decomp.h"

#include <algorithm>

#include "numfuse/core/error.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/ops/elementwise.h"

namespace nf {

namespace {

bool lapack_dtype(DType d) {
  return d == DType::Float32 || d == DType::Float64 || d == DType::Complex64 ||
         d == DType::Complex128;
}

DType complex_of(DType d) {
  return d == DType::Float32 || d == DType::Complex64 ? DType::Complex64 : DType::Complex128;
}

// NumPy's _assert_stacked_2d and _assert_stacked_square.
void require_stacked(const Array& a, bool square) {
  if (a.ndim() < 2) {
    throw LinAlgError(std::to_string(a.ndim()) +
                      "-dimensional array given. Array must be at least two-dimensional");
  }
  if (square && a.shape[a.ndim() - 1] != a.shape[a.ndim() - 2]) {
    throw LinAlgError("Last 2 dimensions of the array must be square");
  }
}

Shape batch_of(const Array& a) { return Shape(a.shape.begin(), a.shape.end() - 2); }

Shape with(Shape batch, std::initializer_list<int64_t> core) {
  for (int64_t c : core) batch.push_back(c);
  return batch;
}

}  // namespace

std::vector<Array> linalg_decomp(const LinalgSpec& spec, const std::vector<Array>& inputs) {
  const LinalgOp op = spec.op;
  const size_t want = op == LinalgOp::Solve || op == LinalgOp::QrQ ? 2 : 1;
  if (inputs.size() != want) {
    throw ValueError(std::string("linalg.") + linalg_op_name(op) + " takes " +
                     std::to_string(want) + " arrays, " + std::to_string(inputs.size()) + " given");
  }
  const Array& a = inputs[0];
  const DType dt = a.dtype;
  for (const Array& x : inputs) {
    if (!lapack_dtype(x.dtype) || x.dtype != dt) {
      throw TypeError(std::string("array type ") +
                      dtype_name(x.dtype) + " is unsupported in linalg");
    }
  }
  const bool square = op != LinalgOp::QrRaw && op != LinalgOp::QrQ && op != LinalgOp::Svd &&
                      op != LinalgOp::Svdvals;
  require_stacked(a, square);
  const Shape batch = batch_of(a);
  const int64_t m = a.shape[a.ndim() - 2], n = a.shape[a.ndim() - 1], k = std::min(m, n);
  const DType real = real_dtype(dt);
  std::vector<DType> dts;
  std::vector<Shape> shapes;
  auto out = [&](DType d, Shape s) {
    dts.push_back(d);
    shapes.push_back(std::move(s));
  };
  switch (op) {
    case LinalgOp::Inv:
    case LinalgOp::Cholesky:
      out(dt, a.shape);
      break;
    case LinalgOp::Solve: {
      const Array& b = inputs[1];
      require_stacked(b, false);
      if (batch_of(b) != batch || b.shape[b.ndim() - 2] != n) {
        throw ValueError("solve: Input operand 1 has a mismatch in its core dimension 0, with "
                         "gufunc signature (m,m),(m,n)->(m,n) (size " +
                         std::to_string(b.shape[b.ndim() - 2]) + " is different from " +
                         std::to_string(n) + ")");
      }
      out(dt, b.shape);
      break;
    }
    case LinalgOp::Det:
      out(dt, batch);
      break;
    case LinalgOp::Slogdet:
      out(dt, batch);
      out(real, batch);
      break;
    case LinalgOp::QrRaw:
      out(dt, a.shape);
      out(dt, with(batch, {k}));
      break;
    case LinalgOp::QrQ: {
      const Array& tau = inputs[1];
      if (tau.ndim() != a.ndim() - 1 || tau.shape.back() != k || spec.cols < k || spec.cols > m) {
        throw ValueError("linalg.qr: tau of shape " + shape_str(tau.shape) +
                         " does not fit the factored matrix " + shape_str(a.shape));
      }
      out(dt, with(batch, {m, spec.cols}));
      break;
    }
    case LinalgOp::Eigh:
      out(real, with(batch, {n}));
      out(dt, a.shape);
      break;
    case LinalgOp::Eigvalsh:
      out(real, with(batch, {n}));
      break;
    case LinalgOp::Svd:
      out(real, with(batch, {k}));
      out(dt, with(batch, {m, spec.full_matrices ? m : k}));
      out(dt, with(batch, {spec.full_matrices ? n : k, n}));
      break;
    case LinalgOp::Svdvals:
      out(real, with(batch, {k}));
      break;
    case LinalgOp::Eig:
      out(complex_of(dt), with(batch, {n}));
      out(complex_of(dt), a.shape);
      break;
    case LinalgOp::Eigvals:
      out(complex_of(dt), with(batch, {n}));
      break;
  }
  auto node = std::make_shared<LinalgNode>();
  node->spec = spec;
  std::vector<const Array*> ptrs;
  for (const Array& x : inputs) ptrs.push_back(&x);
  node->device = common_device(ptrs);
  for (const Array& x : inputs) node->inputs.push_back(x);
  return make_pending(node, dts, shapes);
}

}  // namespace nf
