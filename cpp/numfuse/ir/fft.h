// The FFT node kind: one discrete Fourier transform over one or more axes (ops/fft.h builds it
// with numpy.fft's rules; pocketfft computes it on the CPU, cuFFT on CUDA).
#pragma once
#include <string>
#include <vector>

#include "numfuse/ir/node.h"

namespace nf {

// What goes in and out: complex to complex, real to its half spectrum (the last transformed
// axis keeps n/2+1 values), or a half spectrum to real.
enum class FftKind : uint8_t { C2C, R2C, C2R };

// What is computed: an unnormalised transform (the normalisation is an elementwise multiply
// after the node, ops/fft.cpp, so that it fuses with what follows), in the exponent's sign
// `forward` (-1) or backward (+1), over `axes` (distinct, in [0, ndim)). The input is already of
// the transform's dtype and lengths: for C2C the output's shape; for R2C the real input, whose
// last transformed axis the output halves; for C2R the half spectrum, the output holding
// 2*(m-1) or 2*(m-1)+1 values along the last transformed axis (its shape says which).
struct FftSpec {
  FftKind kind = FftKind::C2C;
  bool forward = true;
  std::vector<int> axes;
};

// out = transform(in). inputs = {in}: complex64/complex128 (float32/float64 for R2C). The
// output is complex of the same precision (real for C2R).
struct FftNode : Node {
  FftSpec spec;
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override {
    return spec.kind == FftKind::R2C ? "rfft" : spec.kind == FftKind::C2R ? "irfft" : "fft";
  }
};

}  // namespace nf
