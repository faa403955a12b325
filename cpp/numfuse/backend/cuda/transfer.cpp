// Copies between arrays when a CUDA device is involved: transfers in both directions, copies on
// one device and between devices (CudaBackend::copy).
#include "numfuse/backend/cuda/transfer.h"

#include "numfuse/backend/cpu/elementwise_cpu.h"
#include "numfuse/backend/cuda/exchange.h"
#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/backend/cuda/fused_cuda.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/core/error.h"
#include "numfuse/core/fp_status.h"

namespace nf::cuda {

namespace {

cuda::CUdeviceptr dptr(const Array& a) { return reinterpret_cast<cuda::CUdeviceptr>(a.data()); }

// A host 0-d array is a kernel parameter: it reaches any device without a transfer.
bool host_scalar(const Array& a) { return a.device().is_cpu() && a.ndim() == 0; }

// host -> device: the host side is made contiguous in its own dtype first (on the host), sent
// with one transfer, and broadcast / cast / scattered into dst's strides on the device.
void host_to_device(const Array& src, const Array& dst, FpState cast_state) {
  const cuda::Stream s = cuda::enqueue_stream(dst.device().index);
  Array host = src;
  if (!src.c_contiguous()) {
    host = Array::empty(src.shape, src.dtype, Device::cpu());
    cpu::copy_cast(src, host);
  }
  if (src.dtype == dst.dtype && src.shape == dst.shape && dst.c_contiguous()) {
    cuda::copy_host_to_device(dptr(dst), host.data(), dst.nbytes(), s, /*blocking=*/false);
    return;
  }
  Array staged = Array::empty(src.shape, src.dtype, dst.device());
  cuda::copy_host_to_device(dptr(staged), host.data(), staged.nbytes(), s, /*blocking=*/false);
  cuda::copy_on_device(staged, dst, cast_state);
}

// device -> host: a contiguous device copy in src's dtype, one transfer (which waits for the
// stream), then cast / broadcast / scatter on the host.
void device_to_host(const Array& src, const Array& dst) {
  const int device = src.device().index;
  Array dense = src;
  if (!src.c_contiguous()) {
    dense = Array::empty(src.shape, src.dtype, src.device());
    cuda::copy_on_device(src, dense);
  }
  const cuda::Stream s = cuda::enqueue_stream(device);
  if (src.dtype == dst.dtype && src.shape == dst.shape && dst.c_contiguous()) {
    cuda::copy_device_to_host(dst.data(), dptr(dense), dst.nbytes(), s);
    return;
  }
  Array host = Array::empty(src.shape, src.dtype, Device::cpu());
  cuda::copy_device_to_host(host.data(), dptr(dense), host.nbytes(), s);
  cpu::copy_cast(host, dst);
}

// Between two GPUs: one peer copy of src's bytes (made dense on its own device first), then
// broadcast / cast / scatter into dst's strides on dst's device. cuMemcpyPeerAsync goes over
// NVLink or PCIe directly where peer access is possible and is staged by the driver otherwise.
void device_to_device(const Array& src, const Array& dst, FpState cast_state) {
  Array dense = src;
  if (!src.c_contiguous()) {
    dense = Array::empty(src.shape, src.dtype, src.device());
    cuda::copy_on_device(src, dense);
  }
  const bool direct = src.dtype == dst.dtype && src.shape == dst.shape && dst.c_contiguous();
  Array landed = direct ? dst : Array::empty(src.shape, src.dtype, dst.device());
  cuda::copy_peer(dptr(landed), dst.device().index, dptr(dense), src.device().index,
                  landed.nbytes());
  if (!direct) cuda::copy_on_device(landed, dst, cast_state);
}

}  // namespace

void copy_between(const Array& src, const Array& dst) {
  const Device sd = src.device(), dd = dst.device();
  if (dst.size() == 0) return;
  // A device's cast is checked by its kernel (when the GPU's checks are on), in the errstate of
  // this call; the flags reach the host with the next read. A host cast, as the CPU's is.
  const FpState cast_state = src.dtype == dst.dtype ? 0 : current_fp_state();
  if (dd.is_cpu()) {
    run_checked_host_cast([&] { device_to_host(src, dst); });
    // The read synchronised the device: the flags its kernels set are final (numpy.errstate).
    cuda::collect_fp_flags(sd.index);
    fp_report_if_outermost();
  } else if (sd == dd || host_scalar(src)) {
    cuda::copy_on_device(src, dst, cast_state);
  } else if (sd.is_cpu()) {
    host_to_device(src, dst, cast_state);
  } else {
    device_to_device(src, dst, cast_state);
  }
}

}  // namespace nf::cuda
