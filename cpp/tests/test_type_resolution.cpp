// Spot checks of type promotion, casting and ufunc loop selection. Every expectation here was
// checked against NumPy 2.4 (the comment shows the NumPy expression); the full tables are
// compared with NumPy by tools/check_dtype_tables.py.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "numfuse/core/dtype.h"
#include "numfuse/core/error.h"
#include "numfuse/core/type_resolution.h"

namespace gen {
#include "numfuse/core/generated/dtype_tables.inc"
}

using namespace nf;
using D = DType;

namespace {
const OperandType kInt = OperandType::py_int();
const OperandType kFloat = OperandType::py_float();
const OperandType kComplex = OperandType::py_complex();
OperandType T(D d) { return OperandType::of(d); }

LoopSignature resolve2(UFunc op, OperandType a, OperandType b) {
  OperandType ins[2] = {a, b};
  return resolve_ufunc(op, ins);
}
LoopSignature resolve1(UFunc op, OperandType a) { return resolve_ufunc(op, &a); }

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no exception>";
}
}  // namespace

// ---- dtype.h -------------------------------------------------------------------------------------
TEST(DType, NamesCharsSizes) {
  EXPECT_EQ(itemsize(D::Bool), 1u);
  EXPECT_EQ(itemsize(D::Float16), 2u);
  EXPECT_EQ(itemsize(D::Complex64), 8u);
  EXPECT_EQ(itemsize(D::Complex128), 16u);
  EXPECT_STREQ(dtype_name(D::UInt16), "uint16");
  EXPECT_STREQ(dtype_name(D::Complex128), "complex128");
  EXPECT_EQ(dtype_char(D::Int64), 'l');
  EXPECT_EQ(dtype_char(D::Float16), 'e');
  for (int i = 0; i < kNumDTypes; ++i) {
    D d = static_cast<D>(i), back;
    ASSERT_TRUE(dtype_from_char(dtype_char(d), &back));
    EXPECT_EQ(back, d);
    ASSERT_TRUE(dtype_from_name(dtype_name(d), &back));
    EXPECT_EQ(back, d);
  }
  EXPECT_EQ(real_dtype(D::Complex64), D::Float32);
  EXPECT_EQ(real_dtype(D::Complex128), D::Float64);
  EXPECT_EQ(real_dtype(D::Int8), D::Int8);
}

TEST(DType, NumPySpellings) {
  struct { const char* s; D d; } ok[] = {
      {"float32", D::Float32}, {"f", D::Float32}, {"f4", D::Float32}, {"<f4", D::Float32},
      {"=f4", D::Float32}, {"single", D::Float32}, {"double", D::Float64}, {"float", D::Float64},
      {"d", D::Float64}, {"int", D::Int64}, {"int_", D::Int64}, {"intp", D::Int64},
      {"l", D::Int64}, {"q", D::Int64}, {"p", D::Int64}, {"long", D::Int64}, {"uint", D::UInt64},
      {"uintp", D::UInt64}, {"Q", D::UInt64}, {"B", D::UInt8}, {"ubyte", D::UInt8},
      {"complex", D::Complex128}, {"c8", D::Complex64}, {"csingle", D::Complex64},
      {"bool", D::Bool}, {"?", D::Bool}, {"b1", D::Bool}, {"bool_", D::Bool},
      {"half", D::Float16}, {"e", D::Float16}, {"intc", D::Int32}, {"|u1", D::UInt8},
      {">i1", D::Int8}, {"i8", D::Int64}, {"u4", D::UInt32}};
  for (auto& c : ok) {
    D d;
    ASSERT_TRUE(dtype_from_name(c.s, &d)) << c.s;
    EXPECT_EQ(d, c.d) << c.s;
  }
  for (const char* bad : {">f4", "float128", "longdouble", "g", "O", "object", "S", "f3", "",
                          "float ", "Float32", "cfloat", "float_"}) {
    D d;
    EXPECT_FALSE(dtype_from_name(bad, &d)) << bad;
  }
  D d;
  EXPECT_TRUE(dtype_from_char('q', &d));
  EXPECT_EQ(d, D::Int64);
  EXPECT_FALSE(dtype_from_char('g', &d));
  EXPECT_FALSE(dtype_from_name(std::string("f4\0x", 4), &d));
}

