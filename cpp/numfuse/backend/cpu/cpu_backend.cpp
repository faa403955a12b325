#include "numfuse/backend/cpu/cpu_backend.h"

#include <cstring>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cpu/express_cpu.h"
#include "numfuse/backend/cpu/fused_cpu.h"
#include "numfuse/backend/cpu/gather_cpu.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/mask_cpu.h"
#include "numfuse/backend/cpu/nonzero_cpu.h"
#include "numfuse/backend/cpu/reduce_cpu.h"
#include "numfuse/backend/cpu/reduce_fused_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/backend/matmul_plan.h"
#include "numfuse/core/fp_status.h"
#include "numfuse/core/type_resolution.h"

namespace nf::cpu {

namespace {

// Where BLAS starts reading a vector of n elements whose element 0 is at p and whose increment
// is *inc: its lowest address (blas_vector's shift); *inc as BLAS takes it. nullptr for a vector
// BLAS cannot read (a zero increment).
const void* blas_start(DType dt, int64_t n, const void* p, int64_t* inc) {
  int64_t shift = 0;
  if (!blas_vector(n, *inc, &shift, inc)) return nullptr;
  return static_cast<const char*>(p) + shift * static_cast<int64_t>(itemsize(dt));
}

template <class T>
void fill_as(const void* value, void* dst, int64_t n) {
  T v;
  std::memcpy(&v, value, sizeof v);
  T* d = static_cast<T*>(dst);
  for (int64_t k = 0; k < n; ++k) d[k] = v;
}

// dst[0, n) = the one element at value, for item sizes of 1, 2, 4 and 8 bytes (false otherwise).
bool fill_small(const void* value, void* dst, int64_t n, size_t itemsize) {
  switch (itemsize) {
    case 1: fill_as<uint8_t>(value, dst, n); return true;
    case 2: fill_as<uint16_t>(value, dst, n); return true;
    case 4: fill_as<uint32_t>(value, dst, n); return true;
    case 8: fill_as<uint64_t>(value, dst, n); return true;
    default: return false;
  }
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() : Backend(Device::Kind::CPU, "the CPU") {
    add_node_eval<UFuncNode, eval_ufunc>();
    add_node_eval<ReduceNode, eval_reduce>();
    add_node_eval<ScanNode, eval_scan>();
    add_node_eval<GatherNode, eval_gather>();
    add_node_eval<MatmulNode, eval_matmul>();
    add_node_eval<FftNode, eval_fft>();
    add_node_eval<LinalgNode, eval_linalg>();
    add_node_eval<SortNode, eval_sort>();
    add_node_eval<SearchSortedNode, eval_searchsorted>();
    add_node_eval<UniqueNode, eval_unique>();
    add_node_eval<BinCountNode, eval_bincount>();
    add_node_eval<InterpNode, eval_interp>();
    add_node_eval<CorrelateNode, eval_correlate>();
    add_node_eval<RandomDistNode, eval_random_dist>();
    add_node_eval<GeneratorNode, eval_generator>();
  }

  void after_fork_child() override { thread_pool_after_fork_child(); }

  void copy(const Array& src, const Array& dst) override {
    if (src.dtype == dst.dtype && src.shape == dst.shape && src.c_contiguous() && dst.c_contiguous() &&
        dst.nbytes() <= (size_t(1) << 20)) {
      // The same bytes in the same order (a row into a row): no cast, no flags, no setup pass
      // (larger copies keep copy_cast, which splits them between threads).
      // memmove: the caller allows src and dst to be one mapping (x[:] = x).
      if (src.data() != dst.data()) std::memmove(dst.data(), src.data(), dst.nbytes());
      return;
    }
    if (src.dtype == dst.dtype && src.ndim() == 0 && dst.c_contiguous() && dst.nbytes() <= (size_t(1) << 20) &&
        fill_small(src.data(), dst.data(), dst.size(), dst.itemsize())) {
      return;  // a row set to one value (`out[i, :] = 0.0`)
    }
    // An assignment that casts (a[:] = floats into ints) warns as NumPy's astype does.
    run_checked_host_cast([&] { copy_cast(src, dst); });
    fp_report_if_outermost();
  }

  void run_program(const GroupProgram& program) override { cpu::run_program(program); }
  bool run_ufunc_now(UFunc op, const DType* in_loop, const DType* out_loop, const void* const* in,
                     void* const* out, const Shape& shape, const Strides* strides, bool fresh_outputs) override {
    return run_ufunc_express(op, in_loop, out_loop, in, out, shape, strides, fresh_outputs);
  }
  bool run_reduce_now(const ReduceSpec& spec, const Array& in, const Array& out) override {
    fp_hw_take();  // earlier work's flags are not this reduction's
    if (spec.op == ReduceOp::Var) {
      variance(spec, in, out);
    } else {
      reduce(spec, in, out);
    }
    return fp_hw_take() == 0;
  }

  bool run_vector_dot_now(DType dt, int64_t n, const void* x, int64_t incx, const void* y,
                          int64_t incy, void* out) override {
    const void* xb = blas_start(dt, n, x, &incx);
    const void* yb = blas_start(dt, n, y, &incy);
    return xb && yb && cpu::dot(dt, n, xb, incx, yb, incy, out);
  }

  bool run_matvec_now(DType dt, bool trans, int64_t rows, int64_t cols, const void* A, int64_t lda,
                      const void* x, int64_t incx, void* y) override {
    const void* xb = blas_start(dt, trans ? rows : cols, x, &incx);
    return xb && cpu::gemv(dt, trans, rows, cols, A, lda, xb, incx, y, 1);
  }

  bool run_reduction_program(ReduceNode& red, const GroupProgram& prologue, const Array& out,
                             const GroupProgram* epilogue) override {
    cpu::run_reduction_program(red.spec, prologue, out, red.fp_state);
    return false;  // the epilogue is a program of its own
  }

  void scatter(const Array& values, const GatherGeometry& g, const Array& dst) override {
    cpu::scatter(values, g, dst);
  }

  int64_t count_nonzero(const Array& a) override { return cpu::count_nonzero(a); }
  bool has_eager_masks() const override { return true; }
  void mask_select(const Array& a, const Array& mask, const Array& out) override {
    cpu::mask_select(a, mask, out);
  }
  void mask_store(const Array& a, const Array& mask, const Array& v, bool per_true) override {
    cpu::mask_store(a, mask, v, per_true);
  }

  std::vector<Array> nonzero(const Array& a, int64_t n) override { return cpu::nonzero(a, n); }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace nf::cpu
