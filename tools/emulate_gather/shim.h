// CUDA built-ins as host code, for tools/emulate_gather (one thread at a time: atomics are plain).
#include <cstring>
struct nf_dim3 { unsigned x = 0, y = 0, z = 0; };
static nf_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
static unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) {
  unsigned long long o = *p; if (o == c) *p = v; return o; }
static long long atomicMax(long long* p, long long v) { long long o = *p; if (v > o) *p = v; return o; }