TEST(DType, UnsupportedThrowsTypeError) {
  std::string m = error_of<TypeError>([] { throw_unsupported_dtype("sort", D::Complex64); });
  EXPECT_NE(m.find("sort"), std::string::npos);
  EXPECT_NE(m.find("complex64"), std::string::npos);
}

// ---- promotion -------------------------------------------------------------------------------------
TEST(Promotion, PromoteTypes) {
  EXPECT_EQ(promote_types(D::Int64, D::UInt64), D::Float64);  // np.promote_types('l','L')
  EXPECT_EQ(promote_types(D::Int8, D::UInt8), D::Int16);
  EXPECT_EQ(promote_types(D::Int16, D::Float16), D::Float32);
  EXPECT_EQ(promote_types(D::UInt8, D::Float16), D::Float16);
  EXPECT_EQ(promote_types(D::Int32, D::Float32), D::Float64);
  EXPECT_EQ(promote_types(D::Float16, D::Complex64), D::Complex64);
  EXPECT_EQ(promote_types(D::Int64, D::Complex64), D::Complex128);
  EXPECT_EQ(promote_types(D::Bool, D::Bool), D::Bool);
}

TEST(Promotion, ResultTypeWeakScalars) {
  auto rt = [](std::vector<OperandType> v) { return result_type(v.data(), (int)v.size()); };
  EXPECT_EQ(rt({T(D::Float32), kFloat}), D::Float32);    // np.result_type(np.float32, 1.0)
  EXPECT_EQ(rt({T(D::Int8), kInt}), D::Int8);
  EXPECT_EQ(rt({T(D::UInt8), kInt}), D::UInt8);
  EXPECT_EQ(rt({T(D::Int8), kFloat}), D::Float64);
  EXPECT_EQ(rt({T(D::Bool), kInt}), D::Int64);
  EXPECT_EQ(rt({T(D::Float16), kComplex}), D::Complex64);
  EXPECT_EQ(rt({T(D::Float64), kComplex}), D::Complex128);
  EXPECT_EQ(rt({kInt, kFloat}), D::Float64);             // np.result_type(1, 2.0)
  EXPECT_EQ(rt({kInt}), D::Int64);
  EXPECT_EQ(rt({kComplex, kInt}), D::Complex128);
  EXPECT_EQ(rt({T(D::Int8), kInt, kFloat}), D::Float64);
  EXPECT_THROW(result_type(nullptr, 0), ValueError);
}

TEST(Promotion, ResultTypeIsNotALeftFold) {
  auto rt = [](std::vector<OperandType> v) { return result_type(v.data(), (int)v.size()); };
  EXPECT_EQ(rt({T(D::Int8), T(D::UInt8), T(D::Float16)}), D::Float16);   // fold gives float32
  EXPECT_EQ(rt({T(D::Int8), T(D::UInt16), T(D::Float16)}), D::Float32);  // fold gives float64
  EXPECT_EQ(rt({T(D::Int16), T(D::UInt16), T(D::Float32)}), D::Float32);
  EXPECT_EQ(rt({T(D::Int8), T(D::UInt16), T(D::Complex64)}), D::Complex64);
  EXPECT_EQ(rt({T(D::Int8), T(D::UInt8), T(D::Int16)}), D::Int16);
  EXPECT_EQ(rt({T(D::Int64), T(D::UInt64), T(D::Int8)}), D::Float64);
  std::vector<OperandType> many(40, T(D::Int8));
  many[17] = T(D::UInt8);
  many[33] = T(D::Float16);
  EXPECT_EQ(result_type(many.data(), 40), D::Float16);  // np.result_type(*[...]) takes > 32 too
}

