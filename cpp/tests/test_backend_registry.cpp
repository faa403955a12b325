// The Backend registry (backend/backend.h): every device kind finds its backend, a node kind a
// backend has no evaluation for fails by name, and elementwise kinds need none.
#include <gtest/gtest.h>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/ir/node.h"

using namespace nf;

namespace {

// A node kind no backend knows: what a family gets before its backend files exist.
struct UnknownNode : Node {
  NodeKind kind() const override { return NodeKind::Opaque; }
  std::string name() const override { return "unknown_op"; }
};

Array vec(std::vector<double> v) {
  Array a = Array::empty({int64_t(v.size())}, DType::Float64, Device::cpu());
  for (size_t i = 0; i < v.size(); ++i) a.data_as<double>()[i] = v[i];
  return a;
}

}  // namespace

TEST(BackendRegistry, EveryDeviceKindHasItsBackend) {
  EXPECT_EQ(backend_for(Device::cpu()).kind(), Device::Kind::CPU);
  EXPECT_TRUE(backend_for(Device::cpu()).available());
  ASSERT_NE(find_backend(Device::Kind::CUDA), nullptr);
  EXPECT_EQ(find_backend(Device::Kind::CUDA)->kind(), Device::Kind::CUDA);
  ASSERT_EQ(backends().size(), 2u);
  EXPECT_EQ(backends()[0], &backend_for(Device::Kind::CPU));  // the CPU's first (fork order)
  // CUDA's availability is the driver's: a machine without a GPU says why.
  const Backend& cuda = *find_backend(Device::Kind::CUDA);
  EXPECT_EQ(cuda.available(), cuda.unavailable_reason().empty());
}

TEST(BackendRegistry, AnUnknownNodeKindFailsNamingTheOpAndTheDevices) {
  UnknownNode n;
  n.device = Device::cpu();
  n.done = true;  // never registered with the graph: its destructor must not count it
  std::vector<Array> outs = {Array::empty({1}, DType::Float64, Device::cpu())};
  try {
    backend_for(Device::cpu()).eval_node(n, outs);
    FAIL() << "no evaluation is registered for UnknownNode";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("'unknown_op'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the CPU"), std::string::npos) << e.what();
  }
  try {
    find_backend(Device::Kind::CUDA)->eval_node(n, outs);
    FAIL() << "no evaluation is registered for UnknownNode";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA devices"), std::string::npos) << e.what();
  }
}

TEST(BackendRegistry, AnElementwiseKindWithoutAnEntryRunsAsAProgramOfOneStep) {
  // CopyNode has no entry of its own on the CPU: it runs through run_program.
  auto node = std::make_shared<CopyNode>();
  node->device = Device::cpu();
  node->done = true;  // never registered with the graph: its destructor must not count it
  node->inputs = {vec({1.5, -2.0, 3.25})};
  node->out_dtypes = {DType::Float64};
  node->out_shapes = {Shape{3}};
  std::vector<Array> outs = {Array::empty({3}, DType::Float64, Device::cpu())};
  backend_for(Device::cpu()).eval_node(*node, outs);
  EXPECT_EQ(outs[0].data_as<double>()[0], 1.5);
  EXPECT_EQ(outs[0].data_as<double>()[1], -2.0);
  EXPECT_EQ(outs[0].data_as<double>()[2], 3.25);
}

TEST(BackendRegistry, TheParameterBoundIsTheSameOnEveryDevice) {
  // The CPU keeps the generated kernel's bound so that programs cut into the same groups.
  const Backend& cpu = backend_for(Device::Kind::CPU);
  const Backend& cuda = *find_backend(Device::Kind::CUDA);
  for (int64_t rank : {0, 1, 4}) {
    for (int arrays : {1, 8, 40}) {
      EXPECT_EQ(cpu.kernel_param_bytes(rank, arrays, 3, 1),
                cuda.kernel_param_bytes(rank, arrays, 3, 1));
    }
  }
  EXPECT_LT(cpu.kernel_param_bytes(2, 1, 0, 0), cpu.kernel_param_bytes(2, 2, 0, 0));
}
