// Compiles the kernel headers with NVRTC, as the CUDA code generator will: the headers
// concatenated as text, then a kernel that calls functors on float, double and complex128.
// Needs no GPU. Build and run from the repository root:
//   g++ -std=c++17 -I/usr/local/cuda/include tools/nvrtc_check.cpp -L/usr/local/cuda/lib64 \
//       -lnvrtc -o /tmp/nvrtc_check && /tmp/nvrtc_check
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

static std::string slurp(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int main() {
  const char* headers[] = {"cpp/numfuse/kernels/nf_types.h", "cpp/numfuse/kernels/scalar_math.h",
                           "cpp/numfuse/kernels/complex_math.h", "cpp/numfuse/kernels/scalar_ops.h"};
  std::string src;
  for (const char* h : headers) {
    std::string text = slurp(h);
    if (text.empty()) {
      std::fprintf(stderr, "cannot read %s\n", h);
      return 2;
    }
    src += text + "\n";
  }
  src += R"(
extern "C" __global__ void k(const float* f, const double* d, const nf::complex128* z,
                             float* fo, double* dout, nf::complex128* zo, bool* bo, int* io,
                             const nf::half* h, nf::half* ho, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fo[i] = nf::sop::Sin{}(f[i]) + nf::sop::Exp{}(f[i]) + nf::sop::Logaddexp{}(f[i], f[i]) +
          nf::sop::FloorDivide{}(f[i], 3.0f) + nf::sop::Arctan2{}(f[i], 1.0f);
  dout[i] = nf::sop::Power{}(d[i], 2.0) + nf::sop::Remainder{}(d[i], 0.5) +
          nf::sop::Ldexp{}(d[i], 3) + nf::sop::Absolute{}(z[i]) + nf::sop::Frexp{}(d[i]).first;
  zo[i] = nf::sop::Sqrt{}(z[i]) + nf::sop::Log{}(z[i]) + nf::sop::Arctanh{}(z[i]) +
          nf::sop::Power{}(z[i], z[i]) + nf::sop::Tan{}(z[i]) + nf::sop::Arccosh{}(z[i]) +
          nf::sop::Sign{}(z[i]) + nf::sop::Maximum{}(z[i], z[i]) + nf::sop::Expm1{}(z[i]);
  bo[i] = nf::sop::Less{}(z[i], z[i]) || nf::sop::Isnan{}(d[i]) || nf::sop::Signbit{}(f[i]);
  io[i] = nf::sop::FloorDivide{}(io[i], 7) + nf::sop::LeftShift{}(io[i], 3) +
          nf::sop::Power{}(io[i], 3) + nf::convert<int>(d[i]) + nf::sop::Divmod{}(io[i], 5).second;
  ho[i] = nf::convert<nf::half>(nf::sop::Cos{}(float(h[i])) + nf::convert<float>(d[i]));
}
)";
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), "scalar_ops_check.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return 2;
  const char* opts[] = {"--gpu-architecture=compute_90", "-std=c++17", "-I/usr/local/cuda/include"};
  nvrtcResult rc = nvrtcCompileProgram(prog, 3, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  if (log_size > 1) std::printf("%s\n", log.c_str());
  std::printf("nvrtcCompileProgram: %s\n", nvrtcGetErrorString(rc));
  nvrtcDestroyProgram(&prog);
  return rc == NVRTC_SUCCESS ? 0 : 1;
}