TEST(Casting, CanCast) {
  EXPECT_TRUE(can_cast(D::Int8, D::Float16, Casting::Safe));
  EXPECT_FALSE(can_cast(D::Int16, D::Float16, Casting::Safe));
  EXPECT_TRUE(can_cast(D::Int16, D::Float16, Casting::SameKind));
  EXPECT_TRUE(can_cast(D::Float64, D::Float32, Casting::SameKind));
  EXPECT_FALSE(can_cast(D::Float64, D::Int64, Casting::SameKind));
  EXPECT_TRUE(can_cast(D::Float64, D::Int64, Casting::Unsafe));
  EXPECT_FALSE(can_cast(D::Int8, D::Int16, Casting::No));
  EXPECT_TRUE(can_cast(D::Int8, D::Int8, Casting::Equiv));
  EXPECT_FALSE(can_cast(D::Int64, D::UInt64, Casting::Safe));
  EXPECT_FALSE(can_cast(D::Int64, D::UInt64, Casting::SameKind));  // NumPy: signed -> unsigned is not same_kind
  EXPECT_FALSE(can_cast(D::Complex64, D::Float64, Casting::SameKind));
  Casting c;
  ASSERT_TRUE(casting_from_name("same_kind", &c));
  EXPECT_EQ(c, Casting::SameKind);
  EXPECT_STREQ(casting_name(Casting::Equiv), "equiv");
  EXPECT_FALSE(casting_from_name("sometimes", &c));
}

// ---- ufunc loops -----------------------------------------------------------------------------------
TEST(UFuncResolve, Basics) {
  LoopSignature s = resolve2(UFunc::Add, T(D::Float32), kFloat);  // np.add(f4_arr, 1.0)
  EXPECT_EQ(s.in[0], D::Float32);
  EXPECT_EQ(s.in[1], D::Float32);
  EXPECT_EQ(s.out[0], D::Float32);
  s = resolve2(UFunc::Add, T(D::Int64), T(D::UInt64));
  EXPECT_EQ(s.in[0], D::Float64);
  EXPECT_EQ(s.out[0], D::Float64);
  s = resolve1(UFunc::Sqrt, T(D::Int8));  // np.sqrt(int8) -> float16
  EXPECT_EQ(s.in[0], D::Float16);
  EXPECT_EQ(s.out[0], D::Float16);
  s = resolve2(UFunc::TrueDivide, T(D::Int32), T(D::Int32));
  EXPECT_EQ(s.in[0], D::Float64);
  EXPECT_EQ(s.out[0], D::Float64);
  s = resolve2(UFunc::Add, T(D::Int8), kInt);  // loop int8: 300 must then overflow
  EXPECT_EQ(s.in[1], D::Int8);
  EXPECT_EQ(s.out[0], D::Int8);
  s = resolve2(UFunc::Add, T(D::Bool), kInt);
  EXPECT_EQ(s.out[0], D::Int64);
  s = resolve2(UFunc::Add, T(D::UInt8), kFloat);
  EXPECT_EQ(s.out[0], D::Float64);
  s = resolve2(UFunc::Multiply, T(D::Float16), kComplex);
  EXPECT_EQ(s.out[0], D::Complex64);
  s = resolve2(UFunc::Add, kInt, kFloat);  // np.add(1, 2.0) -> float64
  EXPECT_EQ(s.out[0], D::Float64);
  s = resolve2(UFunc::Add, kInt, kInt);
  EXPECT_EQ(s.out[0], D::Int64);
  s = resolve1(UFunc::Sqrt, kInt);
  EXPECT_EQ(s.out[0], D::Float64);
}

