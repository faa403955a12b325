// LinalgNode on the CPU: LAPACK (lapack.h, NumPy's own OpenBLAS) looped over the stack of
// matrices. Each matrix is copied into a column-major workspace (LAPACK's layout, whatever the
// input's strides) and its results copied out to the C-order outputs. Stacks of small matrices
// are spread over the thread pool (one LAPACK call each, where OpenBLAS would use one thread
// anyway); large matrices go one by one through LAPACK, which threads each call itself. A failure
// (singular, not positive definite, no convergence) in any matrix of the stack raises for the
// whole call, as NumPy does, after the loop.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/lapack_calls.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

namespace {

using lapack::I;
using lapack::kIsComplex;
using lapack::real_t;

// Where matrix b of the stack starts in `a`, in elements: its batch index unravelled over a's
// batch dims (broadcast views have stride 0 there).
int64_t batch_offset(const Array& a, int64_t b) {
  int64_t off = 0;
  for (int d = a.ndim() - 3; d >= 0; --d) {
    const int64_t ext = a.shape[d];
    off += (b % ext) * a.strides[d];
    b /= ext;
  }
  return off;
}

// Matrix b of `a` (rows x cols, any strides) into f, column-major with leading dimension rows.
template <class T>
void load(const Array& a, int64_t b, std::vector<T>& f) {
  const int64_t rows = a.shape[a.ndim() - 2], cols = a.shape[a.ndim() - 1];
  const int64_t rs = a.strides[a.ndim() - 2], cs = a.strides[a.ndim() - 1];
  const T* p = a.data_as<T>() + batch_offset(a, b);
  f.resize(static_cast<size_t>(std::max<int64_t>(1, rows * cols)));
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) f[i + j * rows] = p[i * rs + j * cs];
  }
}

// Matrix b of `a` into f in C order: read as column-major, f holds the matrix's transpose. inv,
// solve, det and cholesky factor that transpose (see Stack::run) and so skip a strided copy.
template <class T>
void load_transposed(const Array& a, int64_t b, std::vector<T>& f) {
  const int64_t rows = a.shape[a.ndim() - 2], cols = a.shape[a.ndim() - 1];
  const int64_t rs = a.strides[a.ndim() - 2], cs = a.strides[a.ndim() - 1];
  const T* p = a.data_as<T>() + batch_offset(a, b);
  f.resize(static_cast<size_t>(std::max<int64_t>(1, rows * cols)));
  for (int64_t i = 0; i < rows; ++i) {
    if (cs == 1) {
      std::copy(p + i * rs, p + i * rs + cols, f.begin() + i * cols);
    } else {
      for (int64_t j = 0; j < cols; ++j) f[i * cols + j] = p[i * rs + j * cs];
    }
  }
}

// A column-major rows x cols block (leading dimension ld) into C-order `out`.
template <class T, class U>
void store(const T* f, int64_t ld, int64_t rows, int64_t cols, U* out) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = static_cast<U>(f[i + j * ld]);
  }
}

template <class T>
void identity(std::vector<T>& f, int64_t n) {
  f.assign(static_cast<size_t>(std::max<int64_t>(1, n * n)), T(0));
  for (int64_t i = 0; i < n; ++i) f[i + i * n] = T(1);
}

I ld(int64_t rows) { return std::max<int64_t>(1, rows); }

// One thread's scratch, reused over its matrices.
template <class T>
struct Work {
  using R = real_t<T>;
  std::vector<T> a, b, c, work, tau, wi;
  std::vector<R> w, rwork;
  std::vector<I> iwork, ipiv;
};

template <class T>
struct Stack {
  using R = real_t<T>;
  using C = std::complex<R>;
  const LinalgSpec& spec;
  const std::vector<Array>& in;
  const std::vector<Array>& outs;
  int64_t m, n, k;

  template <class U>
  U* out(int i, int64_t b, int64_t per) const {
    return outs[i].template data_as<U>() + b * per;
  }

