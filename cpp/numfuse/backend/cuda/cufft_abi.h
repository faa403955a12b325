// The few cuFFT types, values and signatures numfuse calls, declared here so that the build needs
// no CUDA headers (the library is opened with dlopen). Values mirror cufft.h (stable since
// cuFFT 10); cpp/tests/test_fft_cuda.cpp checks them against the toolkit's header when it is
// present at build time.
#pragma once
#include <cstddef>

#include "numfuse/backend/cuda/cuda_api.h"

namespace nf::cuda::cufft_abi {

using cufftHandle = int;
using cufftResult = int;
constexpr cufftResult CUFFT_SUCCESS = 0x0;
constexpr cufftResult CUFFT_ALLOC_FAILED = 0x2;
// cufft.h defines CUFFT_FORWARD and CUFFT_INVERSE as macros: ours are named apart.
constexpr int kCufftForward = -1, kCufftInverse = 1;
// cufftType
constexpr int CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29;
constexpr int CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69;

// Data pointers are typed (cufftComplex* ...) in the header; as C functions they are called
// through void pointers. Enums are passed as int.
using CreateFn = cufftResult (*)(cufftHandle*);
using DestroyFn = cufftResult (*)(cufftHandle);
using MakePlanMany64Fn = cufftResult (*)(cufftHandle, int, long long*, long long*, long long,
                                         long long, long long*, long long, long long, int,
                                         long long, size_t*);
using SetStreamFn = cufftResult (*)(cufftHandle, CUstream);
using GetVersionFn = cufftResult (*)(int*);
using ExecComplexFn = cufftResult (*)(cufftHandle, void*, void*, int);  // C2C, Z2Z: direction
using ExecRealFn = cufftResult (*)(cufftHandle, void*, void*);          // R2C, C2R, D2Z, Z2D

// X(member, symbol, type)
#define NF_CUFFT_CALLS(X)                                    \
  X(Create, "cufftCreate", CreateFn)                         \
  X(Destroy, "cufftDestroy", DestroyFn)                      \
  X(MakePlanMany64, "cufftMakePlanMany64", MakePlanMany64Fn) \
  X(SetStream, "cufftSetStream", SetStreamFn)                \
  X(GetVersion, "cufftGetVersion", GetVersionFn)             \
  X(ExecC2C, "cufftExecC2C", ExecComplexFn)                  \
  X(ExecZ2Z, "cufftExecZ2Z", ExecComplexFn)                  \
  X(ExecR2C, "cufftExecR2C", ExecRealFn)                     \
  X(ExecD2Z, "cufftExecD2Z", ExecRealFn)                     \
  X(ExecC2R, "cufftExecC2R", ExecRealFn)                     \
  X(ExecZ2D, "cufftExecZ2D", ExecRealFn)

}  // namespace nf::cuda::cufft_abi
