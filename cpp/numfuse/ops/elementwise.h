// Elementwise ops: ufuncs, where, astype and assignment. Validation, promotion and broadcasting
// happen here, eagerly; the result is a pending Array.
#pragma once
#include <optional>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/core/type_resolution.h"

namespace nf {

// An operand of a ufunc: an array, or a weak Python scalar (NEP 50).
struct Operand {
  Array array;  // a weak scalar is a 0-d int64 / uint64 / float64 / complex128 array
  WeakKind weak = WeakKind::None;

  static Operand of(Array a) { return {std::move(a), WeakKind::None}; }
  static Operand py_int(int64_t v);
  static Operand py_uint(uint64_t v);  // Python ints in (2**63, 2**64)
  static Operand py_float(double v);
  static Operand py_complex(double re, double im);
  // A Python bool: not weak (a bool array), but a cached constant like the weak scalars.
  static Operand py_bool(bool v);
};

struct UFuncOptions {
  std::vector<std::optional<Array>> out;  // out= per output (empty: none given)
  std::optional<Array> where;             // where= mask
  std::optional<DType> dtype;             // dtype=
  Casting casting = Casting::SameKind;
};

// op(*ins, **opts) with NumPy's semantics. Returns the outputs (the out= arrays when given).
std::vector<Array> ufunc(UFunc op, const std::vector<Operand>& ins, const UFuncOptions& opts = {});
Array ufunc1(UFunc op, const Operand& a);
Array ufunc2(UFunc op, const Operand& a, const Operand& b);
// `c = a + b` of two small materialised host arrays of one shape (any strides), whose dtypes are
// the loop's, computed now with no operand copies (the express lane's shortest path): false,
// nothing done, where anything differs or the loop raised a floating-point flag (then ufunc2).
bool ufunc2_arrays_now(UFunc op, const Array& a, const Array& b, Array* result);
// The same for `a + 1.0` (scalar_first: `1.0 - a`): the Python float is weak (NEP 50).
bool ufunc2_array_float_now(UFunc op, const Array& a, double v, bool scalar_first, Array* result);
// self op= b: op(self, b, out=self) for a binary ufunc of one output (`a[i:, j] /= s`).
void ufunc2_inplace(UFunc op, const Array& self, const Operand& b);

// numpy.where(cond, x, y): x and y promoted to their result_type.
Array where(const Operand& cond, const Operand& x, const Operand& y);

// a.astype(dtype) (always a new array when copy, else `a` itself if the dtype matches).
Array astype(const Array& a, DType dtype, bool copy = true);
// A new C-contiguous copy (a.copy()).
Array copy(const Array& a);

// dst[...] = src with broadcasting and a cast under `casting` (setitem uses Unsafe as NumPy
// does). Evaluates what it must so that NumPy's eager semantics hold. When nothing but this call
// holds src (`src_is_temporary`: the right side of `b[...] = expr`, a ufunc's result for out=),
// src's fused group writes straight into dst.
void assign(const Array& dst, const Array& src, Casting casting = Casting::Unsafe,
            bool src_is_temporary = false);

// dst[...] = value for a ufunc-style operand: a weak Python int must fit dst's integer dtype.
void assign(const Array& dst, const Operand& value, bool value_is_temporary = false);

// Whether a Python scalar can be stored into an array of `target` as NumPy's setitem and fill
// store it (through int()/float()): NaN, inf or an out-of-range value into an integer array, a
// complex into a real one, raise NumPy's ValueError/OverflowError/TypeError. Arrays pass.
void check_scalar_storable(const Operand& value, DType target);

// Raises ValueError if the arrays live on different devices (host scalars go anywhere).
Device common_device(const std::vector<const Array*>& arrays);
Device common_device(const Array* const* arrays, size_t n);

}  // namespace nf