  // Returns LAPACK's info for matrix b (> 0: the failure the op reports).
  I run(int64_t b, Work<T>& w) const {
    I info = 0;
    switch (spec.op) {
      case LinalgOp::Inv: {
        // a's C-order storage read as column-major is A^T, and (A^T)^-1 = (A^-1)^T, which read
        // back in C order is A^-1: no transposing copies.
        if (n == 0) return 0;
        load_transposed(in[0], b, w.a);
        identity(w.b, n);
        w.ipiv.resize(n);
        lapack::gesv<T>(n, n, w.a.data(), n, w.ipiv.data(), w.b.data(), n, &info);
        if (info == 0) std::copy(w.b.begin(), w.b.begin() + n * n, out<T>(0, b, n * n));
        return info;
      }
      case LinalgOp::Solve: {
        // LU of A^T (a as stored), then getrs with 'T' solves (A^T)^T x = b.
        if (n == 0) return 0;
        const int64_t nrhs = in[1].shape.back();
        if (nrhs == 0) return 0;
        load_transposed(in[0], b, w.a);
        load(in[1], b, w.b);
        w.ipiv.resize(n);
        lapack::getrf<T>(n, n, w.a.data(), n, w.ipiv.data(), &info);
        if (info != 0) return info;
        lapack::getrs<T>('T', n, nrhs, w.a.data(), n, w.ipiv.data(), w.b.data(), n, &info);
        if (info == 0) store(w.b.data(), n, n, nrhs, out<T>(0, b, n * nrhs));
        return info;
      }
      case LinalgOp::Det:
      case LinalgOp::Slogdet: {
        T sign(1);
        R logdet(0);
        if (n > 0) {
          load_transposed(in[0], b, w.a);  // det(A^T) = det(A)
          w.ipiv.resize(n);
          lapack::getrf<T>(n, n, w.a.data(), n, w.ipiv.data(), &info);
          if (info > 0) {  // exactly singular: det 0, not an error
            sign = T(0);
            logdet = -std::numeric_limits<R>::infinity();
          } else {
            for (int64_t i = 0; i < n; ++i) {
              if (w.ipiv[i] != i + 1) sign = -sign;
              const T d = w.a[i + i * n];
              const R mag = std::abs(d);
              sign *= d / mag;
              logdet += std::log(mag);
            }
          }
        }
        if (spec.op == LinalgOp::Det) {
          *out<T>(0, b, 1) = sign * std::exp(logdet);  // NumPy's det: sign * exp(logdet)
        } else {
          *out<T>(0, b, 1) = sign;
          *out<R>(1, b, 1) = logdet;
        }
        return 0;
      }
      case LinalgOp::Cholesky: {
        // a's storage read as column-major is A^T, whose upper triangle is A's lower one: potrf of
        // that triangle gives U with conj(A) = U^H U, so A = U^T conj(U) and L = U^T, which is U's
        // storage read back in C order (likewise upper= from the other triangle). No transposes.
        if (n == 0) return 0;
        load_transposed(in[0], b, w.a);
        lapack::potrf<T>(spec.upper ? 'L' : 'U', n, w.a.data(), n, &info);
        if (info != 0) return info;
        T* o = out<T>(0, b, n * n);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const bool keep = spec.upper ? j >= i : j <= i;
            o[i * n + j] = keep ? w.a[i * n + j] : T(0);
          }
        }
        return 0;
      }
      case LinalgOp::QrRaw: {
        if (k == 0) return 0;
        load(in[0], b, w.a);
        w.tau.resize(k);
        if (w.work.empty()) {
          T q;
          lapack::geqrf<T>(m, n, w.a.data(), m, w.tau.data(), &q, -1, &info);
          w.work.resize(lapack::query_size(q));
        }
        lapack::geqrf<T>(m, n, w.a.data(), m, w.tau.data(), w.work.data(),
                         static_cast<I>(w.work.size()), &info);
        store(w.a.data(), m, m, n, out<T>(0, b, m * n));
        std::copy(w.tau.begin(), w.tau.end(), out<T>(1, b, k));
        return info;
      }
      case LinalgOp::QrQ: {
        const int64_t mc = spec.cols;
        if (m == 0 || mc == 0) return 0;
        load(in[0], b, w.b);  // the factored m x n
        w.a.assign(static_cast<size_t>(m * mc), T(0));
        const int64_t copy_cols = std::min(n, mc);
        std::copy(w.b.begin(), w.b.begin() + m * copy_cols, w.a.begin());
        const T* tau = in[1].data_as<T>() + batch_offset_vec(in[1], b);
        if (w.work.empty()) {
          T q;
          lapack::orgqr<T>(m, mc, k, w.a.data(), m, tau, &q, -1, &info);
          w.work.resize(lapack::query_size(q));
        }
        lapack::orgqr<T>(m, mc, k, w.a.data(), m, tau, w.work.data(),
                         static_cast<I>(w.work.size()), &info);
        store(w.a.data(), m, m, mc, out<T>(0, b, m * mc));
        return info;
      }
      case LinalgOp::Eigh:
      case LinalgOp::Eigvalsh:
        return eigh(b, w);
      case LinalgOp::Svd:
      case LinalgOp::Svdvals:
        return svd(b, w);
      case LinalgOp::Eig:
      case LinalgOp::Eigvals:
        return eig(b, w);
    }
    return 0;
  }

  // Offset of vector b of a (..., len) stack.
  static int64_t batch_offset_vec(const Array& v, int64_t b) {
    int64_t off = 0;
    for (int d = v.ndim() - 2; d >= 0; --d) {
      off += (b % v.shape[d]) * v.strides[d];
      b /= v.shape[d];
    }
    return off;
  }

  I eigh(int64_t b, Work<T>& w) const {
    if (n == 0) return 0;
    const bool vectors = spec.op == LinalgOp::Eigh;
    const char jobz = vectors ? 'V' : 'N', uplo = spec.upper ? 'U' : 'L';
    load(in[0], b, w.a);
    w.w.resize(n);
    I info = 0;
    if (w.work.empty()) {
      T q;
      R rq = 0;
      I iq = 0;
      lapack::syevd<T>(jobz, uplo, n, w.a.data(), n, w.w.data(), &q, -1, &rq, -1, &iq, -1, &info);
      w.work.resize(lapack::query_size(q));
      w.rwork.resize(static_cast<size_t>(rq) + 1);
      w.iwork.resize(iq + 1);
    }
    lapack::syevd<T>(jobz, uplo, n, w.a.data(), n, w.w.data(), w.work.data(),
                     static_cast<I>(w.work.size()), w.rwork.data(),
                     static_cast<I>(w.rwork.size()), w.iwork.data(),
                     static_cast<I>(w.iwork.size()), &info);
    if (info != 0) return info;
    std::copy(w.w.begin(), w.w.end(), out<R>(0, b, n));
    if (vectors) store(w.a.data(), n, n, n, out<T>(1, b, n * n));
    return 0;
  }

  I svd(int64_t b, Work<T>& w) const {
    const bool vectors = spec.op == LinalgOp::Svd;
    const bool full = vectors && spec.full_matrices;
    const int64_t ucols = full ? m : k, vrows = full ? n : k;
    if (k == 0) {  // nothing to decompose: u and vh are identities (full) or empty
      if (full) {
        identity(w.b, m);
        store(w.b.data(), m, m, m, out<T>(1, b, m * m));
        identity(w.b, n);
        store(w.b.data(), n, n, n, out<T>(2, b, n * n));
      }
      return 0;
    }
    const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
    load(in[0], b, w.a);
    w.w.resize(k);
    w.b.resize(vectors ? m * ucols : 1);
    w.c.resize(vectors ? vrows * n : 1);
    I info = 0;
    const I ldu = vectors ? m : 1, ldvt = vectors ? vrows : 1;
    if (w.work.empty()) {
      w.iwork.resize(8 * k);
      if constexpr (kIsComplex<T>) {
        const int64_t mx = std::max(m, n);
        w.rwork.resize(vectors ? std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k) : 7 * k);
      }
      T q;
      lapack::gesdd<T>(jobz, m, n, w.a.data(), m, w.w.data(), w.b.data(), ldu, w.c.data(), ldvt,
                       &q, -1, w.rwork.data(), w.iwork.data(), &info);
      w.work.resize(lapack::query_size(q));
    }
    lapack::gesdd<T>(jobz, m, n, w.a.data(), m, w.w.data(), w.b.data(), ldu, w.c.data(), ldvt,
                     w.work.data(), static_cast<I>(w.work.size()), w.rwork.data(),
                     w.iwork.data(), &info);
    if (info != 0) return info;
    std::copy(w.w.begin(), w.w.end(), out<R>(0, b, k));
    if (vectors) {
      store(w.b.data(), m, m, ucols, out<T>(1, b, m * ucols));
      store(w.c.data(), vrows, vrows, n, out<T>(2, b, vrows * n));
    }
    return 0;
  }

  I eig(int64_t b, Work<T>& w) const {
    if (n == 0) return 0;
    const bool vectors = spec.op == LinalgOp::Eig;
    load(in[0], b, w.a);
    w.tau.resize(n);  // eigenvalues (real parts for real T)
    w.wi.resize(n);
    w.b.resize(vectors ? n * n : 1);
    if constexpr (kIsComplex<T>) w.rwork.resize(2 * n);
    I info = 0;
    const char jobvr = vectors ? 'V' : 'N';
    if (w.work.empty()) {
      T q;
      lapack::geev<T>(jobvr, n, w.a.data(), n, w.tau.data(), w.wi.data(), w.b.data(), ld(n), &q,
                      -1, w.rwork.data(), &info);
      w.work.resize(lapack::query_size(q));
    }
    lapack::geev<T>(jobvr, n, w.a.data(), n, w.tau.data(), w.wi.data(), w.b.data(), ld(n),
                    w.work.data(), static_cast<I>(w.work.size()), w.rwork.data(), &info);
    if (info != 0) return info;
    C* wout = out<C>(0, b, n);
    C* vout = vectors ? out<C>(1, b, n * n) : nullptr;
    if constexpr (kIsComplex<T>) {
      std::copy(w.tau.begin(), w.tau.end(), wout);
      if (vectors) store(w.b.data(), n, n, n, vout);
    } else {
      // Real geev: a complex pair j, j+1 has eigenvectors vr[:,j] +- i vr[:,j+1].
      for (int64_t j = 0; j < n; ++j) {
        wout[j] = C(w.tau[j], w.wi[j]);
        if (!vectors) continue;
        const bool pair = w.wi[j] != R(0) && j + 1 < n;
        for (int64_t i = 0; i < n; ++i) {
          const R re = w.b[i + j * n];
          const R im = pair ? w.b[i + (j + 1) * n] : R(0);
          vout[i * n + j] = C(re, im);
          if (pair) vout[i * n + j + 1] = C(re, -im);
        }
        if (pair) {
          wout[j + 1] = C(w.tau[j + 1], w.wi[j + 1]);
          ++j;
        }
      }
    }
    return 0;
  }
};

