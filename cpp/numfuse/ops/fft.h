// numpy.fft's transforms. Validation and NumPy 2's dtype rules happen here, eagerly; the result
// is a pending Array produced by an FftNode (ir/fft.h) and, when the transform is normalised, an
// elementwise multiply after it that fuses with what follows. backend/cpu/fft_cpu.cpp (pocketfft)
// and backend/cuda/fft_cuda.cpp (cuFFT) compute the node.
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/fft.h"

namespace nf {

// The transform's complex dtype for an input of dtype dt (NumPy 2: result_type(dt, 1j), so
// float16, float32 and complex64 -> complex64; float64, complex128, integers, bool -> complex128).
DType fft_complex_dtype(DType dt);

// One transform of `a` of `kind` over `axes` (possibly negative, distinct), with the transform
// length n[i] along axes[i]: the input is cut or zero-padded to it (for C2R, to n/2+1 along the
// last axis, whose output length is n). The result is multiplied by `scale` when it is not 1.
// Throws ValueError "Invalid number of FFT data points (0) specified." for n < 1, AxisError for
// an axis out of range, TypeError for a complex input to R2C.
Array fft(const Array& a, FftKind kind, bool forward, const std::vector<int64_t>& axes,
          const std::vector<int64_t>& n, double scale);

}  // namespace nf
