// Row kernels of the outer reductions that gain from wider vectors than the library's baseline
// (compiled for several instruction sets in reduce_rows.cpp, picked at load time).
#pragma once
#include <cstdint>

namespace nf::cpu {

// acc[j] += v[j] for j < n (acc and v do not overlap): a float sum's rows, added in order.
void add_row(double* acc, const double* v, int64_t n);
void add_row(float* acc, const float* v, int64_t n);

// acc[j] = op(acc[j], v[j]) for j < n, op NumPy's maximum / minimum (NaN propagates) or fmax /
// fmin (NaN ignored), exactly as the scalar op, down to the sign of a zero.
void max_row(double* acc, const double* v, int64_t n);
void max_row(float* acc, const float* v, int64_t n);
void min_row(double* acc, const double* v, int64_t n);
void min_row(float* acc, const float* v, int64_t n);
void fmax_row(double* acc, const double* v, int64_t n);
void fmax_row(float* acc, const float* v, int64_t n);
void fmin_row(double* acc, const double* v, int64_t n);
void fmin_row(float* acc, const float* v, int64_t n);

}  // namespace nf::cpu
