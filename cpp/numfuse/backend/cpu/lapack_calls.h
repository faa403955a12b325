// Typed calls of the LAPACK routines of lapack.h: one template per routine, the dtype picking the
// table and, for the complex dtypes, the signature with rwork. Internal to backend/cpu.
#pragma once
#include <complex>
#include <cstddef>
#include <type_traits>

#include "numfuse/backend/cpu/lapack.h"

namespace nf::cpu::lapack {

using I = lapack_int;

template <class T> struct RealOf { using type = T; };
template <class R> struct RealOf<std::complex<R>> { using type = R; };
template <class T> using real_t = typename RealOf<T>::type;
template <class T> constexpr bool kIsComplex = !std::is_same_v<T, real_t<T>>;

template <class T> constexpr DType kDType = DType::Float32;
template <> inline constexpr DType kDType<double> = DType::Float64;
template <> inline constexpr DType kDType<std::complex<float>> = DType::Complex64;
template <> inline constexpr DType kDType<std::complex<double>> = DType::Complex128;

template <class T> const LapackTable& table() { return lapack_table(kDType<T>); }

// Fortran passes a CHARACTER argument's length after all others (gfortran's ABI); the
// f2c-translated OpenBLAS ignores it.
constexpr size_t kCh = 1;

template <class T>
void getrf(I m, I n, T* a, I lda, I* ipiv, I* info) {
  using F = void (*)(I*, I*, T*, I*, I*, I*);
  reinterpret_cast<F>(table<T>().getrf)(&m, &n, a, &lda, ipiv, info);
}

template <class T>
void gesv(I n, I nrhs, T* a, I lda, I* ipiv, T* b, I ldb, I* info) {
  using F = void (*)(I*, I*, T*, I*, I*, T*, I*, I*);
  reinterpret_cast<F>(table<T>().gesv)(&n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}

template <class T>
void getrs(char trans, I n, I nrhs, const T* a, I lda, const I* ipiv, T* b, I ldb, I* info) {
  using F = void (*)(char*, I*, I*, const T*, I*, const I*, T*, I*, I*, size_t);
  reinterpret_cast<F>(table<T>().getrs)(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, kCh);
}

template <class T>
void potrf(char uplo, I n, T* a, I lda, I* info) {
  using F = void (*)(char*, I*, T*, I*, I*, size_t);
  reinterpret_cast<F>(table<T>().potrf)(&uplo, &n, a, &lda, info, kCh);
}

template <class T>
void geqrf(I m, I n, T* a, I lda, T* tau, T* work, I lwork, I* info) {
  using F = void (*)(I*, I*, T*, I*, T*, T*, I*, I*);
  reinterpret_cast<F>(table<T>().geqrf)(&m, &n, a, &lda, tau, work, &lwork, info);
}

// orgqr, or ungqr for complex T.
template <class T>
void orgqr(I m, I n, I k, T* a, I lda, const T* tau, T* work, I lwork, I* info) {
  using F = void (*)(I*, I*, I*, T*, I*, const T*, T*, I*, I*);
  reinterpret_cast<F>(table<T>().orgqr)(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

// syevd, or heevd for complex T (rwork and lrwork are ignored for real T).
template <class T>
void syevd(char jobz, char uplo, I n, T* a, I lda, real_t<T>* w, T* work, I lwork,
           real_t<T>* rwork, I lrwork, I* iwork, I liwork, I* info) {
  using R = real_t<T>;
  if constexpr (kIsComplex<T>) {
    using F = void (*)(char*, char*, I*, T*, I*, R*, T*, I*, R*, I*, I*, I*, I*, size_t, size_t);
    reinterpret_cast<F>(table<T>().syevd)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork,
                                          &lrwork, iwork, &liwork, info, kCh, kCh);
  } else {
    using F = void (*)(char*, char*, I*, T*, I*, R*, T*, I*, I*, I*, I*, size_t, size_t);
    reinterpret_cast<F>(table<T>().syevd)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork,
                                          &liwork, info, kCh, kCh);
  }
}

// gesdd (rwork ignored for real T).
template <class T>
void gesdd(char jobz, I m, I n, T* a, I lda, real_t<T>* s, T* u, I ldu, T* vt, I ldvt, T* work,
           I lwork, real_t<T>* rwork, I* iwork, I* info) {
  using R = real_t<T>;
  if constexpr (kIsComplex<T>) {
    using F = void (*)(char*, I*, I*, T*, I*, R*, T*, I*, T*, I*, T*, I*, R*, I*, I*, size_t);
    reinterpret_cast<F>(table<T>().gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work,
                                          &lwork, rwork, iwork, info, kCh);
  } else {
    using F = void (*)(char*, I*, I*, T*, I*, R*, T*, I*, T*, I*, T*, I*, I*, I*, size_t);
    reinterpret_cast<F>(table<T>().gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work,
                                          &lwork, iwork, info, kCh);
  }
}

// geev with no left eigenvectors. Real T: eigenvalues in wr + i wi; complex T: in w (wi unused)
// and rwork (2n) is needed.
template <class T>
void geev(char jobvr, I n, T* a, I lda, T* wr, T* wi, T* vr, I ldvr, T* work, I lwork,
          real_t<T>* rwork, I* info) {
  using R = real_t<T>;
  char jobvl = 'N';
  I ldvl = 1;
  T vl[1];
  if constexpr (kIsComplex<T>) {
    using F = void (*)(char*, char*, I*, T*, I*, T*, T*, I*, T*, I*, T*, I*, R*, I*, size_t,
                       size_t);
    reinterpret_cast<F>(table<T>().geev)(&jobvl, &jobvr, &n, a, &lda, wr, vl, &ldvl, vr, &ldvr,
                                         work, &lwork, rwork, info, kCh, kCh);
  } else {
    using F = void (*)(char*, char*, I*, T*, I*, T*, T*, T*, I*, T*, I*, T*, I*, I*, size_t,
                       size_t);
    reinterpret_cast<F>(table<T>().geev)(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr,
                                         &ldvr, work, &lwork, info, kCh, kCh);
  }
}

// The size a workspace query (lwork = -1) wrote into work[0].
template <class T>
I query_size(const T& w) {
  return static_cast<I>(std::real(w)) + 1;
}

}  // namespace nf::cpu::lapack
