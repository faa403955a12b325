// NumPy 2 type promotion, casting rules and ufunc loop selection, exact to NumPy.
//
// Every answer comes from tables generated from NumPy itself (core/generated/dtype_tables.inc,
// written by tools/gen_dtype_tables.py and checked by tools/check_dtype_tables.py), so the hot
// path of every op is a few table lookups: no allocation, no search.
//
// Python scalars are "weak" (NEP 50): an operand may be a dtype or a Python int / float / complex
// whose value has not been given a dtype yet. Python bool is NOT weak: pass DType::Bool.
//
// The usual sequence for a ufunc call op(x, y, out=..., dtype=..., casting=...):
//   LoopSignature sig = dtype_given ? resolve_ufunc_with_dtype(op, ins, dt) : resolve_ufunc(op, ins);
//   check_ufunc_casting(op, sig, ins, out_dtypes, out_mask, casting);       // default SameKind
//   for each weak Python int operand i (value v):
//     if (sig.flags & kLoopPyIntAnyValue) -> comparison: pyint_comparison_outcome(...)
//     else check_pyint_fits(v, weak_operand_dtype(op, sig, ins, i));   // NumPy's OverflowError
//   weak float/complex operands are converted to weak_operand_dtype(op, sig, ins, i).
// The loop computes in sig.in[] / sig.out[]; results are cast to the out= arrays' dtypes.
#pragma once
#include <cstdint>
#include <string>

#include "numfuse/core/dtype.h"
#include "numfuse/ir/ufunc_list.h"