TEST(UFuncResolve, MixedAndMultiOutputLoops) {
  LoopSignature s = resolve2(UFunc::Equal, T(D::Int64), T(D::UInt64));  // loop 'qQ->?'
  EXPECT_EQ(s.in[0], D::Int64);
  EXPECT_EQ(s.in[1], D::UInt64);
  EXPECT_EQ(s.out[0], D::Bool);
  s = resolve2(UFunc::Ldexp, T(D::Float32), kInt);  // 'fi->f'
  EXPECT_EQ(s.in[0], D::Float32);
  EXPECT_EQ(s.in[1], D::Int32);
  EXPECT_EQ(s.out[0], D::Float32);
  s = resolve1(UFunc::Frexp, T(D::Float32));
  EXPECT_EQ(s.out[0], D::Float32);
  EXPECT_EQ(s.out[1], D::Int32);
  s = resolve2(UFunc::Divmod, T(D::Int8), T(D::Int8));
  EXPECT_EQ(s.out[0], D::Int8);
  EXPECT_EQ(s.out[1], D::Int8);
  s = resolve1(UFunc::Isnan, T(D::Int32));
  EXPECT_EQ(s.in[0], D::Int32);
  EXPECT_EQ(s.out[0], D::Bool);
  s = resolve2(UFunc::LogicalAnd, T(D::Float32), kInt);  // promoter: '??->?', inputs force-cast
  EXPECT_EQ(s.in[0], D::Bool);
  EXPECT_EQ(s.in[1], D::Bool);
  EXPECT_TRUE(s.flags & kLoopForceCastInputs);
  s = resolve2(UFunc::LogicalAnd, T(D::Float32), T(D::Float32));  // 'ff->?'
  EXPECT_EQ(s.in[0], D::Float32);
  EXPECT_FALSE(s.flags & kLoopForceCastInputs);
  s = resolve2(UFunc::Equal, T(D::Int8), kInt);
  EXPECT_EQ(s.in[1], D::Int8);
  EXPECT_TRUE(s.flags & kLoopPyIntAnyValue);
  s = resolve2(UFunc::Add, T(D::Int8), kInt);
  EXPECT_FALSE(s.flags & kLoopPyIntAnyValue);
  s = resolve2(UFunc::Less, kInt, kInt);  // NumPy: exact object loop
  EXPECT_EQ(s.in[0], D::Int64);
  EXPECT_TRUE(s.flags & kLoopPyIntAnyValue);
}

TEST(UFuncResolve, NoLoopErrors) {
  const char* msg =
      "ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely "
      "coerced to any supported types according to the casting rule ''safe''";
  EXPECT_EQ(error_of<TypeError>([] { resolve2(UFunc::BitwiseAnd, T(D::Float32), T(D::Float32)); }), msg);
  // NumPy 2.4 raises a plain TypeError here, not UFuncTypeError
  try {
    resolve2(UFunc::BitwiseAnd, T(D::Float64), kInt);
    ADD_FAILURE() << "no exception";
  } catch (const TypeError& e) {
    EXPECT_EQ(dynamic_cast<const UFuncTypeError*>(&e), nullptr);
  }
  // ... while np.positive(bool) raises a UFuncTypeError
  EXPECT_EQ(error_of<UFuncTypeError>([] { resolve1(UFunc::Positive, T(D::Bool)); }),
            "ufunc 'positive' did not contain a loop with signature matching types "
            "<class 'numpy.dtypes.BoolDType'> -> None");
  EXPECT_THROW(resolve2(UFunc::LeftShift, kInt, kFloat), TypeError);
  EXPECT_THROW(resolve2(UFunc::Ldexp, T(D::Float32), T(D::UInt64)), TypeError);
  EXPECT_EQ(error_of<TypeError>([] { resolve1(UFunc::Negative, T(D::Bool)); }),
            "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
            "or the logical_not function instead.");
  EXPECT_EQ(error_of<TypeError>([] { resolve2(UFunc::Subtract, T(D::Bool), T(D::Bool)); }),
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
            "`^` operator, or the logical_xor function instead.");
  EXPECT_THROW(resolve1(UFunc::Floor, T(D::Complex64)), TypeError);
}

