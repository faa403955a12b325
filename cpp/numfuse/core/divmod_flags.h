// NumPy's floating-point reports of floor_divide, remainder and divmod when an operand is NaN or
// infinite, as the installed NumPy gives them. They depend on how NumPy's wheel was built and on
// the libm it runs on, not on NumPy's source alone: NumPy 2.4 here reports `invalid` for
// inf // 1.0 and nothing for nan // 1.0; NumPy 2.5 on the GPU machine reports `invalid` in
// cases where 2.4 does not. The Python package probes the installed NumPy once at import
// (numfuse/_numpy_fp_probe.py) and installs the table here; the CPU loops (kernels/scalar_ops.h)
// and flag checks (backend/cpu/fp_check_cpu.cpp) and the CUDA checks (kernels/fp_check.h) report
// exactly the table's flags for such elements. Without a table (C++ tests) every element is
// judged as any other op's.
#pragma once
#include <cstdint>

namespace nf {

// The ops and value classes the table is indexed by (kernels/scalar_ops.h's divmod_class).
enum DivmodOpIndex : int { kDivmodFloorDivide = 0, kDivmodRemainder = 1, kDivmodDivmod = 2 };
constexpr int kDivmodClasses = 7;  // NaN, +inf, -inf, +0, -0, positive, negative
constexpr int kDivmodTableSize = 3 * 2 * kDivmodClasses * kDivmodClasses;  // op, float32/64, a, b

// Installs NumPy's flags (FpFlag bits) per [op][is_double][class a][class b]; only entries with
// a NaN or infinite operand or a zero divisor are used (kernels/scalar_ops.h's divmod_by_table). Called once, at import, before any op runs.
void set_divmod_nonfinite_flags(const uint8_t* table);
// Forgets the table: such elements are judged as any other op's again (tests).
void clear_divmod_nonfinite_flags();
bool divmod_nonfinite_installed();
uint8_t divmod_nonfinite_table(int op, int is_double, int class_a, int class_b);

}  // namespace nf
