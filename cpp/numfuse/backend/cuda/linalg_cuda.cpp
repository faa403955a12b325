// LinalgNode on a CUDA device: cuSOLVER (cusolver.h) looped over the stack, every call enqueued
// on the device's stream, then one read of the stack's info codes (errors at the call, as
// NumPy's). Layouts: a C-order matrix read in column-major order is its transpose, which several
// operations use to skip copies (inv: inv(A^T) read back is inv(A); solve: getrs with 'T' on
// A^T's factors; det(A^T) = det(A); cholesky: see linalg_run_cuda.h; svd of a wide matrix:
// gesvd of A^T gives vh and u directly). The others (eigh, qr, tall svd) work on
// column-major copies made on the device and copy their results back transposed.
// eig and eigvals use cusolverDnXgeev (CUDA 12.6 and later) and raise NotImplementedError, naming
// what is missing, with an older cuSOLVER.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "numfuse/backend/cuda/cublas.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/linalg_run_cuda.h"
#include "numfuse/backend/cuda/small_linalg_cuda.h"
#include "numfuse/backend/cuda/triangle_copy_cuda.h"
#include "numfuse/core/stage_trace.h"

namespace nf::cuda::linalg_run {

Array Run::getrf_all(const Array& w, const Array& ipiv) {
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
    cuda::check_solver(t.getrf(h(), as_int(n), as_int(n), at(w, b, n * n), as_int(n), work.data(),
                               ipiv.data_as<int>() + b * n, info(b)),
                       "cusolverDn?getrf");
  }
  return Array();
}