namespace nf {

// numpy's casting= rules, in NumPy's order (each allows at least what the previous one does).
enum class Casting : uint8_t { No, Equiv, Safe, SameKind, Unsafe };
const char* casting_name(Casting c);                       // "no", "equiv", "safe", "same_kind", "unsafe"
bool casting_from_name(const std::string& name, Casting* out);

// An operand's type as the ufunc sees it: a dtype, or a weak Python scalar kind (NEP 50).
enum class WeakKind : uint8_t { None, PyInt, PyFloat, PyComplex };
struct OperandType {
  DType dtype = DType::Bool;            // ignored when weak != None
  WeakKind weak = WeakKind::None;
  static constexpr OperandType of(DType d) { return OperandType{d, WeakKind::None}; }
  static constexpr OperandType py_int() { return OperandType{DType::Int64, WeakKind::PyInt}; }
  static constexpr OperandType py_float() { return OperandType{DType::Float64, WeakKind::PyFloat}; }
  static constexpr OperandType py_complex() { return OperandType{DType::Complex128, WeakKind::PyComplex}; }
};

// numpy.promote_types(a, b).
DType promote_types(DType a, DType b);

// numpy.result_type(*ops) with NEP 50 weak Python scalars, for any n >= 1 (throws nf::ValueError
// "at least one array or dtype is required" for n == 0). This is NumPy's order-independent
// sequence promotion, which is NOT a left fold of promote_types:
// result_type(int8, uint8, float16) == float16 although promote(promote(int8, uint8), float16)
// == float32. All-weak operands give int64 / float64 / complex128.
DType result_type(const OperandType* ops, int n);

// numpy.can_cast(from, to, casting) for dtypes.
bool can_cast(DType from, DType to, Casting casting);

// The loop NumPy selects: its input and output dtypes. Entries past nin / nout repeat in[0] /
// out[0]. `flags` carries two facts NumPy attaches to some loops:
enum : uint8_t {
  // The ufunc casts its inputs unsafely, without a casting check (logical_and/or/xor/not reached
  // through their bool promoter: np.logical_and(float32, int) runs the ??->? loop).
  kLoopForceCastInputs = 1,
  // A Python int operand may hold any value: comparisons of an integer array with a Python int
  // (np.equal(int8_array, 300) is all False, no OverflowError: see pyint_comparison_outcome), and
  // comparisons of two Python ints (NumPy uses an exact object loop; numfuse records int64).
  kLoopPyIntAnyValue = 2,
};
struct LoopSignature {
  DType in[2];
  DType out[2];
  uint8_t flags;
};

// The loop NumPy 2 selects for ufunc `op` on these operands (ufunc_nin(op) of them).
// Throws NumPy's exact error when it has none: nf::TypeError "ufunc 'bitwise_and' not supported
// for the input types, and the inputs could not be safely coerced to any supported types
// according to the casting rule ''safe''" (NumPy 2.4 raises a plain TypeError here), or the
// ufunc-specific ones (np.negative(bool): TypeError "The numpy boolean negative, ...";
// np.positive(bool): UFuncTypeError "ufunc 'positive' did not contain a loop ...").
LoopSignature resolve_ufunc(UFunc op, const OperandType* ins);

// As op(..., dtype=dtype): NumPy fixes every output's dtype to `dtype` and picks the first loop
// with those outputs. Throws what NumPy throws when there is none (TypeError "No loop matching
// the specified signature and casting was found for ufunc divide", or a ufunc-specific message).
// Input casts are not checked here: call check_ufunc_casting (NumPy checks them with casting=).
LoopSignature resolve_ufunc_with_dtype(UFunc op, const OperandType* ins, DType dtype);

// The dtype a weak operand i takes for loop `sig`: the value is converted to it, its range is
// checked against it, and it is the source of the input cast. For a binary ufunc it is
// result_type(sig.in[i], scalar) (a Python float meeting an int64 loop under dtype=int64 stays
// float64); a unary ufunc treats a Python scalar as an ordinary int64 / float64 / complex128
// array. For a non-weak operand, its own dtype.
DType weak_operand_dtype(UFunc op, const LoopSignature& sig, const OperandType* ins, int i);

// The casting checks NumPy makes once the loop is chosen, in NumPy's order, with its exact
// messages:
//  1. casting == Equiv and a weak operand's dtype (weak_operand_dtype) is not the scalar's
//     default (int64/float64/complex128): nf::TypeError
//     "cannot cast Python int to int8 under the casting rule 'equiv'" (sic: NumPy accepts 'no').
//  2. each input's cast to the loop dtype (skipped for kLoopForceCastInputs): nf::UFuncTypeError
//     "Cannot cast ufunc 'add' input 0 from dtype('int8') to dtype('float64') with casting rule 'no'"
//     ("input" without a number for unary ufuncs).
//  3. each given output: the loop's output dtype to outs[j] (bit j of out_mask says output j was
//     given; outs may be null when out_mask == 0): nf::UFuncTypeError "Cannot cast ufunc 'add'
//     output from dtype('float64') to dtype('int64') with casting rule 'same_kind'"
//     (for several outputs NumPy numbers them by operand: divmod's second output is "output 3").
void check_ufunc_casting(UFunc op, const LoopSignature& sig, const OperandType* ins,
                         const DType* outs, unsigned out_mask, Casting casting);

const char* ufunc_name(UFunc op);  // NumPy's name: "add", "divide", ...
int ufunc_nin(UFunc op);
int ufunc_nout(UFunc op);
bool ufunc_from_name(const std::string& name, UFunc* out);  // NumPy's names ("true_divide" too)

// A Python int value in a form any binding can produce cheaply.
struct PyIntValue {
  bool negative = false;
  uint64_t magnitude = 0;        // |value| when !huge
  bool huge = false;             // |value| >= 2**64
  bool exceeds_double = false;   // float(value) would raise OverflowError (|value| > DBL_MAX)
  static PyIntValue of(int64_t v);
  static PyIntValue of_unsigned(uint64_t v);
};

// NumPy's check when a weak Python int is converted to dtype d (use weak_operand_dtype):
// throws nf::OverflowError with NumPy's message:
//   "Python integer 300 out of bounds for int8"         (a value within int64's range)
//   "Python int too large to convert to C long"         (beyond int64; uint32/uint64 accept
//                                                         up to 2**64-1 first, as NumPy does)
//   "int too large to convert to float"                 (float/complex d, exceeds_double)
// float16/float32 targets overflow to inf without error, as in NumPy.
void check_pyint_fits(const PyIntValue& v, DType d);
bool pyint_fits(const PyIntValue& v, DType d);

// Comparisons (equal, not_equal, less, less_equal, greater, greater_equal) of an integer loop
// with a Python int operand at position pyint_index (0 or 1) where the loop has
// kLoopPyIntAnyValue: NumPy gives a constant result when the value is outside loop_dtype's
// range (np.less(uint8_array, -1) is all False), else compares normally (InRange).
enum class PyIntCompare : uint8_t { InRange, AllFalse, AllTrue };
PyIntCompare pyint_comparison_outcome(UFunc op, int pyint_index, const PyIntValue& v,
                                      DType loop_dtype);

// The NumPy version the tables were generated with ("2.4.6").
const char* dtype_tables_numpy_version();

}  // namespace nf
