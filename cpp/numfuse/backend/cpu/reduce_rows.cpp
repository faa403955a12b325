#include "numfuse/backend/cpu/reduce_rows.h"

// The row sums are compiled for baseline x86-64, AVX2 (x86-64-v3) and AVX-512 (x86-64-v4) and
// picked at load time: with the accumulator row in L2 (rows of more than a few thousand values)
// the baseline's 16-byte loads and stores ran 1.5x slower than NumPy's wider loop.
#if defined(__x86_64__) && defined(__linux__)
#define NF_ROW_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define NF_ROW_CLONES
#endif

namespace nf::cpu {

NF_ROW_CLONES void add_row(double* __restrict acc, const double* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += v[j];
}

NF_ROW_CLONES void add_row(float* __restrict acc, const float* __restrict v, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += v[j];
}

}  // namespace nf::cpu
