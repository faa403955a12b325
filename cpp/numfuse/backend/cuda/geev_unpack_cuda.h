// The eigenvectors of a real cusolverDnXgeev unpacked on the device: geev of a real matrix
// returns them as LAPACK does, real and packed (a complex pair w_j, w_{j+1} = conj(w_j), w_j's
// imaginary part positive, has the vectors vr[:, j] +- i vr[:, j+1]), column-major; numfuse's
// output is the complex C-order matrix. One pass, a thread per output element, instead of a copy
// of vr to the host and of the result back (about 3% of a 4096^2 eig).
#pragma once
#include <string>

#include "numfuse/core/array.h"

namespace nf::cuda {

// The parameter struct of nf_geev_unpack, byte for byte (pointers to the real type).
struct GeevUnpackParams {
  const void* vr;  // batch column-major n x n real matrices
  const void* w;   // batch x n complex eigenvalues (real, imaginary interleaved)
  void* out;       // batch C-order n x n complex matrices
  long long n, batch;
};

// The kernel's source (appended to the prelude) for float (single) or double.
std::string geev_unpack_body(bool single);

constexpr unsigned kGeevUnpackThreads = 256;

// The blocks of the launch (a grid-stride loop covers the rest).
unsigned geev_unpack_blocks(const GeevUnpackParams& p);

// out (complex64/complex128, C order, batch x n x n as vr's shape) from vr (float32/float64,
// each matrix column-major) and w (the matching complex dtype, batch x n).
void unpack_geev_vectors(const Array& vr, const Array& w, const Array& out);

}  // namespace nf::cuda
