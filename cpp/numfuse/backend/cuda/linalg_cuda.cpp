// LinalgNode on a CUDA device: cuSOLVER (cusolver.h) looped over the stack, every call enqueued
// on the device's stream, then one read of the stack's info codes (errors at the call, as
// NumPy's). Layouts: a C-order matrix read in column-major order is its transpose, which several
// operations use to skip copies (inv: inv(A^T) read back is inv(A); solve: getrs with 'T' on
// A^T's factors; det(A^T) = det(A); cholesky: potrf of the other triangle is L read back; svd of
// a wide matrix: gesvd of A^T gives vh and u directly). The others (eigh, qr, tall svd) work on
// column-major copies made on the device and copy their results back transposed.
// eig and eigvals use cusolverDnXgeev (CUDA 12.6 and later) and raise NotImplementedError, naming
// what is missing, with an older cuSOLVER.
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/linalg_layout_cuda.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/backend/cuda/small_linalg_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/linalg_solve.h"

namespace nf {

namespace {

using cuda::SolverTable;
using namespace cuda::linalg_layout;

int as_int(int64_t v) {
  if (v > INT_MAX) {
    throw NotImplementedError("numfuse.linalg on CUDA: a size of " + std::to_string(v) +
                              " does not fit cuSOLVER's 32-bit int");
  }
  return static_cast<int>(v);
}

// NumPy's message for a matrix LAPACK could not handle.
const char* failure_message(LinalgOp op) {
  switch (op) {
    case LinalgOp::Cholesky: return "Matrix is not positive definite";
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh: return "Eigenvalues did not converge";
    case LinalgOp::Svd:
    case LinalgOp::Svdvals: return "SVD did not converge";
    case LinalgOp::Eig:
    case LinalgOp::Eigvals: return "Eigenvalues did not converge";
    default: return "Singular matrix";
  }
}

// The info codes of the stack, read back (waits for the work enqueued so far).
std::vector<int> read_info_codes(const Array& infos, int64_t batch, int device) {
  std::vector<int> h(static_cast<size_t>(batch));
  cuda::copy_device_to_host(h.data(), reinterpret_cast<cuda::CUdeviceptr>(infos.data()),
                            h.size() * sizeof(int), cuda::enqueue_stream(device));
  return h;
}

// LinAlgError for the first failed matrix, or (raise_on_failure false) NaN outputs for each.
void raise_or_nan_outputs(const LinalgNode& node, const std::vector<Array>& outs,
                          const std::vector<int>& codes, int64_t batch) {
  for (int64_t b = 0; b < batch; ++b) {
    if (codes[b] == 0) continue;
    if (codes[b] < 0) {
      throw CUDAError(std::string("cuSOLVER rejected argument ") + std::to_string(-codes[b]) +
                      " of numfuse.linalg." + linalg_op_name(node.spec.op));
    }
    if (node.spec.raise_on_failure) throw LinAlgError(failure_message(node.spec.op));
    for (const Array& o : outs) {
      cuda::copy_on_device(host_value(o.dtype, std::numeric_limits<double>::quiet_NaN()),
                           slice(o, b, batch, node.inputs[0].ndim() - 2));
    }
  }
}

struct Run {
  LinalgNode& node;
  const std::vector<Array>& outs;
  const SolverTable& t;
  int device;
  DType dt;
  int64_t batch, m, n, k;
  Array infos;  // int32, one per matrix
  cuda::BoundSolver solver;

  cuda::cusolverDnHandle_t h() const { return solver.handle; }
  int* info(int64_t b) const { return infos.data_as<int>() + b; }
  static char* at(const Array& x, int64_t b, int64_t per) {
    return x.data() + b * per * static_cast<int64_t>(x.itemsize());
  }
  Array scratch(int64_t count, DType d) const {
    return Array::empty(Shape{std::max<int64_t>(1, count)}, d, node.device);
  }

