#include "numfuse/backend/cuda/svd_polar_cuda.h"

#include <algorithm>
#include <vector>

#include "numfuse/backend/cuda/launch.h"
#include "numfuse/core/array.h"

namespace nf::cuda {

bool polar_svd_applies(DType dt, int64_t rows, int64_t cols) {
  if (dt != DType::Float32 && dt != DType::Float64) return false;  // V^H would need a conjugation
  if (std::min(rows, cols) < kPolarSvdMinK) return false;
  return xgesvdp_api() != nullptr;
}

double polar_svd(cusolverDnHandle_t h, int device, DType dt, int64_t rows, int64_t cols, void* a,
                 void* s, void* u, void* v, bool econ, int* info) {
  const XgesvdpApi& x = *xgesvdp_api();
  const int type = dt == DType::Float32 ? kCudaR32F : kCudaR64F;
  const int jobz = kEigModeVector;  // without vectors: CUSOLVER_STATUS_INTERNAL_ERROR (CUDA 13.0)
  size_t device_bytes = 0, host_bytes = 0;
  check_solver(x.bufferSize(h, x.params, jobz, econ ? 1 : 0, rows, cols, type, a, rows, type, s,
                            type, u, rows, type, v, cols, type, &device_bytes, &host_bytes),
               "cusolverDnXgesvdp_bufferSize");
  const Array work = Array::empty(Shape{int64_t(std::max<size_t>(1, device_bytes))}, DType::UInt8,
                                  Device::cuda(device));
  std::vector<unsigned char> host_work(std::max<size_t>(1, host_bytes));
  double err_sigma = 0.0;
  check_solver(x.gesvdp(h, x.params, jobz, econ ? 1 : 0, rows, cols, type, a, rows, type, s, type,
                        u, rows, type, v, cols, type, work.data(), device_bytes, host_work.data(),
                        host_bytes, info, &err_sigma),
               "cusolverDnXgesvdp");
  // err_sigma is written on the host by the call; the stream's end makes sure of it (and keeps
  // `work` alive until the call's kernels are done).
  enqueue_stream(device).synchronize();
  return err_sigma;
}

}  // namespace nf::cuda
