// svd, svdvals, eig and eigvals of a LinalgNode on a CUDA device (the Run of linalg_run_cuda.h).
// svd: gesvdjBatched (one launch) for stacks of small real matrices, gesvdp (svd_polar_cuda.h)
// for large real matrices, gesvd for the others and for the matrices gesvdp had to perturb. eig:
// cusolverDnXgeev (CUDA 12.6 and later), a real matrix's packed eigenvector pairs unpacked on the
// device (geev_unpack_cuda.h).
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/geev_unpack_cuda.h"
#include "numfuse/backend/cuda/linalg_run_cuda.h"
#include "numfuse/backend/cuda/svd_polar_cuda.h"

namespace nf::cuda::linalg_run {

Run::SvdLayout Run::svd_layout() const {
  SvdLayout g;
  g.vectors = node.spec.op == LinalgOp::Svd;
  g.full = g.vectors && node.spec.full_matrices;
  g.tall = m >= n;
  g.rows = g.tall ? m : n;
  g.cols = g.tall ? n : m;
  g.ucols = g.full ? g.rows : k;
  g.vrows = g.full ? g.cols : k;
  return g;
}

void Run::svd() {
  const SvdLayout g = svd_layout();
  if (k == 0) {
    if (g.full) {
      set_identity(outs[1]);
      set_identity(outs[2]);
    }
    return;
  }
  if (svd_jacobi_applies()) {
    svd_jacobi(g);
    raise_or_nan(read_infos());
    return;
  }
  std::vector<int64_t> left;  // the matrices gesvd computes
  if (cuda::polar_svd_applies(dt, g.rows, g.cols)) {
    left = svd_polar(g);
  } else {
    for (int64_t b = 0; b < batch; ++b) left.push_back(b);
  }
  if (!left.empty()) svd_qr(g, left);
  raise_or_nan(read_infos());
}

bool Run::svd_jacobi_applies() const {
  return small_stack() && m <= kBatchedMaxN && (dt == DType::Float32 || dt == DType::Float64) &&
         t.gesvdjBatched && t.gesvdjBatched_bufferSize && cuda::gesvdj_params();
}

void Run::svd_jacobi(const SvdLayout& g) {
  const cuda::gesvdjInfo_t params = cuda::gesvdj_params();
  const int jobz = g.vectors ? cuda::kEigModeVector : cuda::kEigModeNoVector;
  const int rows = as_int(g.rows), cols = as_int(g.cols);
  Array w = g.tall ? colmajor(node.inputs[0]) : contiguous(node.inputs[0]);
  // Full U (rows x rows) and V (cols x cols) of each matrix, column-major: read in C order,
  // U^T and V^T.
  Array u = Array::empty(Shape{batch, g.rows, g.rows}, dt, node.device);
  Array v = Array::empty(Shape{batch, g.cols, g.cols}, dt, node.device);
  int lwork = 0;
  cuda::check_solver(
      t.gesvdjBatched_bufferSize(h(), jobz, rows, cols, w.data(), rows, outs[0].data(), u.data(),
                                 rows, v.data(), cols, &lwork, params, as_int(batch)),
      "cusolverDn?gesvdjBatched_bufferSize");
  Array work = scratch(lwork, dt);
  cuda::check_solver(
      t.gesvdjBatched(h(), jobz, rows, cols, w.data(), rows, outs[0].data(), u.data(), rows,
                      v.data(), cols, work.data(), lwork, info(0), params, as_int(batch)),
      "cusolverDn?gesvdjBatched");
  if (!g.vectors) return;
  // Tall a: its u is U and its vh V^T. Wide a (the problem is A^T = U' S V'^T): its u is V' and
  // its vh U'^T. Either way a's u is the transposed read of one buffer and vh the plain read of
  // the other, cut to the outputs' widths (economy sizes keep the first columns / rows).
  const Array& first = g.tall ? u : v;   // (batch, m, m) holding (a's u)^T
  const Array& second = g.tall ? v : u;  // (batch, n, n) holding a's full vh
  const int64_t ux = outs[1].shape.back(), vy = outs[2].shape[outs[2].ndim() - 2];
  cuda::copy_on_device(
      first.view(Shape{batch, m, ux}, Strides{m * m, 1, m}, first.byte_offset),
      outs[1].view(Shape{batch, m, ux}, Strides{m * ux, ux, 1}, outs[1].byte_offset));
  cuda::copy_on_device(
      second.view(Shape{batch, vy, n}, Strides{n * n, n, 1}, second.byte_offset),
      outs[2].view(Shape{batch, vy, n}, Strides{vy * n, n, 1}, outs[2].byte_offset));
}

std::vector<int64_t> Run::svd_polar(const SvdLayout& g) {
  Array w = g.tall ? colmajor(node.inputs[0]) : contiguous(node.inputs[0]);
  // The factor that needs a transposing copy, one matrix at a time. svdvals computes both factors
  // too, into these buffers: gesvdp without vectors failed with CUSOLVER_STATUS_INTERNAL_ERROR
  // on the H100 (CUDA 13.0), and with them it is still 7x faster than gesvd.
  Array ubuf = Array::empty(Shape{g.ucols, g.rows}, dt, w.device());
  Array vbuf = Array::empty(Shape{g.vrows, g.cols}, dt, w.device());
  const int nb = node.inputs[0].ndim() - 2;
  std::vector<int64_t> left;
  for (int64_t b = 0; b < batch; ++b) {
    void* u = ubuf.data();
    void* v = vbuf.data();
    if (g.vectors && g.tall) v = at(outs[2], b, g.vrows * g.cols);
    if (g.vectors && !g.tall) u = at(outs[2], b, g.ucols * g.rows);
    const double err = cuda::polar_svd(h(), device, dt, g.rows, g.cols, at(w, b, g.rows * g.cols),
                                       at(outs[0], b, k), u, v, /*econ=*/!g.full, info(b));
    if (err != 0.0) {
      left.push_back(b);
    } else if (g.vectors) {
      const Array& t_buf = g.tall ? ubuf : vbuf;
      cuda::copy_on_device(swap_last(t_buf), slice(outs[1], b, batch, nb));
    }
  }
  return left;
}

void Run::svd_qr(const SvdLayout& g, const std::vector<int64_t>& which) {
  const signed char job = !g.vectors ? 'N' : g.full ? 'A' : 'S';
  Array w = g.tall ? colmajor(node.inputs[0]) : contiguous(node.inputs[0]);
  Array u, vt;
  if (g.vectors && g.tall) {
    u = Array::empty(Shape{batch, g.ucols, g.rows}, dt, w.device());
    vt = Array::empty(Shape{batch, g.cols, g.vrows}, dt, w.device());
  } else if (g.vectors) {  // straight into the outputs: u' is a's vh, vt' is a's u
    u = outs[2];
    vt = outs[1];
  }
  int lwork = 0;
  cuda::check_solver(t.gesvd_bufferSize(h(), as_int(g.rows), as_int(g.cols), &lwork),
                     "cusolverDn?gesvd_bufferSize");
  Array work = scratch(lwork, dt);
  Array rwork = scratch(k, real_dtype(dt));
  for (int64_t b : which) {
    cuda::check_solver(
        t.gesvd(h(), job, job, as_int(g.rows), as_int(g.cols), at(w, b, g.rows * g.cols),
                as_int(g.rows), at(outs[0], b, k), g.vectors ? at(u, b, g.rows * g.ucols) : nullptr,
                as_int(g.rows), g.vectors ? at(vt, b, g.vrows * g.cols) : nullptr,
                as_int(std::max<int64_t>(1, g.vrows)), work.data(), lwork, rwork.data(), info(b)),
        "cusolverDn?gesvd");
  }
  if (!g.vectors || !g.tall) return;
  if (which.size() == size_t(batch)) {  // the whole stack in two copies
    cuda::copy_on_device(swap_last(u),
                         outs[1].view(Shape{batch, m, g.ucols}, Strides{m * g.ucols, g.ucols, 1},
                                      outs[1].byte_offset));
    cuda::copy_on_device(
        swap_last(vt),
        outs[2].view(Shape{batch, g.vrows, n}, Strides{g.vrows * n, n, 1}, outs[2].byte_offset));
    return;
  }
  const int nb = node.inputs[0].ndim() - 2;
  for (int64_t b : which) {
    const Array ub = u.view(Shape{g.ucols, g.rows}, Strides{g.rows, 1},
                            u.byte_offset + b * g.ucols * g.rows * int64_t(u.itemsize()));
    const Array vb = vt.view(Shape{g.cols, g.vrows}, Strides{g.vrows, 1},
                             vt.byte_offset + b * g.cols * g.vrows * int64_t(vt.itemsize()));
    cuda::copy_on_device(swap_last(ub), slice(outs[1], b, batch, nb));
    cuda::copy_on_device(swap_last(vb), slice(outs[2], b, batch, nb));
  }
}

int Run::cuda_type(DType d) {
  switch (d) {
    case DType::Float32:
      return cuda::kCudaR32F;
    case DType::Float64:
      return cuda::kCudaR64F;
    case DType::Complex64:
      return cuda::kCudaC32F;
    default:
      return cuda::kCudaC64F;
  }
}

void Run::eig() {
  if (n == 0) return;
  std::string why;
  const cuda::XgeevApi* x = cuda::xgeev_api(&why);
  const bool vectors = node.spec.op == LinalgOp::Eig;
  const int jobvr = vectors ? cuda::kEigModeVector : cuda::kEigModeNoVector;
  const int ta = cuda_type(dt), tw = cuda_type(outs[0].dtype);
  Array w = colmajor(node.inputs[0]);
  // Shaped as the input (not batch x n x n): the complex case copies its transpose straight into
  // outs[1], whose shape must match (an unbatched complex matrix failed that copy on the H100).
  Array vr = vectors ? Array::empty(node.inputs[0].shape, dt, node.device) : Array();
  const Array& vals = outs[0];
  size_t dbytes = 0, hbytes = 0;
  cuda::check_solver(x->bufferSize(h(), x->params, cuda::kEigModeNoVector, jobvr, n, ta, w.data(),
                                   n, tw, vals.data(), ta, nullptr, 1, ta,
                                   vectors ? vr.data() : nullptr, n, ta, &dbytes, &hbytes),
                     "cusolverDnXgeev_bufferSize");
  Array dwork = scratch(static_cast<int64_t>(dbytes), DType::UInt8);
  std::vector<unsigned char> hwork(std::max<size_t>(1, hbytes));
  for (int64_t b = 0; b < batch; ++b) {
    cuda::check_solver(
        x->geev(h(), x->params, cuda::kEigModeNoVector, jobvr, n, ta, at(w, b, n * n), n, tw,
                at(vals, b, n), ta, nullptr, 1, ta, vectors ? at(vr, b, n * n) : nullptr, n, ta,
                dwork.data(), dbytes, hwork.data(), hbytes, info(b)),
        "cusolverDnXgeev");
  }
  raise_or_nan(read_infos());
  if (!vectors) return;
  if (is_complex(dt)) {
    cuda::copy_on_device(swap_last(vr), outs[1]);
    return;
  }
  cuda::unpack_geev_vectors(vr, outs[0], outs[1]);
}

}  // namespace nf::cuda::linalg_run