TEST(UFuncResolve, WithDType) {
  OperandType i8i8[2] = {T(D::Int8), T(D::Int8)};
  LoopSignature s = resolve_ufunc_with_dtype(UFunc::Add, i8i8, D::Float64);  // dtype=float64
  EXPECT_EQ(s.in[0], D::Float64);
  EXPECT_EQ(s.out[0], D::Float64);
  OperandType i64i64[2] = {T(D::Int64), T(D::Int64)};
  EXPECT_EQ(error_of<TypeError>([&] { resolve_ufunc_with_dtype(UFunc::TrueDivide, i64i64, D::Int64); }),
            "No loop matching the specified signature and casting was found for ufunc divide");
  OperandType f8f8[2] = {T(D::Float64), T(D::Float64)};
  s = resolve_ufunc_with_dtype(UFunc::Divmod, f8f8, D::Float32);  // both outputs float32
  EXPECT_EQ(s.in[0], D::Float32);
  EXPECT_EQ(s.out[1], D::Float32);
  OperandType f4[1] = {T(D::Float32)};
  EXPECT_THROW(resolve_ufunc_with_dtype(UFunc::Frexp, f4, D::Float32), TypeError);
  OperandType f4f4[2] = {T(D::Float32), T(D::Float32)};
  s = resolve_ufunc_with_dtype(UFunc::Equal, f4f4, D::Bool);
  EXPECT_EQ(s.in[0], D::Float32);
  EXPECT_EQ(s.out[0], D::Bool);
  OperandType f4i8[2] = {T(D::Float32), T(D::Int64)};
  s = resolve_ufunc_with_dtype(UFunc::Ldexp, f4i8, D::Float32);  // depends on the inputs
  EXPECT_EQ(s.in[1], D::Int64);
  OperandType f4int[2] = {T(D::Float32), kInt};
  s = resolve_ufunc_with_dtype(UFunc::Ldexp, f4int, D::Float32);
  EXPECT_EQ(s.in[1], D::Int32);
}

// ---- casting checks -------------------------------------------------------------------------------
TEST(UFuncCasting, OutputAndInputMessages) {
  OperandType f8f8[2] = {T(D::Float64), T(D::Float64)};
  LoopSignature s = resolve_ufunc(UFunc::Add, f8f8);
  D out = D::Int64;
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Add, s, f8f8, &out, 1, Casting::SameKind); }),
            "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'");
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Add, s, f8f8, &out, 1, Casting::Unsafe));
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Add, s, f8f8, nullptr, 0, Casting::No));

  OperandType i1i8[2] = {T(D::Int8), T(D::Int64)};
  s = resolve_ufunc(UFunc::Add, i1i8);
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Add, s, i1i8, nullptr, 0, Casting::No); }),
            "Cannot cast ufunc 'add' input 0 from dtype('int8') to dtype('int64') with casting rule 'no'");
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Add, s, i1i8, nullptr, 0, Casting::Safe));

  OperandType i1[1] = {T(D::Int8)};
  s = resolve_ufunc(UFunc::Sqrt, i1);
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Sqrt, s, i1, nullptr, 0, Casting::No); }),
            "Cannot cast ufunc 'sqrt' input from dtype('int8') to dtype('float16') with casting rule 'no'");

  // np.add(f8, f8, dtype=np.int64): input check with the default same_kind
  s = resolve_ufunc_with_dtype(UFunc::Add, f8f8, D::Int64);
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Add, s, f8f8, nullptr, 0, Casting::SameKind); }),
            "Cannot cast ufunc 'add' input 0 from dtype('float64') to dtype('int64') with casting rule 'same_kind'");
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Add, s, f8f8, nullptr, 0, Casting::Unsafe));

  // divmod numbers its outputs by operand position: the second output is "output 3"
  s = resolve_ufunc(UFunc::Divmod, f8f8);
  D outs[2] = {D::Float64, D::Int64};
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Divmod, s, f8f8, outs, 3, Casting::SameKind); }),
            "Cannot cast ufunc 'divmod' output 3 from dtype('float64') to dtype('int64') with casting rule 'same_kind'");
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Divmod, s, f8f8, outs, 1, Casting::SameKind));
}