void Run::getrs_all(int trans, const Array& w, const Array& w_ptrs, const Array& ipiv,
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

void Run::inv_or_solve() {
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

void Run::det() {
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
    cuda::copy_device_to_host(d.data(), reinterpret_cast<cuda::CUdeviceptr>(diag.data()), d.size(),
                              s);
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

void Run::write_host(const Array& out, const std::vector<std::complex<double>>& v) const {
  std::vector<unsigned char> bytes(static_cast<size_t>(out.nbytes()));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (out.dtype) {
      case DType::Float32:
        reinterpret_cast<float*>(bytes.data())[i] = float(v[i].real());
        break;
      case DType::Float64:
        reinterpret_cast<double*>(bytes.data())[i] = v[i].real();
        break;
      case DType::Complex64:
        reinterpret_cast<std::complex<float>*>(bytes.data())[i] = std::complex<float>(v[i]);
        break;
      default:
        reinterpret_cast<std::complex<double>*>(bytes.data())[i] = v[i];
        break;
    }
  }
  if (bytes.empty()) return;
  cuda::copy_host_to_device(reinterpret_cast<cuda::CUdeviceptr>(out.data()), bytes.data(),
                            bytes.size(), cuda::enqueue_stream(device));
}

void Run::cholesky() {
  if (n == 0) return;
  const Array& a = node.inputs[0];
  const Array& out = outs[0];
  // See linalg_run_cuda.h: each copy takes one triangle and writes zeros over the other.
  const bool via_transpose = !node.spec.upper && !small_stack();
  Array w = via_transpose ? Array::empty(a.shape, dt, a.device()) : out;
  copy_triangle(a, w, /*transpose=*/via_transpose, /*keep_upper=*/node.spec.upper || via_transpose);
  const int uplo =
      node.spec.upper || via_transpose ? cuda::kCublasFillLower : cuda::kCublasFillUpper;
  if (small_stack() && t.potrfBatched) {
    const Array p = pointer_array(w, n * n);
    cuda::check_solver(
        t.potrfBatched(h(), uplo, as_int(n), ptrs(p), as_int(n), info(0), as_int(batch)),
        "cusolverDn?potrfBatched");
  } else {
    int lwork = 0;
    cuda::check_solver(t.potrf_bufferSize(h(), uplo, as_int(n), w.data(), as_int(n), &lwork),
                       "cusolverDn?potrf_bufferSize");
    Array work = scratch(lwork, dt);  // one workspace for the whole stack
    for (int64_t b = 0; b < batch; ++b) {
      cuda::check_solver(
          t.potrf(h(), uplo, as_int(n), at(w, b, n * n), as_int(n), work.data(), lwork, info(b)),
          "cusolverDn?potrf");
    }
  }
  // The result's zeros come from this copy out (via_transpose) or pass in place (w is out), not
  // from potrf: potrfBatched writes the triangle it does not factor (seen on the H100, CUDA 13:
  // the symmetric counterpart), against LAPACK's contract.
  copy_triangle(w, out, /*transpose=*/via_transpose, /*keep_upper=*/node.spec.upper);
  raise_or_nan(read_infos());
}

void Run::eigh() {
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
    cuda::check_solver(t.syevjBatched(h(), jobz, uplo, as_int(n), w.data(), as_int(n), vals.data(),
                                      work.data(), lwork, info(0), params, as_int(batch)),
                       "cusolverDn?syevjBatched");
    if (vectors) cuda::copy_on_device(swap_last(w), outs[1]);
    raise_or_nan(read_infos());
    return;
  }
  int lwork = 0;
  cuda::check_solver(
      t.syevd_bufferSize(h(), jobz, uplo, as_int(n), w.data(), as_int(n), vals.data(), &lwork),
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

void Run::qr_raw() {
  if (k == 0) return;
  Array w = colmajor(node.inputs[0]);
  const Array& tau = outs[1];
  int lwork = 0;
  cuda::check_solver(t.geqrf_bufferSize(h(), as_int(m), as_int(n), w.data(), as_int(m), &lwork),
                     "cusolverDn?geqrf_bufferSize");
  Array work = scratch(lwork, dt);
  for (int64_t b = 0; b < batch; ++b) {
    cuda::check_solver(t.geqrf(h(), as_int(m), as_int(n), at(w, b, m * n), as_int(m), at(tau, b, k),
                               work.data(), lwork, info(b)),
                       "cusolverDn?geqrf");
  }
  cuda::copy_on_device(swap_last(w), outs[0]);
  raise_or_nan(read_infos());
}

void Run::qr_q() {
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
  cuda::check_solver(t.orgqr_bufferSize(h(), as_int(m), as_int(mc), as_int(k), q.data(), as_int(m),
                                        tau.data(), &lwork),
                     "cusolverDn?orgqr_bufferSize");
  Array work = scratch(lwork, dt);
  for (int64_t b = 0; b < batch; ++b) {
    cuda::check_solver(t.orgqr(h(), as_int(m), as_int(mc), as_int(k), at(q, b, m * mc), as_int(m),
                               at(tau, b, k), work.data(), lwork, info(b)),
                       "cusolverDn?orgqr");
  }
  cuda::copy_on_device(swap_last(q), outs[0]);
  raise_or_nan(read_infos());
}

}  // namespace nf::cuda::linalg_run

namespace nf {

using cuda::linalg_run::raise_or_nan_outputs;
using cuda::linalg_run::read_info_codes;
using cuda::linalg_run::Run;

void cuda::eval_linalg(LinalgNode& node, const std::vector<Array>& outs) {
  stage_mark("eval_linalg");
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
  // Small matrices: one NVRTC kernel, a thread per matrix (small_linalg_cuda.h), no cuSOLVER;
  // a failing matrix sets a word of pinned host memory, read after the wait for the stream. Only
  // when it is set does the kernel run again, writing every matrix's info code: the codes array
  // (an allocation and a free a call, ~2 us of host time) is needed on the error path alone.
  // A small call never waits for NVRTC: cuSOLVER takes it while the kernel compiles on a thread
  // of its own (small_linalg_route).
  cuda::SmallLinalgRoute route = cuda::SmallLinalgRoute::Solver;
  if (m == n && cuda::small_linalg_covers(node, n)) {
    const cuda::SmallLinalgVariant v = cuda::small_linalg_variant(node, n);
    const bool large = batch >= cuda::kSmallLinalgCompileBatch;  // no lookup on the hot path
    route = cuda::small_linalg_route(v, batch, !large && cuda::small_linalg_loaded(v));
    if (route == cuda::SmallLinalgRoute::SolverCompileBackground) {
      cuda::compile_small_linalg_in_background(v);
    }
  }
  if (route == cuda::SmallLinalgRoute::Kernel) {
    if (const volatile int* failed = cuda::eval_small_linalg(node, outs, Array(), batch, n)) {
      cuda::small_linalg_wait(dev);  // armed for Ctrl-C where the caller is
      stage_mark("wait done");
      if (*failed != 0) {
        Array infos = Array::empty(Shape{batch}, DType::Int32, node.device);
        cuda::eval_small_linalg(node, outs, infos, batch, n);
        cuda::small_linalg_wait(dev);
        raise_or_nan_outputs(node, outs, read_info_codes(infos, batch, dev), batch);
      }
    }
    return;
  }
  // One code per matrix.
  Array infos = Array::empty(Shape{batch}, DType::Int32, node.device);
  if (node.spec.widen && cuda::small_linalg_compute_dtype(node) != a.dtype) {
    eval_widened(node, outs, [](const Array& a, const Array& b) { cuda::copy_on_device(a, b); },
                 cuda::eval_linalg);
    return;
  }
  const unsigned char zero[16] = {};
  cuda::fill(infos, zero);
  Run run{node, outs, solver_table(a.dtype), dev,   a.dtype,          batch,
          m,    n,    std::min(m, n),        infos, bound_solver(dev)};
  switch (op) {
    case LinalgOp::Inv:
    case LinalgOp::Solve:
      run.inv_or_solve();
      break;
    case LinalgOp::Det:
    case LinalgOp::Slogdet:
      run.det();
      break;
    case LinalgOp::Cholesky:
      run.cholesky();
      break;
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh:
      run.eigh();
      break;
    case LinalgOp::Svd:
    case LinalgOp::Svdvals:
      run.svd();
      break;
    case LinalgOp::QrRaw:
      run.qr_raw();
      break;
    case LinalgOp::QrQ:
      run.qr_q();
      break;
    case LinalgOp::Eig:
    case LinalgOp::Eigvals:
      run.eig();
      break;
  }
}

}  // namespace nf
