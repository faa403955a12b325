#include "numfuse/backend/matmul_plan.h"

#include <algorithm>

namespace nf {

bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) {
    *trans = false;
    *ld = rows <= 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) {
    *trans = true;
    *ld = cols <= 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

bool collapse_dims(const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t* n,
                   int64_t* stride) {
  int64_t total = 1, inner_stride = 0, expect = 0;
  bool have = false;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->first == 1) continue;
    if (!have) {
      inner_stride = it->second;
      have = true;
    } else if (it->second != expect) {
      return false;
    }
    total *= it->first;
    expect = it->second * it->first;
  }
  *n = total;
  *stride = have ? inner_stride : 0;
  return true;
}

namespace {

bool layout_within(const GemmLimits& lim, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                   bool* trans, int64_t* ld) {
  return gemm_layout(rows, cols, rs, cs, trans, ld) && *ld <= lim.max_ld;
}

bool collapse_within(const GemmLimits& lim, const std::vector<std::pair<int64_t, int64_t>>& dims,
                     int64_t* n, int64_t* stride) {
  return collapse_dims(dims, n, stride) && (!lim.nonneg_batch_strides || *stride >= 0);
}

bool all_zero(const Strides& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; });
}

}  // namespace

MatrixStack describe_operand(const Array& x, bool left, const Shape& out_batch,
                             const GemmLimits& limits) {
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
  m.usable = layout_within(limits, m.rows, m.cols, m.rs, m.cs, &m.trans, &m.ld);
  return m;
}

Shape matmul_out_batch(const Shape& out_shape, int a_ndim, int b_ndim) {
  const int core = (a_ndim >= 2 ? 1 : 0) + (b_ndim >= 2 ? 1 : 0);
  return Shape(out_shape.begin(), out_shape.end() - core);
}

void batch_offsets(const Shape& batch_shape, const Strides& sa, const Strides& sb,
                   BatchOffsets* off_a, BatchOffsets* off_b) {
  const int64_t batch = numel(batch_shape);
  off_a->resize(batch);
  off_b->resize(batch);
  const int nb = static_cast<int>(batch_shape.size());
  Shape idx(nb, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < batch; ++i) {
    (*off_a)[i] = oa;
    (*off_b)[i] = ob;
    for (int d = nb - 1; d >= 0; --d) {
      if (++idx[d] < batch_shape[d]) {
        oa += sa[d];
        ob += sb[d];
        break;
      }
      oa -= sa[d] * (batch_shape[d] - 1);
      ob -= sb[d] * (batch_shape[d] - 1);
      idx[d] = 0;
    }
  }
}

MatmulPlan plan_matmul(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch,
                       const GemmLimits& limits, bool fold) {
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
  if (fold && all_zero(B.bstrides) && !A.trans && batch > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (int d = 0; d < nb; ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.ld});
    int64_t rows = 0, rstride = 0, ld = 0;
    bool trans = false;
    if (collapse_within(limits, dims, &rows, &rstride) &&
        layout_within(limits, rows, p.K, rstride, A.cs, &trans, &ld) && !trans) {
      GemmCall c;
      c.M = rows;
      c.lda = ld;
      p.calls.push_back(c);
      p.folded = true;
      p.trans_a = false;
      return p;
    }
  }

  // The longest run of trailing batch dims over which both a and b are evenly spaced goes to one
  // strided-batched call; the leading dims (rarely any) are walked in C order, one call each.
  int split = nb;
  int64_t count = 1, sa = 0, sb = 0;
  for (int s = 0; s <= nb; ++s) {
    std::vector<std::pair<int64_t, int64_t>> da, db;
    for (int d = s; d < nb; ++d) {
      da.push_back({out_batch[d], A.bstrides[d]});
      db.push_back({out_batch[d], B.bstrides[d]});
    }
    int64_t na = 0, nbb = 0, ta = 0, tb = 0;
    if (collapse_within(limits, da, &na, &ta) && collapse_within(limits, db, &nbb, &tb)) {
      split = s;
      count = na;
      sa = ta;
      sb = tb;
      break;
    }
  }
  const Shape outer_shape(out_batch.begin(), out_batch.begin() + split);
  const Strides outer_a(A.bstrides.begin(), A.bstrides.begin() + split);
  const Strides outer_b(B.bstrides.begin(), B.bstrides.begin() + split);
  BatchOffsets off_a, off_b;
  batch_offsets(outer_shape, outer_a, outer_b, &off_a, &off_b);
  p.calls.reserve(off_a.size());
  for (size_t i = 0; i < off_a.size(); ++i) {
    GemmCall c;
    c.M = M;
    c.lda = A.ld;
    c.a_off = off_a[i];
    c.b_off = off_b[i];
    c.c_off = static_cast<int64_t>(i) * count * M * p.N;
    c.stride_a = sa;
    c.stride_b = sb;
    c.stride_c = M * p.N;
    c.count = count;
    p.calls.push_back(c);
  }
  return p;
}

