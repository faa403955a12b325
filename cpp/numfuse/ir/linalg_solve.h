// The LAPACK-backed node kind of numpy.linalg: factorizations, solves and decompositions of a
// stack of matrices (ops/linalg_decomp.h builds it; LAPACK on the CPU, cuSOLVER on CUDA computes
// it). One node kind whose spec names the operation: each backend loops one routine over the
// stack, so a new operation is an enum entry and a case per backend, not a new kind.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/ir/node.h"

namespace nf {

// Inputs are C-contiguous stacks of (..., m, n) matrices of one LAPACK dtype (float32, float64,
// complex64, complex128), the batch dims equal between inputs. Outputs, in order:
enum class LinalgOp : uint8_t {
  Inv,       // a (n,n) -> inverse (n,n)
  Solve,     // a (n,n), b (n,k) -> x (n,k)
  Det,       // a (n,n) -> det (), of a's dtype
  Slogdet,   // a (n,n) -> sign () of a's dtype, logabsdet () real
  Cholesky,  // a (n,n) -> L (or U with spec.upper), the other triangle zero
  QrRaw,     // a (m,n) -> geqrf's factored a (m,n) row-major, tau (min(m,n))
  QrQ,       // factored a (m,n), tau (k) -> q (m, spec.cols) (orgqr / ungqr)
  Eigh,      // a (n,n) -> w (n) real ascending, v (n,n); only the spec.upper or lower triangle read
  Eigvalsh,  // a (n,n) -> w (n) real ascending
  Svd,       // a (m,n) -> s (k) real descending, u (m, k|m), vh (k|n, n); spec.full_matrices
  Svdvals,   // a (m,n) -> s (k) real descending
  Eig,       // a (n,n) -> w (n) complex, v (n,n) complex (geev's right eigenvectors)
  Eigvals,   // a (n,n) -> w (n) complex
};

// What a LinalgNode computes.
struct LinalgSpec {
  LinalgOp op = LinalgOp::Inv;
  bool upper = false;          // Cholesky: U (a = U^H U); Eigh/Eigvalsh: read the upper triangle
  bool full_matrices = false;  // Svd: u (m,m) and vh (n,n)
  int64_t cols = 0;            // QrQ: columns of q (min(m,n) reduced, m complete)
  // A matrix that fails (singular...) raises LinAlgError for the call; false: its outputs are
  // NaN instead and the rest of the stack is computed (NumPy's gufuncs under errstate ignore,
  // which cond uses).
  bool raise_on_failure = true;
  // float32 / complex64 inputs computed in float64 / complex128, as numpy.linalg computes them,
  // the outputs in the inputs' precision: a backend converts as it loads and stores (CUDA's small
  // kernels) or casts around the double-precision routine, instead of the front end casting the
  // whole stack up before the node and down after it (two more passes over memory).
  bool widen = false;
};

// numpy.linalg's names of the operations ("inv", "solve", ...), for messages and explain.
const char* linalg_op_name(LinalgOp op);

struct LinalgNode : Node {
  LinalgSpec spec;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return std::string("linalg.") + linalg_op_name(spec.op); }
};

// numpy.linalg computes float32 and complex64 in double precision. A node with spec.widen that a
// backend's own kernels do not cover runs as this twin: the same node on double-precision copies
// of its inputs (made by `copy`, a backend's casting copy), evaluated by `eval`, its outputs cast
// back by `copy`. Shared by the CPU and CUDA evaluations.
template <class Copy, class Eval>
void eval_widened(LinalgNode& node, const std::vector<Array>& outs, Copy copy, Eval eval) {
  auto wide = [](DType d) {
    return d == DType::Float32 ? DType::Float64 : d == DType::Complex64 ? DType::Complex128 : d;
  };
  LinalgNode w;
  w.spec = node.spec;
  w.spec.widen = false;
  w.device = node.device;
  for (const Array& x : node.inputs) {
    Array d = Array::empty(x.shape, wide(x.dtype), x.device());
    copy(x, d);
    w.inputs.push_back(d);
  }
  std::vector<Array> wouts;
  for (const Array& o : outs) wouts.push_back(Array::empty(o.shape, wide(o.dtype), o.device()));
  eval(w, wouts);
  for (size_t i = 0; i < outs.size(); ++i) copy(wouts[i], outs[i]);
}

}  // namespace nf
