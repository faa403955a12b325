// Matrix products: numpy.matmul's shape, dtype and error rules, eagerly; the product itself is an
// Opaque node (ir/matmul.h) computed by BLAS (backend/cpu/matmul_cpu.cpp) or cuBLAS. dot/vdot/
// inner/outer/tensordot/einsum are composed from matmul plus views in python/numfuse/_linalg.py.
#pragma once
#include <optional>
#include <string>

#include "numfuse/core/array.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/ir/matmul.h"

namespace nf {

// numpy.matmul(a, b[, dtype=]): batch dims broadcast, 1-D operands get a 1 prepended (a) or
// appended (b) that is removed from the result, the result dtype is promote_types(a, b) (bool
// stays bool, integers stay integers). With `dtype` the product is computed in that dtype (the
// operands are cast to it under `casting`, as a ufunc's dtype= does). Throws ValueError worded
// as NumPy's gufunc errors.
Array matmul(const Array& a, const Array& b, std::optional<DType> dtype = std::nullopt,
             Casting casting = Casting::SameKind);

// matmul(a, b) of materialised CPU operands of one BLAS dtype (float32/64, complex64/128) that
// are two vectors (a 0-d result: Backend::run_vector_dot_now) or a vector and a matrix whose rows
// or columns are contiguous (a 1-d result: Backend::run_matvec_now), computed now without a node:
// the result in *result. False, with nothing done, for anything else (the caller then takes
// matmul's node, which also raises NumPy's errors), or when immediate evaluation is off
// (NUMFUSE_IMMEDIATE_MAX=0). The products of a Python loop over rows (lu, covariance) take it.
bool matmul_now(const Array& a, const Array& b, Array* result);

// The result shape of matmul(a_shape, b_shape), or the ValueError NumPy raises.
Shape matmul_shape(const Shape& a, const Shape& b);

}  // namespace nf
