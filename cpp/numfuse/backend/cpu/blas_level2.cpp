// gemv and dot through the BLAS blas.cpp found (see blas.h). Matrix-vector and vector-vector
// products are memory-bound: ?gemm with one column reads the matrix the same number of times but
// pays gemm's packing and set-up, which made `A @ x` 2-5x slower than NumPy (which calls ?gemv).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/blas_routines.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/dtype.h"

namespace nf::cpu {
namespace {

template <class I>
struct Level2Fns {
  using sgemv_t = void (*)(int, int, I, I, float, const float*, I, const float*, I, float, float*,
                           I);
  using dgemv_t = void (*)(int, int, I, I, double, const double*, I, const double*, I, double,
                           double*, I);
  // complex: alpha and beta by pointer, vectors and matrix as void*.
  using cgemv_t = void (*)(int, int, I, I, const void*, const void*, I, const void*, I, const void*,
                           void*, I);
  using sdot_t = float (*)(I, const float*, I, const float*, I);
  using ddot_t = double (*)(I, const double*, I, const double*, I);
  using cdotu_t = void (*)(I, const void*, I, const void*, I, void*);
};

void* gemv_symbol(const BlasRoutines& r, DType dt) {
  switch (dt) {
    case DType::Float32:
      return r.sgemv;
    case DType::Float64:
      return r.dgemv;
    case DType::Complex64:
      return r.cgemv;
    case DType::Complex128:
      return r.zgemv;
    default:
      return nullptr;
  }
}

void* dot_symbol(const BlasRoutines& r, DType dt) {
  switch (dt) {
    case DType::Float32:
      return r.sdot;
    case DType::Float64:
      return r.ddot;
    case DType::Complex64:
      return r.cdotu_sub;
    case DType::Complex128:
      return r.zdotu_sub;
    default:
      return nullptr;
  }
}

size_t blas_itemsize(DType dt) {
  switch (dt) {
    case DType::Float32:
      return 4;
    case DType::Float64:
    case DType::Complex64:
      return 8;
    case DType::Complex128:
      return 16;
    default:
      return 0;
  }
}

template <class I>
void call_gemv(void* fn, DType dt, bool trans, int64_t rows, int64_t cols, const void* A,
               int64_t lda, const void* x, int64_t incx, void* y, int64_t incy) {
  using F = Level2Fns<I>;
  const int op = trans ? kTrans : kNoTrans;
  switch (dt) {
    case DType::Float32:
      reinterpret_cast<typename F::sgemv_t>(fn)(
          kRowMajor, op, I(rows), I(cols), 1.0f, static_cast<const float*>(A), I(lda),
          static_cast<const float*>(x), I(incx), 0.0f, static_cast<float*>(y), I(incy));
      break;
    case DType::Float64:
      reinterpret_cast<typename F::dgemv_t>(fn)(
          kRowMajor, op, I(rows), I(cols), 1.0, static_cast<const double*>(A), I(lda),
          static_cast<const double*>(x), I(incx), 0.0, static_cast<double*>(y), I(incy));
      break;
    case DType::Complex64: {
      const complex64 one(1.0f, 0.0f), zero(0.0f, 0.0f);
      reinterpret_cast<typename F::cgemv_t>(fn)(kRowMajor, op, I(rows), I(cols), &one, A, I(lda), x,
                                                I(incx), &zero, y, I(incy));
      break;
    }
    case DType::Complex128: {
      const complex128 one(1.0, 0.0), zero(0.0, 0.0);
      reinterpret_cast<typename F::cgemv_t>(fn)(kRowMajor, op, I(rows), I(cols), &one, A, I(lda), x,
                                                I(incx), &zero, y, I(incy));
      break;
    }
    default:
      break;
  }
}

void call_gemv_any(bool ilp64, void* fn, DType dt, bool trans, int64_t rows, int64_t cols,
                   const void* A, int64_t lda, const void* x, int64_t incx, void* y, int64_t incy) {
  if (ilp64) {
    call_gemv<int64_t>(fn, dt, trans, rows, cols, A, lda, x, incx, y, incy);
  } else {
    call_gemv<int32_t>(fn, dt, trans, rows, cols, A, lda, x, incx, y, incy);
  }
}

// A product of at least this many matrix bytes is split over numfuse's pool when the library
// runs single-threaded: each core reads its own block of rows (or columns) of the matrix. Below it
// the hand-off to a worker costs more than the part it saves.
constexpr int64_t kSplitBytes = int64_t(1) << 19;

// How many blocks of y to compute side by side: 1 unless the product is large, the library runs
// single-threaded and numfuse's pool has threads to spare.
int64_t gemv_blocks(const BlasRoutines& r, int64_t ny, int64_t nx, size_t es) {
  if (ny < 64 || ny * nx * static_cast<int64_t>(es) < kSplitBytes || !blas_single_threaded(r))
    return 1;
  return std::min<int64_t>(cpu::num_threads(), ny / 32);
}

template <class I>
void call_dot(void* fn, DType dt, int64_t n, const void* x, int64_t incx, const void* y,
              int64_t incy, void* out) {
  using F = Level2Fns<I>;
  switch (dt) {
    case DType::Float32: {
      const float v = reinterpret_cast<typename F::sdot_t>(fn)(
          I(n), static_cast<const float*>(x), I(incx), static_cast<const float*>(y), I(incy));
      std::memcpy(out, &v, sizeof v);
      break;
    }
    case DType::Float64: {
      const double v = reinterpret_cast<typename F::ddot_t>(fn)(
          I(n), static_cast<const double*>(x), I(incx), static_cast<const double*>(y), I(incy));
      std::memcpy(out, &v, sizeof v);
      break;
    }
    case DType::Complex64:
    case DType::Complex128:
      reinterpret_cast<typename F::cdotu_t>(fn)(I(n), x, I(incx), y, I(incy), out);
      break;
    default:
      break;
  }
}

}  // namespace

bool gemv(DType dt, bool trans, int64_t rows, int64_t cols, const void* A, int64_t lda,
          const void* x, int64_t incx, void* y, int64_t incy) {
  const BlasRoutines* r = blas_routines();
  void* fn = r ? gemv_symbol(*r, dt) : nullptr;
  if (!fn || rows < 0 || cols < 0) return false;
  const int64_t nx = trans ? rows : cols, ny = trans ? cols : rows;
  if (ny == 0) return true;
  if (ny <= 1) incy = 1;
  if (incy == 0 || (nx > 1 && incx == 0)) return false;  // BLAS rejects a zero increment
  if (rows <= 1) lda = std::max<int64_t>(1, cols);       // the stride between rows is never used
  if (lda < std::max<int64_t>(1, cols)) return false;
  if (nx <= 1) incx = 1;
  const int64_t ax = incx < 0 ? -incx : incx, ay = incy < 0 ? -incy : incy;
  if (!r->ilp64 && std::max({rows, cols, lda, ax, ay}) > INT32_MAX) return false;
  // beta = 0 is not trusted to overwrite what the fresh output holds (OpenBLAS's scal by zero
  // has propagated NaN in some releases), and with nx == 0 OpenBLAS returns without touching y:
  // clear y first. It is ny elements against the ny * nx that gemv reads.
  const size_t es = blas_itemsize(dt);
  if (ay == 1) {
    std::memset(y, 0, static_cast<size_t>(ny) * es);
  } else {
    for (int64_t i = 0; i < ny; ++i) std::memset(static_cast<char*>(y) + i * ay * es, 0, es);
  }
  if (nx == 0) return true;
  const int64_t blocks = gemv_blocks(*r, ny, nx, es);
  if (blocks <= 1) {
    call_gemv_any(r->ilp64, fn, dt, trans, rows, cols, A, lda, x, incx, y, incy);
    return true;
  }
  // One block of y per thread (parallel_for cuts ny evenly into that many): y[b:e] takes rows
  // b..e of A, or with trans its columns b..e; each reads all of x. Fewer, larger blocks than
  // parallel_for's usual few per thread: with trans, narrower column strips read the matrix in
  // shorter runs and were slower.
  const int64_t grain = (ny + blocks - 1) / blocks;
  const char* a0 = static_cast<const char*>(A);
  char* y0 = static_cast<char*>(y);
  const int64_t esz = static_cast<int64_t>(es);
  cpu::parallel_for(ny, grain, [&](int64_t b, int64_t e) {
    // With a negative increment y's element i lies (ny-1-i) slots above the lowest address.
    char* yb = y0 + (incy > 0 ? b : ny - e) * ay * esz;
    const char* ab = a0 + (trans ? b : b * lda) * esz;
    call_gemv_any(r->ilp64, fn, dt, trans, trans ? rows : e - b, trans ? e - b : cols, ab, lda, x,
                  incx, yb, incy);
  });
  return true;
}

bool dot(DType dt, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  const BlasRoutines* r = blas_routines();
  void* fn = r ? dot_symbol(*r, dt) : nullptr;
  if (!fn || n < 0) return false;
  if (n == 0) {
    std::memset(out, 0, blas_itemsize(dt));
    return true;
  }
  if (n == 1) incx = incy = 1;
  if (incx == 0 || incy == 0) return false;
  const int64_t big = std::max({n, incx < 0 ? -incx : incx, incy < 0 ? -incy : incy});
  if (r->ilp64) {
    call_dot<int64_t>(fn, dt, n, x, incx, y, incy, out);
  } else if (big <= INT32_MAX) {
    call_dot<int32_t>(fn, dt, n, x, incx, y, incy, out);
  } else {
    return false;
  }
  return true;
}

}  // namespace nf::cpu
