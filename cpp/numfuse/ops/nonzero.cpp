// nonzero and count_nonzero (ops/advanced_indexing.h): their results' sizes depend on the values,
// so the input is evaluated. On the CPU a branch-free walk; on a CUDA device the count is a
// reduction, and nonzero's positions come from the cumulative count (a scan) of the truth values.
#include <algorithm>

#include "numfuse/backend/backend.h"
#include "numfuse/backend/cuda/gather_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/host_rows.h"
#include "numfuse/ops/reduction.h"
#include "numfuse/ops/scan.h"

namespace nf {

namespace {

template <class T>
bool truthy(const T& v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return v.real() != 0 || v.imag() != 0;
  } else if constexpr (std::is_same_v<T, half>) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != T(0);
  }
}

int64_t count_nonzero_cpu(const Array& a) {
  int64_t total = 0;
  NF_DISPATCH(a.dtype, "count_nonzero", {
    for_each_row<scalar_t>(a, [&](const scalar_t* p, int64_t n, int64_t st) {
      int64_t c = 0;
      if (st == 1) {
        for (int64_t i = 0; i < n; ++i) c += truthy(p[i]);  // vectorises
      } else {
        for (int64_t i = 0; i < n; ++i) c += truthy(p[i * st]);
      }
      total += c;
    });
  });
  return total;
}

std::vector<Array> nonzero_cpu(const Array& a) {
  const int64_t n = count_nonzero_cpu(a);
  const int nd = a.ndim();
  std::vector<Array> out;
  std::vector<int64_t*> ptr;
  for (int d = 0; d < nd; ++d) {
    out.push_back(Array::empty({n}, DType::Int64, a.device()));
    ptr.push_back(out.back().data_as<int64_t>());
  }
  if (n == 0) return out;
  // Branch-free: every element writes its index, and only a nonzero one advances the cursor
  // (the slot past the end takes the last write, hence the extra element). Rows along the last
  // dim; the outer dims' indices are filled per row.
  Array last = Array::empty({n + 1}, DType::Int64, a.device());
  int64_t* lp = last.data_as<int64_t>();
  std::vector<int64_t> outer(nd, 0);
  int64_t k = 0;
  const int64_t inner = a.shape[nd - 1];
  NF_DISPATCH(a.dtype, "nonzero", {
    for_each_row<scalar_t>(a, [&](const scalar_t* p, int64_t len, int64_t st) {
      // A run may span several rows (contiguous arrays come as one run): split it.
      for (int64_t done = 0; done < len;) {
        const int64_t j0 = outer[nd - 1];
        const int64_t m = std::min(len - done, inner - j0);
        const int64_t k0 = k;
        const scalar_t* q = p + done * st;
        int64_t kk = k;  // a local: a captured reference could alias the stores
        if (st == 1) {
          for (int64_t i = 0; i < m; ++i) {
            lp[kk] = j0 + i;
            kk += truthy(q[i]);
          }
        } else {
          for (int64_t i = 0; i < m; ++i) {
            lp[kk] = j0 + i;
            kk += truthy(q[i * st]);
          }
        }
        k = kk;
        for (int d = 0; d + 1 < nd; ++d) std::fill(ptr[d] + k0, ptr[d] + k, outer[d]);
        done += m;
        outer[nd - 1] += m;
        for (int d = nd - 1; d > 0 && outer[d] == a.shape[d]; --d) {
          outer[d] = 0;
          ++outer[d - 1];
        }
      }
    });
  });
  std::copy(lp, lp + n, ptr[nd - 1]);
  return out;
}

// On a device: the inclusive count of truth values in C order, whose last element is the total;
// each element where it steps writes its coordinates at (its count - 1).
std::vector<Array> nonzero_cuda(const Array& a) {
  const int nd = a.ndim();
  std::vector<Array> out;
  if (a.size() == 0) {
    for (int d = 0; d < nd; ++d) out.push_back(Array::empty({0}, DType::Int64, a.device()));
    return out;
  }
  Array pos = scan(ScanOp::CumSum, astype(a, DType::Bool, false), std::nullopt, DType::Int64);
  eval(pos, FlushReason::DataDependent);
  const int64_t n = read_int64(pos.view({}, {}, pos.byte_offset + (pos.size() - 1) * 8));
  for (int d = 0; d < nd; ++d) out.push_back(Array::empty({n}, DType::Int64, a.device()));
  cuda::nonzero_coords(pos, a.shape, out);
  return out;
}

}  // namespace

int64_t read_int64(const Array& a) {
  eval(a, FlushReason::DataDependent);
  if (a.dtype == DType::Int64 && a.device().is_cpu()) return *a.data_as<int64_t>();
  Array host = Array::empty({}, DType::Int64, Device::cpu());
  backend::copy_into(a, host);
  return *host.data_as<int64_t>();
}

int64_t count_nonzero(const Array& a) {
  if (a.device().is_cpu()) {
    eval(a, FlushReason::DataDependent);
    return count_nonzero_cpu(a);
  }
  // A pending input joins the reduction's group instead of being stored first.
  ReduceOptions opts;
  opts.dtype = DType::Int64;
  return read_int64(reduce(ReduceOp::Sum, astype(a, DType::Bool, false), opts));
}

std::vector<Array> nonzero(const Array& a) {
  if (a.ndim() == 0) {
    throw ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar)."
                     "nonzero() instead.");
  }
  if (!a.device().is_cpu()) return nonzero_cuda(a);
  eval(a, FlushReason::DataDependent);
  return nonzero_cpu(a);
}

}  // namespace nf
