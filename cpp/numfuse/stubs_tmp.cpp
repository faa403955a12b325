// TEMPORARY: minimal loops and type rules so the core builds before the real ones merge.
#include <stdexcept>
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/core/error.h"
namespace nf::cpu {
template <class F, class T>
static void cast_loop(const void* s, int64_t st, void* d, int64_t n) {
  const F* src = static_cast<const F*>(s); T* dst = static_cast<T*>(d);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i * st]);
}
template <class T> static CastLoop cast_to(DType to) {
  switch (to) {
    case DType::Bool: return cast_loop<T, bool>; case DType::Int8: return cast_loop<T, int8_t>;
    case DType::UInt8: return cast_loop<T, uint8_t>; case DType::Int16: return cast_loop<T, int16_t>;
    case DType::UInt16: return cast_loop<T, uint16_t>; case DType::Int32: return cast_loop<T, int32_t>;
    case DType::UInt32: return cast_loop<T, uint32_t>; case DType::Int64: return cast_loop<T, int64_t>;
    case DType::UInt64: return cast_loop<T, uint64_t>; case DType::Float32: return cast_loop<T, float>;
    case DType::Float64: return cast_loop<T, double>; default: return nullptr;
  }
}
CastLoop find_cast_loop(DType from, DType to) {
  switch (from) {
    case DType::Bool: return cast_to<bool>(to); case DType::Int8: return cast_to<int8_t>(to);
    case DType::UInt8: return cast_to<uint8_t>(to); case DType::Int16: return cast_to<int16_t>(to);
    case DType::UInt16: return cast_to<uint16_t>(to); case DType::Int32: return cast_to<int32_t>(to);
    case DType::UInt32: return cast_to<uint32_t>(to); case DType::Int64: return cast_to<int64_t>(to);
    case DType::UInt64: return cast_to<uint64_t>(to); case DType::Float32: return cast_to<float>(to);
    case DType::Float64: return cast_to<double>(to); default: return nullptr;
  }
}
template <class T, class Op> static void bin(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  const T* a = static_cast<const T*>(in[0]); const T* b = static_cast<const T*>(in[1]); T* o = static_cast<T*>(out[0]);
  for (int64_t i = 0; i < n; ++i) o[i] = Op{}(a[i * st[0]], b[i * st[1]]);
}
struct AddOp { template <class T> T operator()(T a, T b) const { return a + b; } };
struct MulOp { template <class T> T operator()(T a, T b) const { return a * b; } };
UFuncLoop find_ufunc_loop(UFunc op, const DType* in, DType* out) {
  out[0] = in[0];
  if (in[0] == DType::Float64 && op == UFunc::Add) return bin<double, AddOp>;
  if (in[0] == DType::Float32 && op == UFunc::Add) return bin<float, AddOp>;
  if (in[0] == DType::Int64 && op == UFunc::Add) return bin<int64_t, AddOp>;
  if (in[0] == DType::Float64 && op == UFunc::Multiply) return bin<double, MulOp>;
  if (in[0] == DType::Float32 && op == UFunc::Multiply) return bin<float, MulOp>;
  if (in[0] == DType::Int64 && op == UFunc::Multiply) return bin<int64_t, MulOp>;
  return nullptr;
}
}  // namespace nf::cpu
