// The DLPack ABI (dmlc/dlpack, include/dlpack/dlpack.h, version 1.1): the structs a capsule
// holds, declared here from the specification so that the build needs no dlpack header.
// "dltensor" capsules hold a DLManagedTensor (the legacy, unversioned layout); "dltensor_versioned"
// capsules hold a DLManagedTensorVersioned (DLPack >= 1.0: a version, flags, read-only arrays).
#pragma once
#include <cstdint>

namespace nf::py::dlpack {

constexpr uint32_t kMajor = 1;
constexpr uint32_t kMinor = 1;

struct Version {
  uint32_t major;
  uint32_t minor;
};

// DLDeviceType (a C enum: int32 sized).
enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,  // pinned host memory: the CPU reads it
  kDLCUDAManaged = 13,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

enum TypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: C-contiguous
  uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

constexpr uint64_t kFlagReadOnly = 1ull << 0;
constexpr uint64_t kFlagIsCopied = 1ull << 1;

struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";
constexpr const char* kVersionedCapsule = "dltensor_versioned";
constexpr const char* kUsedVersionedCapsule = "used_dltensor_versioned";

}  // namespace nf::py::dlpack