  std::vector<int> read_infos() const { return read_info_codes(infos, batch, device); }
  void raise_or_nan(const std::vector<int>& codes) const { raise_or_nan_outputs(node, outs, codes, batch); }

  // Stacks of many small matrices go through the batched routines (one launch for the stack);
  // one cuSOLVER call per matrix costs about 10 us of launches and synchronisation each.
  bool small_stack() const { return batch > 1 && n <= kBatchedMaxN; }
  static constexpr int64_t kBatchedMaxN = 32;

  // A device array of the addresses of the matrices of the C-order stack x, `per` elements apart.
  Array pointer_array(const Array& x, int64_t per) const {
    std::vector<uint64_t> p(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) p[b] = reinterpret_cast<uint64_t>(at(x, b, per));
    Array d = Array::empty(Shape{batch}, DType::UInt64, node.device);
    cuda::copy_host_to_device(reinterpret_cast<cuda::CUdeviceptr>(d.data()), p.data(),
                              p.size() * sizeof(uint64_t), cuda::enqueue_stream(device));
    return d;
  }
  static void* const* ptrs(const Array& p) { return reinterpret_cast<void* const*>(p.data()); }

  // getrf of every matrix of w (C-order, n x n each, factored in place as column-major);
  // pivots into ipiv (int32, batch x n). Returns the pointer array of w for a small stack.
  Array getrf_all(const Array& w, const Array& ipiv) {
    if (small_stack()) {
      Array p = pointer_array(w, n * n);
      cuda::getrf_batched(dt, as_int(n), ptrs(p), as_int(n), ipiv.data_as<int>(), info(0),
                          as_int(batch), device);
      return p;
    }
    int lwork = 0;
    cuda::check_solver(t.getrf_bufferSize(h(), as_int(n), as_int(n), w.data(), as_int(n), &lwork),
                       "cusolverDn?getrf_bufferSize");
    Array work = scratch(lwork, dt);
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.getrf(h(), as_int(n), as_int(n), at(w, b, n * n), as_int(n),
                                 work.data(), ipiv.data_as<int>() + b * n, info(b)),
                         "cusolverDn?getrf");
    }
    return Array();
  }

