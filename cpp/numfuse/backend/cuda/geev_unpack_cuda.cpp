// The unpacking of geev_unpack_cuda.h. Each thread writes one complex element out(b, i, j) (the
// writes coalesced, the column-major reads strided: the pass moves about three n^2 arrays, well
// under a millisecond at 4096^2 against the seconds of geev). Which column pair an element takes
// is decided by its own eigenvalue's imaginary part: positive, it is the first of a pair (vr[:, j]
// + i vr[:, j + 1]); negative, the second (vr[:, j - 1] - i vr[:, j]); zero, a real vector. That
// is LAPACK's documented order, which Xgeev keeps (checked on the H100 for n up to 500).
#include "numfuse/backend/cuda/geev_unpack_cuda.h"

#include <algorithm>

#include "numfuse/backend/cuda/launch.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

std::string geev_unpack_body(bool single) {
  return std::string("typedef ") + (single ? "float" : "double") + " nf_gu_r;\n" + R"(
struct nf_gu_params {
  const nf_gu_r* vr;
  const nf_gu_r* w;
  nf_gu_r* out;
  long long n, batch;
};
extern "C" __global__ void __launch_bounds__(256) nf_geev_unpack(const nf_gu_params p) {
  const long long nn = p.n * p.n, total = p.batch * nn;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    const long long b = e / nn, r = e - b * nn, i = r / p.n, j = r - i * p.n;
    const nf_gu_r* v = p.vr + b * nn;
    const nf_gu_r wi = p.w[2 * (b * p.n + j) + 1];
    nf_gu_r re, im;
    if (wi > 0 && j + 1 < p.n) {
      re = v[j * p.n + i];
      im = v[(j + 1) * p.n + i];
    } else if (wi < 0 && j > 0) {
      re = v[(j - 1) * p.n + i];
      im = -v[j * p.n + i];
    } else {
      re = v[j * p.n + i];
      im = 0;
    }
    p.out[2 * e] = re;
    p.out[2 * e + 1] = im;
  }
}
)";
}

unsigned geev_unpack_blocks(const GeevUnpackParams& p) {
  const long long total = p.batch * p.n * p.n;
  return static_cast<unsigned>(
      std::clamp<long long>((total + kGeevUnpackThreads - 1) / kGeevUnpackThreads, 1, 1 << 16));
}

void unpack_geev_vectors(const Array& vr, const Array& w, const Array& out) {
  if (out.size() == 0) return;
  const bool single = vr.dtype == DType::Float32;
  if ((!single && vr.dtype != DType::Float64) || !vr.c_contiguous() || !w.c_contiguous() ||
      !out.c_contiguous() || out.size() != vr.size() || out.itemsize() != 2 * vr.itemsize() ||
      w.itemsize() != out.itemsize()) {
    throw Error("unpack_geev_vectors: contiguous real vr, complex w and out of matching sizes");
  }
  const long long n = vr.shape.back();
  GeevUnpackParams p{vr.data(), w.data(), out.data(), n, vr.size() / (n * n)};
  const int device = out.device().index;
  CUfunction fn =
      keyed_kernel(single ? "geev_unpack:f" : "geev_unpack:d", "nf_geev_unpack", {"-std=c++17"},
                   device, [single] { return geev_unpack_body(single); });
  launch(fn, device, geev_unpack_blocks(p), kGeevUnpackThreads, &p);
}

}  // namespace nf::cuda
