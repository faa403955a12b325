// The one loader of the CUDA libraries (backend/cuda/library_loader.h): every row of its search
// table that is installed on this machine opens and resolves one of its calls (no GPU needed to
// dlopen them), and a missing library or symbol gives a reason naming what was tried.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/library_loader.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/backend/cuda/nvrtc.h"

namespace {

using namespace nf::cuda;

// A call each library exports in every version numfuse accepts.
const char* probe_symbol(CudaLibrary lib) {
  switch (lib) {
    case CudaLibrary::Driver:
      return "cuInit";
    case CudaLibrary::Nvrtc:
      return "nvrtcVersion";
    case CudaLibrary::Cublas:
      return "cublasCreate_v2";
    case CudaLibrary::Cusolver:
      return "cusolverDnCreate";
    case CudaLibrary::Cufft:
      return "cufftPlan1d";
    case CudaLibrary::Curand:
      return "curandCreateGenerator";
    case CudaLibrary::Nccl:
      return "ncclGetUniqueId";
  }
  return "";
}

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

// Whether one of the row's files lies in a directory the loader searches (the toolkit here).
bool installed(CudaLibrary lib) {
  std::vector<std::string> dirs = library_dirs();
  dirs.push_back("/usr/local/cuda/lib64");
  for (const char* f : library_spec(lib).files)
    for (const auto& d : dirs)
      if (exists(d + "/" + f)) return true;
  return false;
}

TEST(LibraryLoader, EveryInstalledLibraryOpensAndResolvesACall) {
  int opened = 0;
  for (CudaLibrary lib : all_libraries()) {
    const LibrarySpec& spec = library_spec(lib);
    const LoadedLibrary& l = load_library(lib);
    EXPECT_EQ(&l, &load_library(lib)) << spec.name << ": opened once per process";
    if (!l.ok()) {
      // Not installed is fine (the driver needs a GPU machine); installed but unopened is not.
      EXPECT_FALSE(lib != CudaLibrary::Driver && installed(lib)) << l.reason();
      EXPECT_NE(l.reason().find(spec.name), std::string::npos) << l.reason();
      EXPECT_NE(l.reason().find(spec.files[0]), std::string::npos) << l.reason();
      EXPECT_EQ(l.symbol(probe_symbol(lib)), nullptr);
      continue;
    }
    ++opened;
    EXPECT_TRUE(l.reason().empty());
    EXPECT_FALSE(l.path().empty());
    void (*fn)() = nullptr;
    std::string why;
    EXPECT_TRUE(l.bind(fn, probe_symbol(lib), &why)) << spec.name << ": " << why;
    EXPECT_NE(fn, nullptr);
    // A call the library lacks: the table is unusable, and the reason says which and where.
    EXPECT_FALSE(l.bind(fn, "nf_no_such_call", &why));
    EXPECT_EQ(fn, nullptr);
    EXPECT_NE(why.find(spec.name), std::string::npos) << why;
    EXPECT_NE(why.find(l.path()), std::string::npos) << why;
    EXPECT_NE(why.find("nf_no_such_call"), std::string::npos) << why;
  }
  // The toolkit of this machine: NVRTC, cuBLAS, cuSOLVER, cuFFT, cuRAND and NCCL all open.
  for (CudaLibrary lib : {CudaLibrary::Nvrtc, CudaLibrary::Cublas, CudaLibrary::Cusolver,
                          CudaLibrary::Cufft, CudaLibrary::Curand, CudaLibrary::Nccl}) {
    if (installed(lib)) EXPECT_TRUE(load_library(lib).ok()) << load_library(lib).reason();
  }
  if (!exists("/usr/local/cuda/lib64"))
    GTEST_SKIP() << "no CUDA toolkit here (" << opened << " opened)";
}

TEST(LibraryLoader, AMissingFileNamesWhatWasTried) {
  std::string path, err;
  EXPECT_EQ(open_library({"libnumfuse-missing.so.7"}, {"/nonexistent"}, false, &path, &err),
            nullptr);
  EXPECT_NE(err.find("libnumfuse-missing.so.7"), std::string::npos) << err;
  EXPECT_TRUE(path.empty());
}

// The call tables bound through the loader: where the library opens, every call NVRTC's table
// and cuBLAS's (its dtype table's products included) name is found, no GPU needed.
TEST(LibraryLoader, CallTablesBindFromTheOpenedLibraries) {
  if (load_library(CudaLibrary::Nvrtc).ok()) {
    EXPECT_TRUE(nvrtc_available()) << nvrtc_unavailable_reason();
    EXPECT_EQ(nvrtc().path, load_library(CudaLibrary::Nvrtc).path());
  }
  if (load_library(CudaLibrary::Cublas).ok()) {
    EXPECT_TRUE(cublas_available()) << cublas_description();
    EXPECT_NE(cublas_description().find(load_library(CudaLibrary::Cublas).path()),
              std::string::npos)
        << cublas_description();
  }
}

}  // namespace