TEST(UFuncCasting, WeakScalars) {
  OperandType i1int[2] = {T(D::Int8), kInt};
  LoopSignature s = resolve_ufunc(UFunc::Add, i1int);
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Add, s, i1int, nullptr, 0, Casting::No));
  // NumPy's quirk: 'equiv' is stricter than 'no' for Python scalars
  EXPECT_EQ(error_of<TypeError>([&] { check_ufunc_casting(UFunc::Add, s, i1int, nullptr, 0, Casting::Equiv); }),
            "cannot cast Python int to int8 under the casting rule 'equiv'");
  OperandType i1float[2] = {T(D::Int8), kFloat};
  s = resolve_ufunc_with_dtype(UFunc::Add, i1float, D::Int64);  // np.add(i1, 1.5, dtype=np.int64)
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Add, s, i1float, nullptr, 0, Casting::SameKind); }),
            "Cannot cast ufunc 'add' input 1 from dtype('float64') to dtype('int64') with casting rule 'same_kind'");
  OperandType f4complex[2] = {T(D::Float32), kComplex};
  s = resolve_ufunc_with_dtype(UFunc::Add, f4complex, D::Float32);
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Add, s, f4complex, nullptr, 0, Casting::SameKind); }),
            "Cannot cast ufunc 'add' input 1 from dtype('complex64') to dtype('float32') with casting rule 'same_kind'");
  OperandType intfloat[2] = {kInt, kFloat};  // np.add(1, 1.0, casting='equiv')
  s = resolve_ufunc(UFunc::Add, intfloat);
  EXPECT_EQ(error_of<TypeError>([&] { check_ufunc_casting(UFunc::Add, s, intfloat, nullptr, 0, Casting::Equiv); }),
            "cannot cast Python int to float64 under the casting rule 'equiv'");
  OperandType f4int[2] = {T(D::Float32), kInt};  // logical_and: inputs force-cast, even under 'no'
  s = resolve_ufunc(UFunc::LogicalAnd, f4int);
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::LogicalAnd, s, f4int, nullptr, 0, Casting::No));
  OperandType i8int[2] = {T(D::Int8), kInt};  // comparison with a Python int: no 'equiv' error
  s = resolve_ufunc(UFunc::Equal, i8int);
  EXPECT_NO_THROW(check_ufunc_casting(UFunc::Equal, s, i8int, nullptr, 0, Casting::Equiv));
  OperandType one_int[1] = {kInt};  // np.negative(1, dtype=np.int8, casting='no'): int64 source
  s = resolve_ufunc_with_dtype(UFunc::Negative, one_int, D::Int8);
  EXPECT_EQ(error_of<UFuncTypeError>([&] { check_ufunc_casting(UFunc::Negative, s, one_int, nullptr, 0, Casting::No); }),
            "Cannot cast ufunc 'negative' input from dtype('int64') to dtype('int8') with casting rule 'no'");
}

// ---- Python int values ------------------------------------------------------------------------------
TEST(PyInt, OverflowMessages) {
  // np.add(np.int8 array, 300)
  OperandType ins[2] = {T(D::Int8), kInt};
  LoopSignature s = resolve_ufunc(UFunc::Add, ins);
  D wd = weak_operand_dtype(UFunc::Add, s, ins, 1);
  EXPECT_EQ(wd, D::Int8);
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(PyIntValue::of(300), wd); }),
            "Python integer 300 out of bounds for int8");
  EXPECT_NO_THROW(check_pyint_fits(PyIntValue::of(-128), wd));
  EXPECT_EQ(error_of<OverflowError>([] { check_pyint_fits(PyIntValue::of(-1), D::UInt8); }),
            "Python integer -1 out of bounds for uint8");
  EXPECT_EQ(error_of<OverflowError>([] { check_pyint_fits(PyIntValue::of(INT64_MIN), D::UInt64); }),
            "Python integer -9223372036854775808 out of bounds for uint64");
  const PyIntValue two63 = PyIntValue::of_unsigned(9223372036854775808ull);
  EXPECT_NO_THROW(check_pyint_fits(two63, D::UInt64));
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(two63, D::UInt32); }),
            "Python integer 9223372036854775808 out of bounds for uint32");
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(two63, D::Int64); }),
            "Python int too large to convert to C long");
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(two63, D::UInt8); }),
            "Python int too large to convert to C long");
  PyIntValue huge;
  huge.huge = true;  // 2**70
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(huge, D::UInt64); }),
            "Python int too large to convert to C long");
  EXPECT_NO_THROW(check_pyint_fits(huge, D::Float16));  // inf, as NumPy
  huge.exceeds_double = true;  // 10**400
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(huge, D::Float32); }),
            "int too large to convert to float");
  // np.ldexp(f4_array, 2**40): the Python int goes to the loop's int32
  OperandType l[2] = {T(D::Float32), kInt};
  s = resolve_ufunc(UFunc::Ldexp, l);
  EXPECT_EQ(error_of<OverflowError>([&] { check_pyint_fits(PyIntValue::of(1ll << 40), weak_operand_dtype(UFunc::Ldexp, s, l, 1)); }),
            "Python integer 1099511627776 out of bounds for int32");
  // np.add(bool_array, 2**63): bool + int is an int64 loop
  OperandType b[2] = {T(D::Bool), kInt};
  s = resolve_ufunc(UFunc::Add, b);
  EXPECT_FALSE(pyint_fits(two63, weak_operand_dtype(UFunc::Add, s, b, 1)));
  // np.add(f4_array, 1) converts the 1 to float32; np.sqrt(1) treats it as int64
  OperandType f[2] = {T(D::Float32), kInt};
  s = resolve_ufunc(UFunc::Add, f);
  EXPECT_EQ(weak_operand_dtype(UFunc::Add, s, f, 1), D::Float32);
  OperandType one[1] = {kInt};
  s = resolve_ufunc(UFunc::Sqrt, one);
  EXPECT_EQ(weak_operand_dtype(UFunc::Sqrt, s, one, 0), D::Int64);
}

