// One triangle of a stack of square matrices copied, optionally transposed, with the other
// triangle written as zeros, in one pass on the device: the copies around cuSOLVER's potrf
// (linalg_cuda.cpp's cholesky), which reads one triangle and leaves the other as it was, so that
// the factor comes out with its zeros and no separate tril/triu pass is needed.
#pragma once
#include <cstddef>
#include <string>

#include "numfuse/core/array.h"

namespace nf::cuda {

// The parameter struct of nf_triangle_copy, byte for byte. S(p, q) = src[p * s_p + q * s_q]
// (elements, either sign); dst(r, c) = S(c, r) where kept (c >= r with keep_upper, else
// r >= c), zero elsewhere.
struct TriangleCopyParams {
  const void* src;
  void* dst;
  long long n, batch;
  long long s_p, s_q, s_batch;
  int keep_upper;
};

// The kernel's source (appended to the prelude) for elements of `itemsize` bytes (4, 8 or 16).
std::string triangle_copy_body(size_t itemsize);

constexpr unsigned kTriangleCopyThreads = 256;  // a block: 32 x 8 threads over a 32 x 32 tile

// The parameters (all but dst) for src; false when src's batch axes are not one stride apart
// (copy_triangle then copies src to C order first).
bool triangle_copy_params(const Array& src, bool transpose, bool keep_upper, TriangleCopyParams* p);

// The blocks of the launch (each walks tiles of the stack until all are done).
unsigned triangle_copy_blocks(const TriangleCopyParams& p);

// dst (a C-order stack of n x n matrices, src's dtype and shape) = the upper (keep_upper) or
// lower triangle of src, or of src's matrices transposed (transpose), zero elsewhere. src may
// have any strides (a stack whose batch axes do not collapse is made contiguous first).
void copy_triangle(const Array& src, const Array& dst, bool transpose, bool keep_upper);

}  // namespace nf::cuda