const char* failure_message(LinalgOp op) {
  switch (op) {
    case LinalgOp::Cholesky: return "Matrix is not positive definite";
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh:
    case LinalgOp::Eig:
    case LinalgOp::Eigvals: return "Eigenvalues did not converge";
    case LinalgOp::Svd:
    case LinalgOp::Svdvals: return "SVD did not converge";
    default: return "Singular matrix";
  }
}

// Matrix b's slice of every output, NaN (outputs of a failed matrix, when not raising).
template <class T>
void fill_nan(const std::vector<Array>& outs, int64_t b, int64_t batch) {
  using R = real_t<T>;
  for (const Array& o : outs) {
    const int64_t per = o.size() / batch * (is_complex(o.dtype) ? 2 : 1);
    R* p = o.data_as<R>() + b * per;
    std::fill(p, p + per, std::numeric_limits<R>::quiet_NaN());
  }
}

template <class T>
void run_stack(LinalgNode& node, const std::vector<Array>& outs) {
  const Array& a = node.inputs[0];
  const int64_t m = a.shape[a.ndim() - 2], n = a.shape[a.ndim() - 1];
  std::vector<Array> in(node.inputs.begin(), node.inputs.end());
  Stack<T> st{node.spec, in, outs, m, n, std::min(m, n)};
  int64_t batch = 1;
  for (int d = 0; d < a.ndim() - 2; ++d) batch *= a.shape[d];
  if (batch == 0) return;
  std::vector<I> infos(static_cast<size_t>(batch), 0);
  auto range = [&](int64_t lo, int64_t hi) {
    Work<T> w;
    for (int64_t b = lo; b < hi; ++b) infos[b] = st.run(b, w);
  };
  // Small matrices: one LAPACK call is a few microseconds on one thread, so the stack is the
  // parallel dimension; large ones: LAPACK threads each call.
  const int64_t big = std::max(m, n);
  if (batch > 1 && big <= 128) {
    const int64_t grain = std::max<int64_t>(1, 4096 / (big * big * big + 1));
    parallel_for(batch, grain, range);
  } else {
    range(0, batch);
  }
  for (int64_t b = 0; b < batch; ++b) {
    const I info = infos[b];
    if (info > 0 && !node.spec.raise_on_failure) {
      fill_nan<T>(outs, b, batch);
      continue;
    }
    if (info < 0) {
      throw Error(std::string("numfuse.linalg.") + linalg_op_name(node.spec.op) +
                  ": LAPACK rejected argument " + std::to_string(-info));
    }
    if (info > 0) throw LinAlgError(failure_message(node.spec.op));
  }
}

}  // namespace

void eval_linalg(LinalgNode& node, const std::vector<Array>& outs) {
  const DType dt = node.inputs[0].dtype;
  if (node.spec.widen && (dt == DType::Float32 || dt == DType::Complex64)) {
    eval_widened(node, outs, [](const Array& a, const Array& b) { copy_cast(a, b); }, eval_linalg);
    return;
  }
  switch (node.inputs[0].dtype) {
    case DType::Float32: run_stack<float>(node, outs); break;
    case DType::Float64: run_stack<double>(node, outs); break;
    case DType::Complex64: run_stack<std::complex<float>>(node, outs); break;
    case DType::Complex128: run_stack<std::complex<double>>(node, outs); break;
    default: throw_unsupported_dtype("linalg", node.inputs[0].dtype);
  }
}

}  // namespace nf::cpu