  // X = solve with the factors of getrf_all, B column-major n x nrhs each, in place.
  void getrs_all(int trans, const Array& w, const Array& w_ptrs, const Array& ipiv,
                 const Array& B, int64_t nrhs) {
    if (small_stack()) {
      const Array b_ptrs = pointer_array(B, n * nrhs);
      cuda::getrs_batched(dt, trans == cuda::kCublasOpT, as_int(n), as_int(nrhs), ptrs(w_ptrs),
                          as_int(n), ipiv.data_as<int>(), ptrs(b_ptrs), as_int(n), as_int(batch),
                          device);
      return;
    }
    Array scratch_info = scratch(1, DType::Int32);  // getrs reports only bad arguments
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.getrs(h(), trans, as_int(n), as_int(nrhs), at(w, b, n * n), as_int(n),
                                 ipiv.data_as<int>() + b * n, at(B, b, n * nrhs), as_int(n),
                                 scratch_info.data_as<int>()),
                         "cusolverDn?getrs");
    }
  }

  void inv_or_solve() {
    if (n == 0) return;
    const Array& out = outs[0];
    Array w = contiguous(node.inputs[0]);  // A^T in column-major order
    Array ipiv = scratch(batch * n, DType::Int32);
    const Array w_ptrs = getrf_all(w, ipiv);
    if (node.spec.op == LinalgOp::Inv) {
      set_identity(out);  // (A^T)^-1 = (A^-1)^T, which read in C order is A^-1
      getrs_all(cuda::kCublasOpN, w, w_ptrs, ipiv, out, n);
    } else {
      const int64_t nrhs = node.inputs[1].shape.back();
      if (nrhs == 0) return;
      Array B = colmajor(node.inputs[1]);
      getrs_all(cuda::kCublasOpT, w, w_ptrs, ipiv, B, nrhs);  // (A^T)^T X = B
      cuda::copy_on_device(swap_last(B), out);
    }
    raise_or_nan(read_infos());
  }

  // det and slogdet: LU on the device, the diagonal and pivots read back and reduced on the host.
  void det() {
    std::vector<std::complex<double>> sign(static_cast<size_t>(batch), 1.0);
    std::vector<double> logdet(static_cast<size_t>(batch), 0.0);
    if (n > 0) {
      Array w = contiguous(node.inputs[0]);
      Array ipiv = scratch(batch * n, DType::Int32);
      const Array w_ptrs = getrf_all(w, ipiv);  // alive until the factors are read
      const Array diag_view = w.view(Shape{batch, n}, Strides{n * n, n + 1}, w.byte_offset);
      Array diag = Array::empty(Shape{batch, n}, dt, diag_view.device());
      cuda::copy_on_device(diag_view, diag);
      const bool cplx = is_complex(dt);
      const bool single = dt == DType::Float32 || dt == DType::Complex64;
      std::vector<unsigned char> d(static_cast<size_t>(diag.nbytes()));
      std::vector<int> piv(static_cast<size_t>(batch * n));
      cuda::Stream s = cuda::enqueue_stream(device);
      cuda::copy_device_to_host(d.data(), reinterpret_cast<cuda::CUdeviceptr>(diag.data()),
                                d.size(), s);
      cuda::copy_device_to_host(piv.data(), reinterpret_cast<cuda::CUdeviceptr>(ipiv.data()),
                                piv.size() * sizeof(int), s);
      const std::vector<int> codes = read_infos();
      auto element = [&](int64_t i) -> std::complex<double> {
        if (single) {
          const float* f = reinterpret_cast<const float*>(d.data());
          return cplx ? std::complex<double>(f[2 * i], f[2 * i + 1]) : std::complex<double>(f[i]);
        }
        const double* f = reinterpret_cast<const double*>(d.data());
        return cplx ? std::complex<double>(f[2 * i], f[2 * i + 1]) : std::complex<double>(f[i]);
      };
      for (int64_t b = 0; b < batch; ++b) {
        if (codes[b] > 0) {  // exactly singular: det 0, not an error
          sign[b] = 0.0;
          logdet[b] = -std::numeric_limits<double>::infinity();
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (piv[b * n + i] != i + 1) sign[b] = -sign[b];
          const std::complex<double> x = element(b * n + i);
          const double mag = std::abs(x);
          sign[b] *= x / mag;
          logdet[b] += std::log(mag);
        }
      }
    }
    if (node.spec.op == LinalgOp::Det) {
      for (int64_t b = 0; b < batch; ++b) sign[b] *= std::exp(logdet[b]);
    }
    write_host(outs[0], sign);
    if (node.spec.op == LinalgOp::Slogdet) {
      std::vector<std::complex<double>> l(logdet.begin(), logdet.end());
      write_host(outs[1], l);
    }
  }

  // One value per matrix into the C-order output `out` of any LAPACK dtype.
  void write_host(const Array& out, const std::vector<std::complex<double>>& v) const {
    std::vector<unsigned char> bytes(static_cast<size_t>(out.nbytes()));
    for (size_t i = 0; i < v.size(); ++i) {
      switch (out.dtype) {
        case DType::Float32: reinterpret_cast<float*>(bytes.data())[i] = float(v[i].real()); break;
        case DType::Float64: reinterpret_cast<double*>(bytes.data())[i] = v[i].real(); break;
        case DType::Complex64:
          reinterpret_cast<std::complex<float>*>(bytes.data())[i] = std::complex<float>(v[i]);
          break;
        default: reinterpret_cast<std::complex<double>*>(bytes.data())[i] = v[i]; break;
      }
    }
    if (bytes.empty()) return;
    cuda::copy_host_to_device(reinterpret_cast<cuda::CUdeviceptr>(out.data()), bytes.data(),
                              bytes.size(), cuda::enqueue_stream(device));
  }

  // L read in C order is U of the other triangle read in column-major order; the triangle left
  // over keeps a's values (python/numfuse/_linalg_decomp.py zeroes it).
  void cholesky() {
    if (n == 0) return;
    const Array& out = outs[0];
    cuda::copy_on_device(node.inputs[0], out);
    const int uplo = node.spec.upper ? cuda::kCublasFillLower : cuda::kCublasFillUpper;
    if (small_stack() && t.potrfBatched) {
      const Array p = pointer_array(out, n * n);
      cuda::check_solver(t.potrfBatched(h(), uplo, as_int(n), ptrs(p), as_int(n), info(0),
                                        as_int(batch)),
                         "cusolverDn?potrfBatched");
      raise_or_nan(read_infos());
      return;
    }
    int lwork = 0;
    cuda::check_solver(t.potrf_bufferSize(h(), uplo, as_int(n), out.data(), as_int(n), &lwork),
                       "cusolverDn?potrf_bufferSize");
    Array work = scratch(lwork, dt);
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.potrf(h(), uplo, as_int(n), at(out, b, n * n), as_int(n), work.data(),
                                 lwork, info(b)),
                         "cusolverDn?potrf");
    }
    raise_or_nan(read_infos());
  }

  void eigh() {
    if (n == 0) return;
    const bool vectors = node.spec.op == LinalgOp::Eigh;
    const int jobz = vectors ? cuda::kEigModeVector : cuda::kEigModeNoVector;
    const int uplo = node.spec.upper ? cuda::kCublasFillUpper : cuda::kCublasFillLower;
    Array w = colmajor(node.inputs[0]);
    const Array& vals = outs[0];
    const cuda::syevjInfo_t params = small_stack() && t.syevjBatched ? cuda::syevj_params() : nullptr;
    if (params) {  // one Jacobi launch for the whole stack of small matrices
      int lwork = 0;
      cuda::check_solver(t.syevjBatched_bufferSize(h(), jobz, uplo, as_int(n), w.data(), as_int(n),
                                                   vals.data(), &lwork, params, as_int(batch)),
                         "cusolverDn?syevjBatched_bufferSize");
      Array work = scratch(lwork, dt);
      cuda::check_solver(t.syevjBatched(h(), jobz, uplo, as_int(n), w.data(), as_int(n),
                                        vals.data(), work.data(), lwork, info(0), params,
                                        as_int(batch)),
                         "cusolverDn?syevjBatched");
      if (vectors) cuda::copy_on_device(swap_last(w), outs[1]);
      raise_or_nan(read_infos());
      return;
    }
    int lwork = 0;
    cuda::check_solver(t.syevd_bufferSize(h(), jobz, uplo, as_int(n), w.data(), as_int(n),
                                          vals.data(), &lwork),
                       "cusolverDn?syevd_bufferSize");
    Array work = scratch(lwork, dt);
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.syevd(h(), jobz, uplo, as_int(n), at(w, b, n * n), as_int(n),
                                 at(vals, b, n), work.data(), lwork, info(b)),
                         "cusolverDn?syevd");
    }
    if (vectors) cuda::copy_on_device(swap_last(w), outs[1]);
    raise_or_nan(read_infos());
  }

  void svd() {
    const bool vectors = node.spec.op == LinalgOp::Svd;
    const bool full = vectors && node.spec.full_matrices;
    if (k == 0) {
      if (full) {
        set_identity(outs[1]);
        set_identity(outs[2]);
      }
      return;
    }
    const signed char job = !vectors ? 'N' : full ? 'A' : 'S';
    // gesvd needs rows >= cols: a tall (or square) a is copied to column-major; a wide one is
    // used as it is, as A^T, whose u and vh are a's vh and u (see the file comment).
    const bool tall = m >= n;
    const int64_t rows = tall ? m : n, cols = tall ? n : m;
    const int64_t ucols = full ? rows : k, vrows = full ? cols : k;
    Array w = tall ? colmajor(node.inputs[0]) : contiguous(node.inputs[0]);
    Array u, vt;
    if (vectors && tall) {
      u = Array::empty(Shape{batch, ucols, rows}, dt, w.device());
      vt = Array::empty(Shape{batch, cols, vrows}, dt, w.device());
    } else if (vectors) {  // straight into the outputs: u' is a's vh, vt' is a's u
      u = outs[2];
      vt = outs[1];
    }
    int lwork = 0;
    cuda::check_solver(t.gesvd_bufferSize(h(), as_int(rows), as_int(cols), &lwork),
                       "cusolverDn?gesvd_bufferSize");
    Array work = scratch(lwork, dt);
    Array rwork = scratch(k, real_dtype(dt));
    const Array& s = outs[0];
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(
          t.gesvd(h(), job, job, as_int(rows), as_int(cols), at(w, b, rows * cols), as_int(rows),
                  at(s, b, k), vectors ? at(u, b, rows * ucols) : nullptr, as_int(rows),
                  vectors ? at(vt, b, vrows * cols) : nullptr, as_int(std::max<int64_t>(1, vrows)),
                  work.data(), lwork, rwork.data(), info(b)),
          "cusolverDn?gesvd");
    }
    if (vectors && tall) {
      cuda::copy_on_device(swap_last(u), outs[1].view(Shape{batch, m, ucols}, Strides{m * ucols, ucols, 1},
                                        outs[1].byte_offset));
      cuda::copy_on_device(swap_last(vt), outs[2].view(Shape{batch, vrows, n},
                                                       Strides{vrows * n, n, 1},
                                                       outs[2].byte_offset));
    }
    raise_or_nan(read_infos());
  }

  void qr_raw() {
    if (k == 0) return;
    Array w = colmajor(node.inputs[0]);
    const Array& tau = outs[1];
    int lwork = 0;
    cuda::check_solver(t.geqrf_bufferSize(h(), as_int(m), as_int(n), w.data(), as_int(m), &lwork),
                       "cusolverDn?geqrf_bufferSize");
    Array work = scratch(lwork, dt);
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.geqrf(h(), as_int(m), as_int(n), at(w, b, m * n), as_int(m),
                                 at(tau, b, k), work.data(), lwork, info(b)),
                         "cusolverDn?geqrf");
    }
    cuda::copy_on_device(swap_last(w), outs[0]);
    raise_or_nan(read_infos());
  }

  void qr_q() {
    const int64_t mc = node.spec.cols;
    if (m == 0 || mc == 0) return;
    const Array& h_in = node.inputs[0];
    Array tau = contiguous(node.inputs[1]);
    // The first min(n, mc) columns of the reflectors, column-major, the rest zero.
    Shape qshape(h_in.shape.begin(), h_in.shape.end() - 2);
    qshape.push_back(mc);
    qshape.push_back(m);
    Array q = Array::empty(qshape, dt, h_in.device());
    const unsigned char zero[16] = {};
    cuda::fill(q, zero);
    const int64_t c = std::min(n, mc);
    Array src = swap_last(h_in);
    src.shape[src.ndim() - 2] = c;
    Array dst = q;
    dst.shape[dst.ndim() - 2] = c;
    if (c > 0) cuda::copy_on_device(src, q.view(dst.shape, q.strides, q.byte_offset));
    int lwork = 0;
    cuda::check_solver(t.orgqr_bufferSize(h(), as_int(m), as_int(mc), as_int(k), q.data(),
                                          as_int(m), tau.data(), &lwork),
                       "cusolverDn?orgqr_bufferSize");
    Array work = scratch(lwork, dt);
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(t.orgqr(h(), as_int(m), as_int(mc), as_int(k), at(q, b, m * mc),
                                 as_int(m), at(tau, b, k), work.data(), lwork, info(b)),
                         "cusolverDn?orgqr");
    }
    cuda::copy_on_device(swap_last(q), outs[0]);
    raise_or_nan(read_infos());
  }

  static int cuda_type(DType d) {
    switch (d) {
      case DType::Float32: return cuda::kCudaR32F;
      case DType::Float64: return cuda::kCudaR64F;
      case DType::Complex64: return cuda::kCudaC32F;
      default: return cuda::kCudaC64F;
    }
  }

  // cusolverDnXgeev per matrix: a real a gives complex eigenvalues and LAPACK's packed real
  // eigenvectors (a complex pair j, j+1 is vr[:,j] +- i vr[:,j+1]), unpacked on the host.
  void eig() {
    if (n == 0) return;
    std::string why;
    const cuda::XgeevApi* x = cuda::xgeev_api(&why);
    const bool vectors = node.spec.op == LinalgOp::Eig;
    const int jobvr = vectors ? cuda::kEigModeVector : cuda::kEigModeNoVector;
    const int ta = cuda_type(dt), tw = cuda_type(outs[0].dtype);
    Array w = colmajor(node.inputs[0]);
    Array vr = vectors ? Array::empty(Shape{batch, n, n}, dt, node.device) : Array();
    const Array& vals = outs[0];
    size_t dbytes = 0, hbytes = 0;
    cuda::check_solver(x->bufferSize(h(), x->params, cuda::kEigModeNoVector, jobvr, n, ta,
                                     w.data(), n, tw, vals.data(), ta, nullptr, 1, ta,
                                     vectors ? vr.data() : nullptr, n, ta, &dbytes, &hbytes),
                       "cusolverDnXgeev_bufferSize");
    Array dwork = scratch(static_cast<int64_t>(dbytes), DType::UInt8);
    std::vector<unsigned char> hwork(std::max<size_t>(1, hbytes));
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(x->geev(h(), x->params, cuda::kEigModeNoVector, jobvr, n, ta,
                                 at(w, b, n * n), n, tw, at(vals, b, n), ta, nullptr, 1, ta,
                                 vectors ? at(vr, b, n * n) : nullptr, n, ta, dwork.data(),
                                 dbytes, hwork.data(), hbytes, info(b)),
                         "cusolverDnXgeev");
    }
    raise_or_nan(read_infos());
    if (!vectors) return;
    if (is_complex(dt)) {
      cuda::copy_on_device(swap_last(vr), outs[1]);
      return;
    }
    if (dt == DType::Float32) {
      unpack_pairs<float>(vr);
    } else {
      unpack_pairs<double>(vr);
    }
  }

  // outs[1] (complex, C order) from the packed real column-major vr and the eigenvalues.
  template <class R>
  void unpack_pairs(const Array& vr) const {
    using C = std::complex<R>;
    cuda::Stream s = cuda::enqueue_stream(device);
    std::vector<R> v(static_cast<size_t>(batch * n * n));
    std::vector<C> ev(static_cast<size_t>(batch * n)), out(v.size());
    cuda::copy_device_to_host(v.data(), reinterpret_cast<cuda::CUdeviceptr>(vr.data()),
                              v.size() * sizeof(R), s);
    cuda::copy_device_to_host(ev.data(), reinterpret_cast<cuda::CUdeviceptr>(outs[0].data()),
                              ev.size() * sizeof(C), s);
    for (int64_t b = 0; b < batch; ++b) {
      const R* f = v.data() + b * n * n;
      C* o = out.data() + b * n * n;
      for (int64_t j = 0; j < n; ++j) {
        const bool pair = ev[b * n + j].imag() != R(0) && j + 1 < n;
        for (int64_t i = 0; i < n; ++i) {
          const R re = f[i + j * n], im = pair ? f[i + (j + 1) * n] : R(0);
          o[i * n + j] = C(re, im);
          if (pair) o[i * n + j + 1] = C(re, -im);
        }
        if (pair) ++j;
      }
    }
    cuda::copy_host_to_device(reinterpret_cast<cuda::CUdeviceptr>(outs[1].data()), out.data(),
                              out.size() * sizeof(C), s);
  }
};

