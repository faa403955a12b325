// The device unpacking of a real geev's eigenvectors (backend/cuda/geev_unpack_cuda.h): compiled
// by NVRTC for float and double, and run on the CPU through tests/cuda_emulator.h (opt-in:
// NUMFUSE_EMULATE_CUDA=<repository root>) on stacks mixing real eigenvalues and conjugate pairs,
// against LAPACK's rule applied here pair by pair (the rule numfuse's CPU eig uses).
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/geev_unpack_cuda.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

#define NF_NEEDS_EMULATION() \
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>"

// Eigenvalues of `batch` matrices of order n: real ones and conjugate pairs (positive imaginary
// part first, as geev orders them), the pattern drawn per matrix; vr random.
template <class R>
void check(int64_t n, int64_t batch, unsigned seed, unsigned blocks = 0) {
  using C = std::complex<R>;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<R> vr(static_cast<size_t>(batch * n * n));
  for (R& x : vr) x = static_cast<R>(u(gen));
  std::vector<C> w(static_cast<size_t>(batch * n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < n; ++j) {
      const bool pair = j + 1 < n && u(gen) > 0.0;
      w[b * n + j] = C(static_cast<R>(u(gen)), pair ? static_cast<R>(0.5 + u(gen) * 0.25) : R(0));
      if (pair) {
        w[b * n + j + 1] = std::conj(w[b * n + j]);
        ++j;
      }
    }
  }
  std::vector<C> out(vr.size(), C(R(7), R(7)));
  GeevUnpackParams p{vr.data(), w.data(), out.data(), n, batch};
  std::vector<uint8_t> bytes(sizeof p);
  std::memcpy(bytes.data(), &p, sizeof p);
  test::emulate_launch(geev_unpack_body(sizeof(R) == 4), "nf_gu_params", {"nf_geev_unpack"},
                       "nf_geev_unpack", blocks ? blocks : geev_unpack_blocks(p),
                       kGeevUnpackThreads, bytes);
  for (int64_t b = 0; b < batch; ++b) {
    const R* f = vr.data() + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      const bool pair = w[b * n + j].imag() != R(0);
      for (int64_t i = 0; i < n; ++i) {
        const C want = pair ? C(f[i + j * n], f[i + (j + 1) * n]) : C(f[i + j * n], R(0));
        ASSERT_EQ(out[(b * n + i) * n + j], want)
            << "n " << n << " b " << b << " (" << i << ", " << j << ")";
        if (pair) {
          ASSERT_EQ(out[(b * n + i) * n + j + 1], std::conj(want))
              << "n " << n << " b " << b << " (" << i << ", " << j + 1 << ")";
        }
      }
      if (pair) ++j;
    }
  }
}

}  // namespace

TEST(GeevUnpack, CompilesForFloatAndDouble) {
  for (bool single : {true, false}) {
    expect_nvrtc_compiles(std::string(kKernelPrelude) + geev_unpack_body(single),
                          single ? "geev_unpack float" : "geev_unpack double");
  }
}

TEST(GeevUnpack, StacksOfRealValuesAndPairs) {
  NF_NEEDS_EMULATION();
  for (int64_t n : {1, 2, 3, 8, 33}) {
    check<double>(n, 3, static_cast<unsigned>(n));
    check<float>(n, 2, static_cast<unsigned>(n) + 100);
  }
  check<double>(17, 5, 7, 3);  // fewer threads than elements: the grid-stride loop
}
