// dtype: names, type chars and sizes of the 14 dtypes; parsing of NumPy's dtype spellings.
#include "numfuse/core/dtype.h"

#include <cstring>

#include "numfuse/core/error.h"

namespace nf {
namespace detail {
#include "numfuse/core/generated/dtype_tables.inc"
}  // namespace detail

size_t itemsize(DType d) {
  switch (d) {
#define NF_ITEMSIZE_(E, T, C, N) \
  case DType::E:                 \
    return sizeof(T);
    NF_FOR_EACH_DTYPE(NF_ITEMSIZE_)
#undef NF_ITEMSIZE_
  }
  return 0;
}

const char* dtype_name(DType d) {
  switch (d) {
#define NF_NAME_(E, T, C, N) \
  case DType::E:             \
    return N;
    NF_FOR_EACH_DTYPE(NF_NAME_)
#undef NF_NAME_
  }
  return "<invalid dtype>";
}

char dtype_char(DType d) {
  switch (d) {
#define NF_CHAR_(E, T, C, N) \
  case DType::E:             \
    return C;
    NF_FOR_EACH_DTYPE(NF_CHAR_)
#undef NF_CHAR_
  }
  return '\0';
}

// NumPy's single-character type codes for our dtypes, including the aliases of the same dtype
// on LP64 ('q'/'Q' long long, 'p'/'P' intp, 'n'/'N'). 'g', 'G', 'O', 'M', ... are not ours.
bool dtype_from_char(char c, DType* out) {
  switch (c) {
    case '?': *out = DType::Bool; return true;
    case 'b': *out = DType::Int8; return true;
    case 'B': *out = DType::UInt8; return true;
    case 'h': *out = DType::Int16; return true;
    case 'H': *out = DType::UInt16; return true;
    case 'i': *out = DType::Int32; return true;
    case 'I': *out = DType::UInt32; return true;
    case 'l': case 'q': case 'p': case 'n': *out = DType::Int64; return true;
    case 'L': case 'Q': case 'P': case 'N': *out = DType::UInt64; return true;
    case 'e': *out = DType::Float16; return true;
    case 'f': *out = DType::Float32; return true;
    case 'd': *out = DType::Float64; return true;
    case 'F': *out = DType::Complex64; return true;
    case 'D': *out = DType::Complex128; return true;
    default: return false;
  }
}

// Every spelling numpy.dtype(str) maps to one of our dtypes in native byte order ("float32",
// "f4", "<f4", "=f4", "double", "int", "float", "complex", "bool", "int_", "intp", "uint", ...),
// generated from NumPy into dtype_tables.inc. Big-endian spellings of multi-byte dtypes are not
// accepted (numfuse arrays are native-endian).
bool dtype_from_name(const std::string& name, DType* out) {
  const auto* first = std::begin(detail::kDTypeSpellings);
  const auto* last = std::end(detail::kDTypeSpellings);
  const char* key = name.c_str();
  while (first < last) {  // binary search: the table is sorted in strcmp order
    const auto* mid = first + (last - first) / 2;
    int c = std::strcmp(mid->name, key);
    if (c == 0) {
      if (std::strlen(mid->name) != name.size()) return false;  // embedded NUL
      *out = static_cast<DType>(mid->dtype);
      return true;
    }
    if (c < 0) first = mid + 1; else last = mid;
  }
  return false;
}

DType real_dtype(DType d) {
  switch (d) {
    case DType::Complex64: return DType::Float32;
    case DType::Complex128: return DType::Float64;
    default: return d;
  }
}

void throw_unsupported_dtype(const char* op, DType d) {
  throw TypeError(std::string("numfuse: '") + op + "' is not implemented for dtype " +
                  dtype_name(static_cast<DType>(d)));
}

}  // namespace nf
