// NumPy's rule for numfuse in the core (issue 15): an op of host 0-d arrays stays on the host
// (only Python scalars alone go to the default device), the default-device trap the Python tests
// use to stand in for a GPU machine, and the opaque ops' device check.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "numfuse/core/device.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/same_device.h"

using namespace nf;

namespace {

// Traps the default device for one test (and releases it when the test fails).
struct Trapped {
  Trapped() { set_default_device_trap(true); }
  ~Trapped() { set_default_device_trap(false); }
};

// An array that says it lives on cuda:0, never read: enough for device checks without a GPU.
Array on_cuda_without_memory() {
  Array a;
  a.shape = {3};
  a.strides = {1};
  a.storage = std::make_shared<Storage>();
  a.storage->device = Device::cuda(0);
  a.storage->nbytes = 24;
  return a;
}

}  // namespace

TEST(DeviceRule, TrapRaisesUnlessTheThreadChoseADevice) {
  Trapped trap;
  EXPECT_THROW(default_device(), Error);
  push_thread_device(Device::cpu());
  EXPECT_TRUE(default_device().is_cpu());  // a function following its operands pushed it
  pop_thread_device();
  EXPECT_THROW(default_device(), Error);
}

TEST(DeviceRule, HostZeroDimensionalArraysStayOnTheHost) {
  const double two = 2.0;
  Array host0 = Array::scalar(&two, DType::Float64);
  Trapped trap;  // the default device is never asked for: the 0-d array decides
  Array r = ufunc2(UFunc::Add, Operand::of(host0), Operand::py_float(1.0));
  EXPECT_TRUE(r.device().is_cpu());
  // Python scalars alone have no array to follow: they ask for the default device.
  EXPECT_THROW(ufunc2(UFunc::Add, Operand::py_float(1.0), Operand::py_int(2)), Error);
}

TEST(DeviceRule, OpaqueOpsNameTheDevicesTheyRefuse) {
  const Array cpu = Array::empty({3}, DType::Float64, Device::cpu());
  const Array gpu = on_cuda_without_memory();
  EXPECT_NO_THROW(require_same_device("interp", cpu, cpu));
  try {
    require_same_device("interp", cpu, gpu);
    FAIL() << "mixing devices did not raise";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "interp: arrays are on different devices: cpu and cuda:0; move one with asarray(x, "
              "device=...)");
  }
  EXPECT_THROW(require_same_device("random", Device::cuda(0), cpu), ValueError);
}
