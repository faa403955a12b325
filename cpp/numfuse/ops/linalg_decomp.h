// numpy.linalg's LAPACK operations (inv, solve, det, cholesky, qr, eigh, svd, eig...): the shape,
// dtype and ndim rules eagerly, then one LinalgNode (ir/linalg_solve.h). The argument handling of
// each numpy.linalg function (promotion of ints, solve's broadcasting, modes) is in
// python/numfuse/_linalg_decomp.py; this layer takes arrays already of a LAPACK dtype.
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/linalg_solve.h"

namespace nf {

// The outputs of `spec.op` on `inputs` (see LinalgOp for each one's inputs and outputs), pending.
// Inputs of another dtype than float32/64, complex64/128 raise TypeError; fewer than 2 dims, or a
// non-square matrix where one is needed, raise LinAlgError with NumPy's message; batch dims that
// differ between inputs raise ValueError. Errors of the data (singular, not positive definite)
// come at evaluation, as LinAlgError.
std::vector<Array> linalg_decomp(const LinalgSpec& spec, const std::vector<Array>& inputs);

}  // namespace nf