// A widened node (spec.widen: single-precision arrays, double-precision arithmetic) that the small
// kernels do not cover: the same node on double-precision copies, its outputs cast back.
void eval_widened(LinalgNode& node, const std::vector<Array>& outs) {
  auto wide = [](DType d) {
    return d == DType::Float32 ? DType::Float64 : d == DType::Complex64 ? DType::Complex128 : d;
  };
  LinalgNode w;
  w.spec = node.spec;
  w.spec.widen = false;
  w.device = node.device;
  for (const Array& x : node.inputs) {
    Array d = Array::empty(x.shape, wide(x.dtype), x.device());
    cuda::copy_on_device(x, d);
    w.inputs.push_back(d);
  }
  std::vector<Array> wouts;
  for (const Array& o : outs) wouts.push_back(Array::empty(o.shape, wide(o.dtype), o.device()));
  cuda::eval_linalg(w, wouts);
  for (size_t i = 0; i < outs.size(); ++i) cuda::copy_on_device(wouts[i], outs[i]);
}

}  // namespace

void cuda::eval_linalg(LinalgNode& node, const std::vector<Array>& outs) {
  const LinalgOp op = node.spec.op;
  std::string why;
  if ((op == LinalgOp::Eig || op == LinalgOp::Eigvals) && !cuda::xgeev_api(&why)) {
    throw NotImplementedError(std::string("numfuse.linalg.") + linalg_op_name(op) +
                              " is not implemented on CUDA here: " + why);
  }
  const Array& a = node.inputs[0];
  const int64_t m = a.shape[a.ndim() - 2], n = a.shape[a.ndim() - 1];
  int64_t batch = 1;
  for (int d = 0; d < a.ndim() - 2; ++d) batch *= a.shape[d];
  if (batch == 0) return;
  const int dev = node.device.index;
  // One code per matrix, and after them the small kernels' count of failed matrices.
  Array infos = Array::empty(Shape{batch + 1}, DType::Int32, node.device);
  // Small matrices: one NVRTC kernel, a thread per matrix (small_linalg_cuda.h), no cuSOLVER;
  // every matrix writes its own info code, and the failures count themselves: the host reads
  // that count (4 bytes) and the codes only when it is not zero.
  if (m == n && cuda::small_linalg_covers(node, n)) {
    const Array failures = infos.view(Shape{1}, Strides{1}, infos.byte_offset + batch * 4);
    const unsigned char zero[16] = {};
    cuda::fill(failures, zero);
    if (cuda::eval_small_linalg(node, outs, infos, batch, n)) {
      int failed = 0;
      cuda::copy_device_to_host(&failed, reinterpret_cast<cuda::CUdeviceptr>(failures.data()), sizeof failed,
                                cuda::enqueue_stream(dev));
      if (failed != 0) raise_or_nan_outputs(node, outs, read_info_codes(infos, batch, dev), batch);
    }
    return;
  }
  if (node.spec.widen && cuda::small_linalg_compute_dtype(node) != a.dtype) {
    eval_widened(node, outs);
    return;
  }
  const unsigned char zero[16] = {};
  cuda::fill(infos, zero);
  Run run{node, outs, solver_table(a.dtype), dev, a.dtype, batch, m, n, std::min(m, n),
          infos, bound_solver(dev)};
  switch (op) {
    case LinalgOp::Inv:
    case LinalgOp::Solve: run.inv_or_solve(); break;
    case LinalgOp::Det:
    case LinalgOp::Slogdet: run.det(); break;
    case LinalgOp::Cholesky: run.cholesky(); break;
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh: run.eigh(); break;
    case LinalgOp::Svd:
    case LinalgOp::Svdvals: run.svd(); break;
    case LinalgOp::QrRaw: run.qr_raw(); break;
    case LinalgOp::QrQ: run.qr_q(); break;
    case LinalgOp::Eig:
    case LinalgOp::Eigvals: run.eig(); break;
  }
}

}  // namespace nf
