#include "numfuse/ir/linalg_solve.h"

namespace nf {

const char* linalg_op_name(LinalgOp op) {
  switch (op) {
    case LinalgOp::Inv: return "inv";
    case LinalgOp::Solve: return "solve";
    case LinalgOp::Det: return "det";
    case LinalgOp::Slogdet: return "slogdet";
    case LinalgOp::Cholesky: return "cholesky";
    case LinalgOp::QrRaw: return "qr";
    case LinalgOp::QrQ: return "qr(q)";
    case LinalgOp::Eigh: return "eigh";
    case LinalgOp::Eigvalsh: return "eigvalsh";
    case LinalgOp::Svd: return "svd";
    case LinalgOp::Svdvals: return "svdvals";
    case LinalgOp::Eig: return "eig";
    case LinalgOp::Eigvals: return "eigvals";
  }
  return "linalg";
}

}  // namespace nf