TEST(PyInt, ComparisonOutcome) {
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Less, 1, PyIntValue::of(-1), D::UInt8), PyIntCompare::AllFalse);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Greater, 1, PyIntValue::of(-1), D::UInt8), PyIntCompare::AllTrue);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Less, 0, PyIntValue::of(300), D::Int8), PyIntCompare::AllFalse);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::LessEqual, 1, PyIntValue::of(300), D::Int8), PyIntCompare::AllTrue);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Equal, 1, PyIntValue::of_unsigned(1ull << 63), D::Int64), PyIntCompare::AllFalse);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Equal, 1, PyIntValue::of(-1), D::UInt64), PyIntCompare::AllFalse);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::NotEqual, 0, PyIntValue::of(-1), D::UInt64), PyIntCompare::AllTrue);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::GreaterEqual, 0, PyIntValue::of(-129), D::Int8), PyIntCompare::AllFalse);
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Equal, 1, PyIntValue::of(5), D::Int8), PyIntCompare::InRange);
  PyIntValue huge;
  huge.huge = true;
  EXPECT_EQ(pyint_comparison_outcome(UFunc::Less, 1, huge, D::UInt64), PyIntCompare::AllTrue);
}

// ---- ufunc names --------------------------------------------------------------------------------------
TEST(UFuncNames, MatchGeneratedTables) {
  ASSERT_EQ(gen::kGenNumUFuncs, kNumUFuncs);
  for (int i = 0; i < kNumUFuncs; ++i) {
    UFunc op = static_cast<UFunc>(i), back;
    EXPECT_STREQ(ufunc_name(op), gen::kGenUFuncNames[i]);
    ASSERT_TRUE(ufunc_from_name(ufunc_name(op), &back));
    EXPECT_EQ(back, op);
  }
  UFunc op;
  ASSERT_TRUE(ufunc_from_name("true_divide", &op));
  EXPECT_EQ(op, UFunc::TrueDivide);
  EXPECT_STREQ(ufunc_name(UFunc::TrueDivide), "divide");
  EXPECT_EQ(ufunc_nin(UFunc::Frexp), 1);
  EXPECT_EQ(ufunc_nout(UFunc::Frexp), 2);
  EXPECT_EQ(ufunc_nin(UFunc::Divmod), 2);
  EXPECT_FALSE(ufunc_from_name("matmul", &op));
  EXPECT_STREQ(dtype_tables_numpy_version(), NF_DTYPE_TABLES_NUMPY_VERSION);
}