bool blas_vector(int64_t n, int64_t stride, int64_t* shift, int64_t* inc) {
  if (n <= 1) {
    *shift = 0;
    *inc = 1;
    return true;
  }
  if (stride == 0) return false;
  *shift = stride < 0 ? (n - 1) * stride : 0;
  *inc = stride;
  return true;
}

bool plan_gemv(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t vs, GemvPlan* p) {
  *p = GemvPlan{};
  if (rows == 1) {
    p->dot = true;
    return blas_vector(cols, cs, &p->mat_shift, &p->mat_inc) &&
           blas_vector(cols, vs, &p->vec_shift, &p->incx);
  }
  int64_t v_base = 0, y_base = 0, ys = 1;
  if (rows > 1 && rs < 0) {  // Mat[::-1] v == (Mat v)[::-1]
    p->mat_shift += (rows - 1) * rs;
    rs = -rs;
    y_base = rows - 1;
    ys = -1;
  }
  if (cols > 1 && cs < 0) {  // Mat[:, ::-1] v == Mat v[::-1]
    p->mat_shift += (cols - 1) * cs;
    cs = -cs;
    v_base = (cols - 1) * vs;
    vs = -vs;
  }
  int64_t v_shift = 0, y_shift = 0;
  if (!blas_vector(cols, vs, &v_shift, &p->incx) || !blas_vector(rows, ys, &y_shift, &p->incy)) {
    return false;
  }
  p->vec_shift = v_base + v_shift;
  p->y_shift = y_base + y_shift;
  if (!gemm_layout(rows, cols, rs, cs, &p->trans, &p->ld)) return false;
  p->stored_rows = p->trans ? cols : rows;
  p->stored_cols = p->trans ? rows : cols;
  return true;
}

MatvecVerdict plan_matvec(const MatrixStack& A, const MatrixStack& B, const Shape& out_batch,
                          MatvecPlan* plan) {
  const int64_t M = A.rows, K = A.cols, N = B.cols;
  MatvecPlan& mp = *plan;
  mp = MatvecPlan{};
  mp.mat_is_a = N == 1;  // else M == 1: y = B^T a
  const MatrixStack& mat = mp.mat_is_a ? A : B;
  const MatrixStack& vec = mp.mat_is_a ? B : A;
  mp.ny = mp.mat_is_a ? M : N;
  // Mat's rows and columns: a's, or b's swapped (y = B^T a).
  const int64_t mrs = mp.mat_is_a ? A.rs : B.cs, mcs = mp.mat_is_a ? A.cs : B.rs;
  const int64_t vs = mp.mat_is_a ? B.rs : A.cs;
  if (!plan_gemv(mp.ny, K, mrs, mcs, vs, &mp.gemv)) {
    return K > 1 && vs == 0 ? MatvecVerdict::UseGemm : MatvecVerdict::CopyMatrix;
  }
  // One vector for the whole batch and the matrices' rows evenly spaced: one tall gemv.
  if (all_zero(vec.bstrides) && mp.mat_is_a && numel(out_batch) > 1) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (size_t d = 0; d < out_batch.size(); ++d) dims.push_back({out_batch[d], A.bstrides[d]});
    dims.push_back({M, A.rs});
    int64_t rows = 0, rstride = 0;
    GemvPlan tall;
    if (collapse_dims(dims, &rows, &rstride) && plan_gemv(rows, K, rstride, A.cs, B.rs, &tall) &&
        !tall.dot) {
      mp.gemv = tall;
      mp.folded = true;
      return MatvecVerdict::Planned;
    }
  }
  batch_offsets(out_batch, mat.bstrides, vec.bstrides, &mp.mat_off, &mp.vec_off);
  return MatvecVerdict::Planned;
}

}  // namespace nf
