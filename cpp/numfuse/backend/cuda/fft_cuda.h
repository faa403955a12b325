// cuFFT, opened with dlopen at first use through the shared loader (libcufft.so.12, .11 or
// unversioned: CUDA_HOME, pip's nvidia-cufft, the system loader or /usr/local/cuda). The FFT node's
// evaluation (eval_fft) is declared in nodes_cuda.h; the plan cache in fft_plan_cache.h.
#pragma once
#include <string>

namespace nf::cuda {

// Whether cuFFT loads (never throws).
bool cufft_available() noexcept;
// "CUFFT_INVALID_SIZE" for a cufftResult value.
std::string cufft_result_text(int status);

}  // namespace nf::cuda
