// The state of one LinalgNode's evaluation on a CUDA device (cuSOLVER handle, the stack's
// geometry, the info codes) and its operations, shared by linalg_cuda.cpp (LU, cholesky, eigh,
// qr and the dispatch) and linalg_svd_eig_cuda.cpp (svd, eig). Private to backend/cuda.
#pragma once
#include <algorithm>
#include <climits>
#include <complex>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/cusolver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/linalg_layout_cuda.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/linalg_solve.h"

namespace nf::cuda::linalg_run {

using cuda::SolverTable;
using namespace cuda::linalg_layout;

inline int as_int(int64_t v) {
  if (v > INT_MAX) {
    throw NotImplementedError("numfuse.linalg on CUDA: a size of " + std::to_string(v) +
                              " does not fit cuSOLVER's 32-bit int");
  }
  return static_cast<int>(v);
}

// NumPy's message for a matrix LAPACK could not handle.
inline const char* failure_message(LinalgOp op) {
  switch (op) {
    case LinalgOp::Cholesky:
      return "Matrix is not positive definite";
    case LinalgOp::Eigh:
    case LinalgOp::Eigvalsh:
      return "Eigenvalues did not converge";
    case LinalgOp::Svd:
    case LinalgOp::Svdvals:
      return "SVD did not converge";
    case LinalgOp::Eig:
    case LinalgOp::Eigvals:
      return "Eigenvalues did not converge";
    default:
      return "Singular matrix";
  }
}

// The info codes of the stack, read back (waits for the work enqueued so far).
inline std::vector<int> read_info_codes(const Array& infos, int64_t batch, int device) {
  std::vector<int> h(static_cast<size_t>(batch));
  cuda::copy_device_to_host(h.data(), reinterpret_cast<cuda::CUdeviceptr>(infos.data()),
                            h.size() * sizeof(int), cuda::enqueue_stream(device));
  return h;
}

// LinAlgError for the first failed matrix, or (raise_on_failure false) NaN outputs for each.
inline void raise_or_nan_outputs(const LinalgNode& node, const std::vector<Array>& outs,
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
  void raise_or_nan(const std::vector<int>& codes) const {
    raise_or_nan_outputs(node, outs, codes, batch);
  }

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
  Array getrf_all(const Array& w, const Array& ipiv);

  // X = solve with the factors of getrf_all, B column-major n x nrhs each, in place.
  void getrs_all(int trans, const Array& w, const Array& w_ptrs, const Array& ipiv, const Array& B,
                 int64_t nrhs);

  void inv_or_solve();

  // det and slogdet: LU on the device, the diagonal and pivots read back and reduced on the host.
  void det();

  // One value per matrix into the C-order output `out` of any LAPACK dtype.
  void write_host(const Array& out, const std::vector<std::complex<double>>& v) const;

  // cuSOLVER's potrf of the upper triangle takes 2.6x as long as of the lower one (4096^2
  // float64 on the H100: 4.91 vs 1.88 ms, bench/cusolver_probe.py), so every large matrix goes
  // through the lower triangle. A C-order matrix read in column-major order is its transpose, and
  // the factor has to come out in C order with zeros in the other triangle; one pass of
  // copy_triangle (triangle_copy_cuda.h: takes one triangle, writes zeros over the other; no
  // value changes, so complex input needs no conjugation anywhere) before potrf:
  // - upper=True: a's upper triangle copied as it is into out; read column-major that is the
  //   lower triangle of A^T, and potrf's L' (A^T = L' L'^H) read back in C order is L'^T = U with
  //   U^H U = conj(A^T) = A (A Hermitian); the zeros of out's lower triangle stay.
  // - upper=False, one large matrix (or a stack of them): a's lower triangle transposed into a
  //   column-major work copy (its lower triangle is a's), potrf lower, then L transposed into out
  //   with zeros above (a second triangle copy; tiled, each reads half a matrix and writes one:
  //   about 0.05 ms at 4096^2 float64 at the H100's bandwidth, not yet measured). The copy out
  //   is the price of the fast lower potrf: potrf upper on out itself (no copy out, as the
  //   opposite-triangle reading would have it) costs 3 ms more.
  // - upper=False, a small stack (potrfBatched, upper for these sizes is cheap): a's lower
  //   triangle copied as it is into out, potrf upper of the column-major view (A^T's upper
  //   triangle); its U read back in C order is U^T = L with L L^H = conj(U^H U) = conj(A^T) = A.
  // potrf reads only its triangle and never writes the other, so the zeros written stay.
  void cholesky();

  void eigh();

  // The SVD's layout: gesvd and gesvdp need rows >= cols, so a tall (or square) a is copied to
  // column-major, and a wide one is used as it is, as A^T, whose u and vh are a's vh and u (see
  // the file comment).
  struct SvdLayout {
    bool vectors, full, tall;
    int64_t rows, cols, ucols, vrows;  // of the column-major problem; ucols/vrows: U's, V^T's
  };

  SvdLayout svd_layout() const;

  void svd();

  // A stack of real matrices up to 32 x 32 in one gesvdjBatched launch (complex ones loop gesvd:
  // gesvdj gives V, and V^H of a complex V needs a conjugating copy not written yet).
  bool svd_jacobi_applies() const;
  void svd_jacobi(const SvdLayout& g);

  // gesvdp of every matrix (svd_polar_cuda.h); returns those it had to perturb. Its V (cols x
  // vrows, column-major) read in C order is V^T: a's vh for a tall a, a's u transposed for a
  // wide one; its U likewise. One of the two goes straight into its output.
  std::vector<int64_t> svd_polar(const SvdLayout& g);

  // gesvd of the matrices `which`.
  void svd_qr(const SvdLayout& g, const std::vector<int64_t>& which);

  void qr_raw();

  void qr_q();

  static int cuda_type(DType d);

  // cusolverDnXgeev per matrix: a real a gives complex eigenvalues and LAPACK's packed real
  // eigenvectors (a complex pair j, j+1 is vr[:,j] +- i vr[:,j+1]), unpacked on the device.
  void eig();
};

}  // namespace nf::cuda::linalg_run
