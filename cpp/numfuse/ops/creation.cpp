#include "numfuse/ops/creation.h"

#include <cstring>

#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/node.h"

namespace nf {

namespace {

struct FillNode : Node {
  unsigned char value[16];
  NodeKind kind() const override { return NodeKind::Source; }
  std::string name() const override { return "fill"; }
  void eval_cuda(const std::vector<Array>& outs) override { cuda::fill(outs[0], value); }
  void eval_cpu(const std::vector<Array>& outs) override {
    const Array& o = outs[0];
    const size_t size = o.itemsize();
    char* base = o.data();
    bool zero = true;
    for (size_t i = 0; i < size; ++i) zero &= value[i] == 0;
    cpu::parallel_for(o.size(), 1 << 16, [&](int64_t b, int64_t e) {
      if (zero) {
        std::memset(base + b * size, 0, static_cast<size_t>(e - b) * size);
        return;
      }
      NF_DISPATCH(o.dtype, "fill", {
        scalar_t v;
        std::memcpy(&v, value, sizeof(v));
        scalar_t* p = reinterpret_cast<scalar_t*>(base);
        for (int64_t i = b; i < e; ++i) p[i] = v;
      });
    });
  }
};

// start + i*step, computed in double (or int64 for integer dtypes), then cast.
struct ArangeNode : Node {
  double start = 0, step = 1;
  NodeKind kind() const override { return NodeKind::Source; }
  std::string name() const override { return "arange"; }
  void eval_cuda(const std::vector<Array>& outs) override { cuda::arange(outs[0], start, step); }
  void eval_cpu(const std::vector<Array>& outs) override {
    const Array& o = outs[0];
    char* base = o.data();
    cpu::parallel_for(o.size(), 1 << 16, [&](int64_t b, int64_t e) {
      NF_DISPATCH(o.dtype, "arange", {
        scalar_t* p = reinterpret_cast<scalar_t*>(base);
        if constexpr (std::is_integral_v<scalar_t>) {
          int64_t s = static_cast<int64_t>(start), st = static_cast<int64_t>(step);
          for (int64_t i = b; i < e; ++i) p[i] = static_cast<scalar_t>(s + i * st);
        } else {
          for (int64_t i = b; i < e; ++i) p[i] = scalar_t(start + static_cast<double>(i) * step);
        }
      });
    });
  }
};

struct EyeNode : Node {
  int64_t k = 0;
  NodeKind kind() const override { return NodeKind::Source; }
  std::string name() const override { return "eye"; }
  void eval_cuda(const std::vector<Array>& outs) override { cuda::eye(outs[0], k); }
  void eval_cpu(const std::vector<Array>& outs) override {
    const Array& o = outs[0];
    const int64_t cols = o.shape[1];
    std::memset(o.data(), 0, o.nbytes());
    NF_DISPATCH(o.dtype, "eye", {
      scalar_t* p = o.data_as<scalar_t>();
      scalar_t one = scalar_t(1);
      for (int64_t r = 0; r < o.shape[0]; ++r) {
        int64_t c = r + k;
        if (c >= 0 && c < cols) p[r * cols + c] = one;
      }
    });
  }
};

void check_shape(const Shape& shape) {
  for (int64_t s : shape) {
    if (s < 0) throw ValueError("negative dimensions are not allowed");
  }
}

}  // namespace

Array full(const Shape& shape, DType dtype, const void* value, Device device) {
  check_shape(shape);
  auto node = std::make_shared<FillNode>();
  node->device = device;
  std::memset(node->value, 0, sizeof(node->value));
  std::memcpy(node->value, value, itemsize(dtype));
  return make_pending(node, dtype, shape);
}

Array zeros(const Shape& shape, DType dtype, Device device) {
  unsigned char z[16] = {};
  return full(shape, dtype, z, device);
}

Array ones(const Shape& shape, DType dtype, Device device) {
  unsigned char v[16] = {};
  NF_DISPATCH(dtype, "ones", {
    scalar_t one = scalar_t(1);
    std::memcpy(v, &one, sizeof(one));
  });
  return full(shape, dtype, v, device);
}

Array arange(double start, double step, int64_t n, DType dtype, Device device) {
  if (n < 0) n = 0;
  auto node = std::make_shared<ArangeNode>();
  node->device = device;
  node->start = start;
  node->step = step;
  return make_pending(node, dtype, {n});
}

Array eye(int64_t rows, int64_t cols, int64_t k, DType dtype, Device device) {
  check_shape({rows, cols});
  auto node = std::make_shared<EyeNode>();
  node->device = device;
  node->k = k;
  return make_pending(node, dtype, {rows, cols});
}

}  // namespace nf
