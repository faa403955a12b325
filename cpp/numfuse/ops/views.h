// Shape ops that return views when they can (reshape, transpose, squeeze, broadcast_to, ...).
#pragma once
#include <vector>

#include "numfuse/core/array.h"

namespace nf {

// order 'C' or 'F'. A view when the strides allow it, else a pending copy.
Array reshape(const Array& a, const Shape& shape, char order = 'C');
Array ravel(const Array& a, char order = 'C');
Array transpose(const Array& a, const std::vector<int64_t>& axes);  // a permutation of every axis
Array transpose(const Array& a);
Array swapaxes(const Array& a, int64_t axis1, int64_t axis2);
Array moveaxis(const Array& a, const std::vector<int64_t>& source, const std::vector<int64_t>& dest);
Array squeeze(const Array& a, const std::vector<int64_t>& axes);  // empty: none (NumPy's axis=())
Array squeeze(const Array& a);
Array expand_dims(const Array& a, const std::vector<int64_t>& axes);
Array broadcast_to(const Array& a, const Shape& shape);  // read-only view, as NumPy's
// The real or imaginary part of a complex array as a view; real of a real array is itself.
Array real_part(const Array& a);
Array imag_part(const Array& a);  // of a real array: a read-only zeros array
// The k-th diagonal of the last two axes... of axes (axis1, axis2), as a view.
Array diagonal(const Array& a, int64_t offset, int64_t axis1, int64_t axis2);

}  // namespace nf
