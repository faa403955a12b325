// The short path of element loops (`d[i, j] = min(d[i-1, j], d[i, j-1]) + 1`, `A[i+1:, i]`):
// keys of integers and slices read straight into a view's geometry, one element read as a NumPy
// scalar, one element written in place. Everything else (and every error) takes the general path
// of bind_indexing.cpp, which gives the same answers more slowly.
#pragma once
#include "bindings.h"

namespace nf::py {

// a[key] for a key of at most a.ndim() integers (Python ints, NumPy integer scalars) and slices
// (of ints or None), every integer in bounds. `element`: the key names one element.
struct FastKey {
  bool element = false;
  int64_t byte_offset = 0;  // of the element, or of the view's first element
  Shape shape;              // the view's (when not an element)
  Strides strides;
};
// False (nothing set, no Python error) where the key is anything else, or would raise.
bool parse_fast_key(const Array& a, PyObject* key, FastKey* out);

// Converts a Python or NumPy scalar to one element of dtype `target` at `dst` (16 bytes at
// most), with the value NumPy's setitem would store and the OverflowError it raises for NumPy
// integers past a signed dtype; false (nothing written) where the value is of another kind, or
// where NumPy would warn or raise otherwise (float overflow, NaN into an integer...).
bool store_element(PyObject* value, DType target, void* dst);

// writable_now(a): graph/eval.h (the express lane of ops/elementwise.cpp writes through it too).

// Whether `key` is all integers for an array of `ndim` dims (Python ints, NumPy integer scalars,
// 0-d integer arrays of numfuse or NumPy): NumPy returns a scalar for such a key.
bool integer_only_key(PyObject* key, int ndim);

}  // namespace nf::py
