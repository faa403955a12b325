#include "numfuse/backend/cuda/matmul_plan.h"

#include <algorithm>
#include <climits>

#include "numfuse/backend/gemm_layout.h"

namespace nf::cuda {

namespace {

// gemm_layout (backend/gemm_layout.h) with cuBLAS's 32-bit limit on the leading dimension.
bool gemm_layout32(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  return gemm_layout(rows, cols, rs, cs, trans, ld) && *ld <= INT_MAX;
}

// A run of (size, stride) dims, outermost first, as one (size, stride) dim if evenly spaced with
// a stride cuBLAS takes (>= 0).
bool collapse(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n, int64_t* stride) {
  return collapse_dims(dims, n, stride) && *stride >= 0;  // cuBLAS strides are non-negative
}

}  // namespace

MatrixStack describe_operand(const Array& x, bool left, const Shape& out_batch) {
  MatrixStack m;
  const int nd = x.ndim();
  if (nd == 1) {
    m.rows = left ? 1 : x.shape[0];
    m.cols = left ? x.shape[0] : 1;
    m.rs = left ? 0 : x.strides[0];
    m.cs = left ? x.strides[0] : 0;
    m.bstrides.assign(out_batch.size(), 0);
  } else {
    m.rows = x.shape[nd - 2];
    m.cols = x.shape[nd - 1];
    m.rs = x.strides[nd - 2];
    m.cs = x.strides[nd - 1];
    const Shape bshape(x.shape.begin(), x.shape.end() - 2);
    const Strides bstr(x.strides.begin(), x.strides.end() - 2);
    m.bstrides = broadcast_strides(bshape, bstr, out_batch);
  }
  m.usable = gemm_layout32(m.rows, m.cols, m.rs, m.cs, &m.trans, &m.ld);
  return m;
}

Shape matmul_out_batch(const Shape& out_shape, int a_ndim, int b_ndim) {
  const int core = (a_ndim >= 2 ? 1 : 0) + (b_ndim >= 2 ? 1 : 0);
  return Shape(out_shape.begin(), out_shape.end() - core);
}

MatmulPlan plan_matmul(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch) {
  MatmulPlan p;
  const int64_t M = A.rows;
  p.K = A.cols;
  p.N = B.cols;
  p.ldc = std::max<int64_t>(1, p.N);
  p.ldb = B.ld;
  p.trans_a = A.trans;
  p.trans_b = B.trans;
  const int64_t batch = numel(out_batch);
  if (batch == 0 || M == 0 || p.N == 0) return p;
  const int nb = static_cast<int>(out_batch.size());

  // b shared by the whole batch and a's rows evenly spaced across it: one (batch*M) x K by K x N
  // product, which the output's C order already lays out.
  const bool b_shared = std::all_of(B.bstrides.begin(), B.bstrides.end(), [](int64_t s) { return s == 0; });
  if (b_shared && !A.trans && batch > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (int d = 0; d < nb; ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.ld});
    int64_t rows = 0, rstride = 0, ld = 0;
    bool trans = false;
    if (collapse(dims, &rows, &rstride) && gemm_layout32(rows, p.K, rstride, A.cs, &trans, &ld) && !trans) {
      GemmCall c;
      c.M = rows;
      c.lda = ld;
      p.calls.push_back(c);
      return p;
    }
  }

  // The longest run of trailing batch dims over which both a and b are evenly spaced goes to one
  // strided-batched call; the leading dims (rarely any) are walked here, in C order.
  int split = nb;
  int64_t count = 1, sa = 0, sb = 0;
  for (int s = 0; s <= nb; ++s) {
    std::vector<std::pair<int64_t, int64_t>> da, db;
    for (int d = s; d < nb; ++d) {
      da.push_back({out_batch[d], A.bstrides[d]});
      db.push_back({out_batch[d], B.bstrides[d]});
    }
    int64_t na = 0, nbb = 0, ta = 0, tb = 0;
    if (collapse(da, &na, &ta) && collapse(db, &nbb, &tb)) {
      split = s;
      count = na;
      sa = ta;
      sb = tb;
      break;
    }
  }
  const int64_t outer = batch / count;
  std::vector<int64_t> idx(split, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < outer; ++i) {
    GemmCall c;
    c.M = M;
    c.lda = A.ld;
    c.a_off = oa;
    c.b_off = ob;
    c.c_off = i * count * M * p.N;
    c.stride_a = sa;
    c.stride_b = sb;
    c.stride_c = M * p.N;
    c.count = count;
    p.calls.push_back(c);
    for (int d = split - 1; d >= 0; --d) {
      if (++idx[d] < out_batch[d]) {
        oa += A.bstrides[d];
        ob += B.bstrides[d];
        break;
      }
      oa -= A.bstrides[d] * (out_batch[d] - 1);
      ob -= B.bstrides[d] * (out_batch[d] - 1);
      idx[d] = 0;
    }
  }
  return p;
}

}  // namespace nf::cuda
