// Shape and stride maths as small free functions (xtensor's xstrides/xshape are the model).
// Strides are in ELEMENTS, not bytes, and may be zero (broadcast) or negative (reversed views).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/core/small_vector.h"

namespace nf {

// Up to 6 dims inline: copying a shape allocates nothing for the arrays people use.
using Shape = SmallVector<int64_t, 6>;
using Strides = SmallVector<int64_t, 6>;

// The element count of a shape every dim of which is known to be valid (an Array's own shape).
int64_t numel(const Shape& shape);
// NumPy's size limit (npy_mul_sizes_with_overflow in PyArray_NewFromDescr): the product of the
// non-zero dims times itemsize must fit in int64. Returns the byte count (0 when a dim is 0);
// throws ValueError "array is too big; ..." past the limit and "negative dimensions are not
// allowed" for a dim below 0. Every shape that becomes an array goes through it (array.cpp,
// register_pending), so numel() of an array's shape never overflows.
int64_t checked_nbytes(const Shape& shape, size_t itemsize);
// checked_nbytes(shape, 1): the element count, with the same errors.
int64_t checked_numel(const Shape& shape);
// a * b and a + b for sizes (both >= 0), with checked_nbytes's ValueError on overflow.
int64_t checked_size_mul(int64_t a, int64_t b);
int64_t checked_size_add(int64_t a, int64_t b);
// NumPy's message for a size past the limit.
extern const char* const kArrayTooBig;
Strides contiguous_strides(const Shape& shape);  // C order
bool is_c_contiguous(const Shape& shape, const Strides& strides);
bool is_f_contiguous(const Shape& shape, const Strides& strides);

// NumPy's spelling of a shape in error messages: "(3,4)", "(5,)", "()".
std::string shape_str(const Shape& shape);

// The broadcast of two shapes; throws ValueError as NumPy words it:
// "operands could not be broadcast together with shapes (3,4) (5,) ".
Shape broadcast_shapes(const Shape& a, const Shape& b);
Shape broadcast_shapes(const std::vector<Shape>& shapes);
// Whether `from` broadcasts to `to` unchanged (NumPy's rule, no exception).
bool broadcasts_to(const Shape& from, const Shape& to);
// Strides that read an array of shape `from` as if it had the broadcast shape `to` (0 where it
// repeats). Throws ValueError if `from` does not broadcast to `to`.
Strides broadcast_strides(const Shape& from, const Strides& strides, const Shape& to);

// A possibly negative axis made non-negative; throws AxisError
// "axis 3 is out of bounds for array of dimension 2".
int normalize_axis(int64_t axis, int ndim);
// Axes (any order, negative allowed) as a sorted bitmask-like bool vector of length ndim; throws
// AxisError for out-of-range and ValueError "duplicate value in 'axis'" for repeats.
std::vector<bool> normalize_axes(const std::vector<int64_t>& axes, int ndim);

// The strides a reshape of (shape, strides) into new_shape can use without copying, or false when
// a copy is needed (NumPy's _attempt_nocopy_reshape).
bool reshape_strides(const Shape& shape, const Strides& strides, const Shape& new_shape,
                     Strides* out);

// Resolves one -1 in a requested shape; throws ValueError
// "cannot reshape array of size 6 into shape (4,)".
Shape infer_reshape(const Shape& requested, int64_t size);

}  // namespace nf
