// One NVRTC compile check for the code-generator tests: the generated source (prelude included)
// must compile for compute_90 with the options numfuse uses. No GPU is needed; without NVRTC at
// build time the test is skipped.
#pragma once
#include <gtest/gtest.h>

#include <string>

#ifdef NUMFUSE_TEST_NVRTC
#include <nvrtc.h>
#endif

inline void expect_nvrtc_compiles(const std::string& src, const std::string& what = "kernel.cu") {
#ifdef NUMFUSE_TEST_NVRTC
  nvrtcProgram prog;
  ASSERT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "kernel.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* opts[] = {"--gpu-architecture=compute_90", "-std=c++17", "--fmad=false", "-I" NUMFUSE_CUDA_INCLUDE};
  nvrtcResult rc = nvrtcCompileProgram(prog, 4, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  std::string log(n, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  nvrtcDestroyProgram(&prog);
  EXPECT_EQ(rc, NVRTC_SUCCESS) << what << "\n" << log;
#else
  (void)src;
  (void)what;
  GTEST_SKIP() << "NVRTC not available at build time";
#endif
}
