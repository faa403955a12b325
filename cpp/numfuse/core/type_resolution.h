// TEMPORARY stand-in until the generated tables land (branch h/types).
#pragma once
#include <string>
#include "numfuse/core/dtype.h"
#include "numfuse/ops/ufunc_list.h"
namespace nf {
enum class Casting : uint8_t { No, Equiv, Safe, SameKind, Unsafe };
enum class WeakKind : uint8_t { None, PyInt, PyFloat, PyComplex };
struct OperandType { DType dtype; WeakKind weak = WeakKind::None; };
DType promote_types(DType a, DType b);
DType result_type(const OperandType* ops, int n);
bool can_cast(DType from, DType to, Casting casting);
struct LoopSignature { DType in[2]; DType out[2]; };
LoopSignature resolve_ufunc(UFunc op, const OperandType* ins);
const char* ufunc_name(UFunc op);
int ufunc_nin(UFunc op);
int ufunc_nout(UFunc op);
}  // namespace nf
namespace nf {
LoopSignature resolve_ufunc_with_dtype(UFunc op, const OperandType* ins, DType dtype);
void check_ufunc_input_casting(UFunc op, const LoopSignature& sig, const OperandType* ins, Casting c);
void check_ufunc_output_casting(UFunc op, DType loop_out, DType out, Casting c);
const char* casting_name(Casting c);
}
