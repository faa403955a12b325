// Benchmarks CPU ufunc loops on 1e7 contiguous elements (best of 10, hugepage-backed buffers as
// NumPy uses); compare with tools/bench_cpu_loops.py run under the NumPy of .venv. Build:
//   g++ -std=c++17 -O2 -Icpp tools/bench_cpu_loops.cpp <the backend/cpu objects> -lmvec
#include <chrono>
#include <cstdio>
#include <vector>
#include <sys/mman.h>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include "numfuse/backend/cpu/ufunc_loops.h"
using namespace nf;
template <class T> void run(UFunc op, DType d, const char* name, int nin) {
  const int64_t n = 10000000;
  auto mk = [&]() { size_t bytes = ((n * sizeof(T)) / (2 << 20) + 1) * (2 << 20); T* p = (T*)std::aligned_alloc(2 << 20, bytes); madvise(p, bytes, MADV_HUGEPAGE); std::memset((void*)p, 0, bytes); return p; };
  T* a = mk(); T* b = mk(); T* o = mk();
  for (int64_t i = 0; i < n; ++i) { a[i] = T(std::fabs(std::sin(i * 0.001)) * 10 + 0.01); b[i] = T(1.5 + (i % 7)); }
  DType in[2] = {d, d}, out[2];
  auto loop = cpu::find_ufunc_loop(op, in, out);
  const void* ins[2] = {a, b}; int64_t st[2] = {1, 1}; void* outs[1] = {o};
  double best = 1e9;
  for (int r = 0; r < 10; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    loop(ins, st, outs, n);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::printf("%-8s %-8s %7.2f ms\n", name, d == DType::Float32 ? "float32" : "float64", best);
}
int main() {
  run<float>(UFunc::Add, DType::Float32, "add", 2); run<double>(UFunc::Add, DType::Float64, "add", 2);
  run<float>(UFunc::Sin, DType::Float32, "sin", 1); run<double>(UFunc::Sin, DType::Float64, "sin", 1);
  run<float>(UFunc::Cos, DType::Float32, "cos", 1); run<double>(UFunc::Cos, DType::Float64, "cos", 1);
  run<float>(UFunc::Exp, DType::Float32, "exp", 1); run<double>(UFunc::Exp, DType::Float64, "exp", 1);
  run<float>(UFunc::Log, DType::Float32, "log", 1); run<double>(UFunc::Log, DType::Float64, "log", 1);
  run<float>(UFunc::Sqrt, DType::Float32, "sqrt", 1); run<double>(UFunc::Sqrt, DType::Float64, "sqrt", 1);
  run<float>(UFunc::Tanh, DType::Float32, "tanh", 1); run<double>(UFunc::Tanh, DType::Float64, "tanh", 1);
}
