// dtype: the 14 NumPy dtypes numfuse supports, one X-macro list, and the dispatch macro.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "numfuse/kernels/nf_types.h"

namespace nf {

// Order matters: it is the index into every generated table (core/generated/*.inc).
enum class DType : uint8_t {
  Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64,
  Float16, Float32, Float64, Complex64, Complex128
};
constexpr int kNumDTypes = 14;

// X(Enum, storage C++ type, NumPy type char, NumPy name)
#define NF_FOR_EACH_DTYPE(X)                     \
  X(Bool, bool, '?', "bool")                     \
  X(Int8, int8_t, 'b', "int8")                   \
  X(UInt8, uint8_t, 'B', "uint8")                \
  X(Int16, int16_t, 'h', "int16")                \
  X(UInt16, uint16_t, 'H', "uint16")             \
  X(Int32, int32_t, 'i', "int32")                \
  X(UInt32, uint32_t, 'I', "uint32")             \
  X(Int64, int64_t, 'l', "int64")                \
  X(UInt64, uint64_t, 'L', "uint64")             \
  X(Float16, ::nf::half, 'e', "float16")         \
  X(Float32, float, 'f', "float32")              \
  X(Float64, double, 'd', "float64")             \
  X(Complex64, ::nf::complex64, 'F', "complex64") \
  X(Complex128, ::nf::complex128, 'D', "complex128")

template <DType D> struct dtype_traits;
#define NF_DTYPE_TRAITS_(E, T, C, N)                 \
  template <> struct dtype_traits<DType::E> {        \
    using type = T;                                  \
    static constexpr char chr = C;                   \
    static constexpr const char* name = N;           \
  };
NF_FOR_EACH_DTYPE(NF_DTYPE_TRAITS_)
#undef NF_DTYPE_TRAITS_

template <class T> struct dtype_of;
#define NF_DTYPE_OF_(E, T, C, N) \
  template <> struct dtype_of<T> { static constexpr DType value = DType::E; };
NF_FOR_EACH_DTYPE(NF_DTYPE_OF_)
#undef NF_DTYPE_OF_

size_t itemsize(DType d);
const char* dtype_name(DType d);  // NumPy's name: "float32"
char dtype_char(DType d);         // NumPy's type char: 'f'
bool dtype_from_char(char c, DType* out);
bool dtype_from_name(const std::string& name, DType* out);

inline bool is_bool(DType d) { return d == DType::Bool; }
inline bool is_integer(DType d) { return d >= DType::Int8 && d <= DType::UInt64; }
inline bool is_unsigned(DType d) {
  return d == DType::UInt8 || d == DType::UInt16 || d == DType::UInt32 || d == DType::UInt64;
}
inline bool is_floating(DType d) { return d >= DType::Float16 && d <= DType::Float64; }
inline bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }
inline bool is_inexact(DType d) { return is_floating(d) || is_complex(d); }
// The real dtype of a complex one (complex64 -> float32); other dtypes map to themselves.
DType real_dtype(DType d);

// The C++ type arithmetic is done in: float16 computes in float, as NumPy's loops do.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<half> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

[[noreturn]] void throw_unsupported_dtype(const char* op, DType d);

// NF_DISPATCH(dtype, "op", { body using scalar_t }) instantiates body once per dtype.
#define NF_DISPATCH(DT, OPNAME, ...)                                          \
  do {                                                                        \
    switch (DT) {                                                             \
      NF_DISPATCH_ALL_CASES_(__VA_ARGS__)                                     \
      default: ::nf::throw_unsupported_dtype(OPNAME, DT);                     \
    }                                                                         \
  } while (0)
// Expanded by hand: the X-macro cannot forward __VA_ARGS__ through another macro argument.
#define NF_DISPATCH_ALL_CASES_(...)                                                    \
  case ::nf::DType::Bool: { using scalar_t = bool; __VA_ARGS__; } break;               \
  case ::nf::DType::Int8: { using scalar_t = int8_t; __VA_ARGS__; } break;             \
  case ::nf::DType::UInt8: { using scalar_t = uint8_t; __VA_ARGS__; } break;           \
  case ::nf::DType::Int16: { using scalar_t = int16_t; __VA_ARGS__; } break;           \
  case ::nf::DType::UInt16: { using scalar_t = uint16_t; __VA_ARGS__; } break;         \
  case ::nf::DType::Int32: { using scalar_t = int32_t; __VA_ARGS__; } break;           \
  case ::nf::DType::UInt32: { using scalar_t = uint32_t; __VA_ARGS__; } break;         \
  case ::nf::DType::Int64: { using scalar_t = int64_t; __VA_ARGS__; } break;           \
  case ::nf::DType::UInt64: { using scalar_t = uint64_t; __VA_ARGS__; } break;         \
  case ::nf::DType::Float16: { using scalar_t = ::nf::half; __VA_ARGS__; } break;      \
  case ::nf::DType::Float32: { using scalar_t = float; __VA_ARGS__; } break;           \
  case ::nf::DType::Float64: { using scalar_t = double; __VA_ARGS__; } break;          \
  case ::nf::DType::Complex64: { using scalar_t = ::nf::complex64; __VA_ARGS__; } break; \
  case ::nf::DType::Complex128: { using scalar_t = ::nf::complex128; __VA_ARGS__; } break;

}  // namespace nf
