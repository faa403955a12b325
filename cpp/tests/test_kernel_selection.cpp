// Kernel templates with several entry points compile one entry at a time (launch.h's
// kernel_selection): under NVRTC each selected source must compile and emit exactly the asked
// entry, and the unselected source (every entry, as the code-generator tests compile it) all of
// them. No GPU is needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "numfuse/backend/cuda/codegen_scan.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/launch.h"

#ifdef NUMFUSE_TEST_NVRTC
#include <nvrtc.h>
#endif

namespace nf::cuda {
extern const char* const kKernelPrelude;
}

namespace {

#ifdef NUMFUSE_TEST_NVRTC
// The PTX of `src` for compute_90 with numfuse's options; fails the test when it does not compile.
std::string ptx_of(const std::string& src) {
  nvrtcProgram prog;
  EXPECT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "kernel.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* opts[] = {"--gpu-architecture=compute_90", "-std=c++17", "--fmad=false", "-I" NUMFUSE_CUDA_INCLUDE};
  nvrtcResult rc = nvrtcCompileProgram(prog, 4, opts);
  std::string out;
  if (rc == NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetPTXSize(prog, &n);
    out.resize(n);
    nvrtcGetPTX(prog, &out[0]);
  } else {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    ADD_FAILURE() << log;
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

bool has_entry(const std::string& ptx, const std::string& name) {
  return ptx.find(".entry " + name + "(") != std::string::npos;
}
#endif

struct Template {
  std::string body;
  std::vector<std::string> entries;
};

std::vector<Template> templates() {
  // A checked float64 cumsum: the scan template's four entries and the generated check kernel.
  nf::cuda::ScanPlan plan = nf::cuda::plan_scan(nf::Array::empty({4, 6}, nf::DType::Float64, nf::Device::cpu()), 1);
  const std::string scan = nf::cuda::generate_scan(nf::ScanOp::CumSum, nf::DType::Float64, plan).body;
  return {
      {"typedef float nf_t;\n" + std::string(nf::cuda::kernel_templates::sort),
       {"nf_sort_tiles", "nf_sort_merge", "nf_sort_store", "nf_searchsorted", "nf_sort_make_keys",
        "nf_sort_offsets", "nf_sort_store_keys", "nf_sort_store_indexed", "nf_sort_nan_front",
        "nf_sort_rotate_out", "nf_sort_rotate_back", "nf_unique_store", "nf_unique_nan_fix",
        "nf_unique_store_rotated", "nf_unique_counts"}},
      {"#define NF_SORT_NO_KEYS\n#define NF_SORT_COMPLEX_KEYS\ntypedef nf::complex64 nf_t;\n" +
           std::string(nf::cuda::kernel_templates::sort),
       {"nf_sort_tiles", "nf_sort_offsets", "nf_sort_store_indexed", "nf_sort_make_complex_keys"}},
      {scan, {"nf_scan_lines", "nf_scan_totals", "nf_scan_tiles", "nf_scan_carries"}},
  };
}

}  // namespace

TEST(KernelSelection, DefinesTheEntryForIdentifiersOnly) {
  EXPECT_EQ(nf::cuda::kernel_selection("nf_sort_tiles"), "#define NF_ONE_KERNEL\n#define NF_KERNEL_nf_sort_tiles\n");
  EXPECT_EQ(nf::cuda::kernel_selection("f<int>"), "");  // a name expression, not an entry name
  EXPECT_EQ(nf::cuda::kernel_selection(""), "");
}

TEST(KernelSelection, TemplatesGuardEveryEntry) {
  // Each entry of the multi-entry templates sits in its own selection guard.
  const std::vector<std::pair<const char*, std::vector<std::string>>> guarded = {
      {nf::cuda::kernel_templates::sort,
       {"nf_sort_tiles", "nf_sort_merge", "nf_sort_store", "nf_searchsorted", "nf_sort_make_keys",
        "nf_sort_offsets", "nf_sort_store_keys", "nf_sort_store_indexed", "nf_sort_nan_front",
        "nf_sort_rotate_out", "nf_sort_rotate_back", "nf_unique_store", "nf_unique_nan_fix",
        "nf_unique_store_rotated", "nf_unique_counts", "nf_sort_make_complex_keys"}},
      {nf::cuda::kernel_templates::scan, {"nf_scan_lines", "nf_scan_totals", "nf_scan_tiles", "nf_scan_carries"}},
      {nf::cuda::kernel_templates::scatter, {"nf_scatter_claim", "nf_scatter_write"}},
      {nf::cuda::kernel_templates::reduce, {"nf_reduce_main", "nf_reduce_partials"}},
  };
  for (const auto& [text, entries] : guarded) {
    const std::string s(text);
    for (const auto& e : entries) {
      EXPECT_NE(s.find("#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_" + e + ")"), std::string::npos) << e;
    }
  }
}

#ifdef NUMFUSE_TEST_NVRTC
TEST(KernelSelection, SortAndScanCompileOnlyTheSelectedEntry) {
  for (const Template& t : templates()) {
    const std::string all = ptx_of(std::string(nf::cuda::kKernelPrelude) + t.body);
    for (const auto& e : t.entries) EXPECT_TRUE(has_entry(all, e)) << e;
    for (const auto& e : t.entries) {
      const std::string one = ptx_of(nf::cuda::kernel_selection(e) + nf::cuda::kKernelPrelude + t.body);
      for (const auto& other : t.entries) EXPECT_EQ(has_entry(one, other), other == e) << e << " / " << other;
    }
  }
}
#endif
