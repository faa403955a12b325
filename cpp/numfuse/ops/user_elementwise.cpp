#include "numfuse/ops/user_elementwise.h"

#include "numfuse/core/device.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/elementwise.h"

namespace nf {

namespace {

bool is_host_scalar(const Array& a) { return a.ndim() == 0 && a.device().is_cpu(); }

}  // namespace

std::vector<Array> user_elementwise(const UserElementwiseDef* def, const std::vector<Array>& args,
                                    const std::vector<DType>& out_dtypes, const Shape& shape,
                                    const std::vector<std::optional<Array>>& outs) {
  const std::string who = "ElementwiseKernel '" + def->name + "'";
  if (args.size() != def->args.size() || out_dtypes.size() != def->out_names.size()) {
    throw ValueError(who + ": " + std::to_string(args.size()) + " step arguments for " +
                     std::to_string(def->args.size()));
  }
  std::optional<Device> device;
  auto on_device = [&](const Array& a, const std::string& name) {
    if (a.device().is_cpu()) {
      throw CUDAError(who + ": '" + name + "' is a numfuse array on the CPU (NUMFUSE_DEVICE=cpu, "
                      "or no GPU): CUDA C++ kernels run on a CUDA device");
    }
    if (device && *device != a.device()) {
      throw ValueError(who + ": '" + name + "' is on " + a.device().str() + ", other arguments on " +
                       device->str());
    }
    device = a.device();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const Array& a = args[i];
    const auto& arg = def->args[i];
    if (is_host_scalar(a)) continue;
    on_device(a, arg.name);
    if (broadcast_shapes(a.shape, shape) != shape) {
      throw ValueError(who + ": '" + arg.name + "' of shape " + shape_str(a.shape) +
                       " does not broadcast to the index space " + shape_str(shape));
    }
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!outs[j]) continue;
    on_device(*outs[j], def->out_names[j]);
    if (outs[j]->shape != shape) {
      throw ValueError(who + ": output '" + def->out_names[j] + "' has shape " +
                       shape_str(outs[j]->shape) + ", the index space is " + shape_str(shape));
    }
    if (!outs[j]->writeable) throw ValueError(who + ": output '" + def->out_names[j] + "' is read-only");
  }
  if (!device) device = default_device();
  if (device->is_cpu()) {
    throw CUDAError(who + " needs a CUDA device; the default device is the CPU (NUMFUSE_DEVICE=cpu, or no GPU)");
  }
  check_device_usable(*device);

  auto node = std::make_shared<UserElementwiseNode>();
  node->def = def;
  node->device = *device;
  for (const Array& a : args) {
    node->in_loop.push_back(a.dtype);
    node->inputs.push_back(a);
  }
  node->out_loop.assign(out_dtypes.begin(), out_dtypes.end());
  std::vector<Shape> shapes(out_dtypes.size(), shape);
  std::vector<Array> results = make_pending(node, out_dtypes, shapes);
  for (size_t j = 0; j < outs.size() && j < results.size(); ++j) {
    if (!outs[j]) continue;
    assign(*outs[j], results[j], Casting::Unsafe, /*src_is_temporary=*/results.size() == 1);
    results[j] = *outs[j];
  }
  return results;
}

}  // namespace nf
