#include "numfuse/backend/backend.h"

#include "numfuse/core/error.h"
#include "numfuse/ir/elementwise_node.h"

namespace nf {

Backend::Backend(Device::Kind kind, std::string devices)
    : kind_(kind), devices_(std::move(devices)) {}

Backend::~Backend() = default;

std::shared_ptr<Buffer> Backend::allocate(size_t nbytes, int device) {
  throw NotImplementedError("allocation on " + devices_ + " is not implemented");
}

uint64_t Backend::allocation_capacity(int device) const { return UINT64_MAX; }

int64_t Backend::kernel_param_bytes(int64_t rank, int arrays, int scalars, int generators) const {
  // codegen_elementwise.cpp's layout: per array a pointer and a stride row over the group's rank,
  // an output besides the inputs, 16 bytes per scalar, 64 per generator. The CPU interpreter has no
  // such limit but keeps this one, so that a program cuts into the same groups on every device.
  return 16 + 8 * rank + int64_t(arrays + 2) * (8 + 8 * rank) + 16 * (scalars + 1) +
         64 * generators;
}

int64_t Backend::count_nonzero(const Array& a) {
  throw NotImplementedError("count_nonzero in one pass is not implemented on " + devices_);
}

std::vector<Array> Backend::nonzero(const Array& a, int64_t n) {
  throw NotImplementedError("nonzero in one pass is not implemented on " + devices_);
}

std::vector<Array> Backend::nonzero_from_cumsum(const Array& pos, const Shape& shape, int64_t n) {
  throw NotImplementedError("nonzero from a cumsum is not implemented on " + devices_);
}

void Backend::mask_select(const Array&, const Array&, const Array&) {
  throw NotImplementedError("boolean masks at the call are not implemented on " + devices_);
}

void Backend::mask_store(const Array&, const Array&, const Array&, bool) {
  throw NotImplementedError("boolean masks at the call are not implemented on " + devices_);
}

void Backend::eval_node(Node& node, const std::vector<Array>& outs) {
  const std::type_index type(typeid(node));
  // The same type_info object first: type_info's == compares the names with strcmp, a call for
  // every kind registered before the node's (~20 ns of `out[i] = v @ M` per step).
  for (const auto& [t, eval] : node_evals_) {
    if (t.name() == type.name()) {
      eval(node, outs);
      return;
    }
  }
  for (const auto& [t, eval] : node_evals_) {  // a type_info of another shared object
    if (t == type) {
      eval(node, outs);
      return;
    }
  }
  if (node.kind() == NodeKind::Elementwise) {
    run_program(single_node_program(static_cast<ElementwiseNode*>(&node), outs));
    return;
  }
  throw NotImplementedError("'" + node.name() + "' is not implemented on " + devices_ + " yet");
}

namespace backend {

void copy_into(const Array& src, const Array& dst) {
  // The device side's backend moves the data (a transfer, a device copy); host to host is the
  // CPU's.
  const Device d = dst.device().is_cpu() ? src.device() : dst.device();
  backend_for(d).copy(src, dst);
}

}  // namespace backend

}  // namespace nf
