// Prints nf::sop complex functions on a grid of special points (zeros, inf, NaN, huge) for
// tools/check_complex_math.py, which compares them with NumPy. Build from the repo root:
//   g++ -std=c++17 -O2 -Icpp -fno-math-errno tools/complex_dump.cpp -o /tmp/complex_dump
#include "numfuse/kernels/scalar_ops.h"
#include <cstdio>
#include <cmath>
using namespace nf;
int main() {
  const double inf = INFINITY, nan = NAN;
  double vals[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, 1e-20, 1e300, -1e300, 800.0, inf, -inf, nan};
  for (double x : vals) for (double y : vals) {
    complex128 z(x, y);
    auto pr = [&](const char* n, complex128 r) { std::printf("%s %.17g %.17g %.17g %.17g\n", n, x, y, r.re, r.im); };
    pr("exp", sop::Exp{}(z)); pr("log", sop::Log{}(z)); pr("sqrt", sop::Sqrt{}(z));
    pr("sin", sop::Sin{}(z)); pr("cos", sop::Cos{}(z)); pr("tan", sop::Tan{}(z));
    pr("sinh", sop::Sinh{}(z)); pr("cosh", sop::Cosh{}(z)); pr("tanh", sop::Tanh{}(z));
    pr("arcsin", sop::Arcsin{}(z)); pr("arccos", sop::Arccos{}(z)); pr("arctan", sop::Arctan{}(z));
    pr("arcsinh", sop::Arcsinh{}(z)); pr("arccosh", sop::Arccosh{}(z)); pr("arctanh", sop::Arctanh{}(z));
    pr("log1p", sop::Log1p{}(z)); pr("expm1", sop::Expm1{}(z)); pr("exp2", sop::Exp2{}(z));
    pr("log2", sop::Log2{}(z)); pr("log10", sop::Log10{}(z)); pr("reciprocal", sop::Reciprocal{}(z));
    pr("sign", sop::Sign{}(z)); pr("square", sop::Square{}(z));
    pr("power", sop::Power{}(z, complex128(2.5, 0.5))); pr("power3", sop::Power{}(complex128(0.5,0.75), z));
  }
}
