// ---- nf_fdiv(n, m, sh): n / d for a non-negative index n, by d's magic number m and shift sh
// (fast_divisor() in codegen_elementwise.cpp: Granlund and Montgomery). The overload follows the
// kernel's index type nf_idx: 32-bit indices multiply in 32 bits, 64-bit ones in 64.
__device__ __forceinline__ int nf_fdiv(int n, unsigned long long m, unsigned long long sh) {
  return int((__umulhi(unsigned(n), unsigned(m)) + unsigned(n)) >> unsigned(sh));
}
__device__ __forceinline__ long long nf_fdiv(long long n, unsigned long long m, unsigned long long sh) {
  return (long long)((__umul64hi((unsigned long long)n, m) + (unsigned long long)n) >> sh);
}
