// cusolver.h declares cuSOLVER's calls without its headers (the library is opened with dlopen):
// where the toolkit's headers are present at build time, check the enum values and that every
// routine of the table takes as many arguments, in the same positions of the same kinds
// (pointer / integer), as the header's own declaration. Also the LAPACK table on the CPU.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <type_traits>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/lapack.h"
#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/core/error.h"

#ifdef NUMFUSE_TEST_NVRTC
#include <cusolverDn.h>
#endif

namespace {

#ifdef NUMFUSE_TEST_NVRTC
// Whether argument i of F and G are alike: both pointers (any pointee), or both non-pointers of
// the same size (ints and C enums are ints).
template <class A, class B>
constexpr bool alike() {
  if constexpr (std::is_pointer_v<A> || std::is_pointer_v<B>) {
    return std::is_pointer_v<A> && std::is_pointer_v<B>;
  } else {
    return sizeof(A) == sizeof(B) && std::is_integral_v<A> == (std::is_integral_v<B> ||
                                                               std::is_enum_v<B>);
  }
}
template <class F, class G>
struct SameShape : std::false_type {};
template <class R1, class R2, class... A, class... B>
struct SameShape<R1 (*)(A...), R2 (*)(B...)> {
  static constexpr bool value = sizeof...(A) == sizeof...(B) && (alike<A, B>() && ...);
};
#define NF_CHECK_CALL(member, fn)                                                        \
  static_assert(SameShape<decltype(nf::cuda::SolverTable::member), decltype(&fn)>::value, \
                #fn " differs from SolverTable::" #member)
NF_CHECK_CALL(getrf_bufferSize, cusolverDnDgetrf_bufferSize);
NF_CHECK_CALL(getrf, cusolverDnDgetrf);
NF_CHECK_CALL(getrs, cusolverDnZgetrs);
NF_CHECK_CALL(potrf_bufferSize, cusolverDnCpotrf_bufferSize);
NF_CHECK_CALL(potrf, cusolverDnSpotrf);
NF_CHECK_CALL(geqrf_bufferSize, cusolverDnDgeqrf_bufferSize);
NF_CHECK_CALL(geqrf, cusolverDnZgeqrf);
NF_CHECK_CALL(orgqr_bufferSize, cusolverDnZungqr_bufferSize);
NF_CHECK_CALL(orgqr, cusolverDnDorgqr);
NF_CHECK_CALL(syevd_bufferSize, cusolverDnZheevd_bufferSize);
NF_CHECK_CALL(syevd, cusolverDnDsyevd);
NF_CHECK_CALL(potrfBatched, cusolverDnZpotrfBatched);
NF_CHECK_CALL(syevjBatched_bufferSize, cusolverDnZheevjBatched_bufferSize);
NF_CHECK_CALL(syevjBatched, cusolverDnDsyevjBatched);
static_assert(SameShape<int (*)(nf::cuda::syevjInfo_t*), decltype(&cusolverDnCreateSyevjInfo)>::value);
NF_CHECK_CALL(gesvdjBatched_bufferSize, cusolverDnDgesvdjBatched_bufferSize);
NF_CHECK_CALL(gesvdjBatched, cusolverDnZgesvdjBatched);
static_assert(SameShape<int (*)(nf::cuda::gesvdjInfo_t*), decltype(&cusolverDnCreateGesvdjInfo)>::value);
static_assert(SameShape<int (*)(nf::cuda::gesvdjInfo_t, int), decltype(&cusolverDnXgesvdjSetSortEig)>::value);
NF_CHECK_CALL(gesvd_bufferSize, cusolverDnCgesvd_bufferSize);
NF_CHECK_CALL(gesvd, cusolverDnZgesvd);
static_assert(SameShape<int (*)(cublasHandle_t, int, void* const*, int, int*, int*, int),
                        decltype(&cublasDgetrfBatched)>::value);
static_assert(SameShape<int (*)(cublasHandle_t, int, int, int, void* const*, int, const int*,
                                void* const*, int, int*, int),
                        decltype(&cublasZgetrsBatched)>::value);
static_assert(SameShape<decltype(nf::cuda::XgeevApi::bufferSize),
                        decltype(&cusolverDnXgeev_bufferSize)>::value);
static_assert(SameShape<decltype(nf::cuda::XgeevApi::geev), decltype(&cusolverDnXgeev)>::value);
static_assert(SameShape<decltype(nf::cuda::XgesvdpApi::bufferSize),
                        decltype(&cusolverDnXgesvdp_bufferSize)>::value);
static_assert(SameShape<decltype(nf::cuda::XgesvdpApi::gesvdp),
                        decltype(&cusolverDnXgesvdp)>::value);
static_assert(nf::cuda::kCudaR32F == CUDA_R_32F && nf::cuda::kCudaR64F == CUDA_R_64F &&
              nf::cuda::kCudaC32F == CUDA_C_32F && nf::cuda::kCudaC64F == CUDA_C_64F);
static_assert(nf::cuda::kCublasFillLower == CUBLAS_FILL_MODE_LOWER);
static_assert(nf::cuda::kCublasFillUpper == CUBLAS_FILL_MODE_UPPER);
static_assert(nf::cuda::kCublasOpN == CUBLAS_OP_N && nf::cuda::kCublasOpT == CUBLAS_OP_T);
static_assert(nf::cuda::kEigModeVector == CUSOLVER_EIG_MODE_VECTOR);
static_assert(nf::cuda::kEigModeNoVector == CUSOLVER_EIG_MODE_NOVECTOR);
#endif

TEST(CusolverAbi, HeadersChecked) {
#ifndef NUMFUSE_TEST_NVRTC
  GTEST_SKIP() << "CUDA headers not available at build time";
#endif
}

// Runs where the BLAS in use carries an ILP64 LAPACK (NUMFUSE_BLAS_LIBRARY naming NumPy's
// OpenBLAS); elsewhere the table must refuse with a message naming the library.
TEST(LapackTable, EveryRoutineOfEveryDtype) {
  using nf::DType;
  try {
    nf::cpu::lapack_table(DType::Float64);
  } catch (const nf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("numfuse.linalg"), std::string::npos) << e.what();
    GTEST_SKIP() << e.what();
  }
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const nf::cpu::LapackTable& t = nf::cpu::lapack_table(dt);
    for (void* f : {t.getrf, t.getri, t.getrs, t.gesv, t.potrf, t.geqrf, t.orgqr, t.syevd,
                    t.gesdd, t.geev, t.gelsd}) {
      EXPECT_NE(f, nullptr) << nf::dtype_name(dt);
    }
  }
  EXPECT_THROW(nf::cpu::lapack_table(DType::Float16), nf::TypeError);
}

}  // namespace
