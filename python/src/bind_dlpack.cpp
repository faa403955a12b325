// Zero-copy exchange with other array libraries: DLPack capsules out of and into numfuse arrays
// (legacy "dltensor" and versioned "dltensor_versioned"), foreign memory wrapped as a numfuse
// array (__cuda_array_interface__), and the stream hand-over both protocols ask for.
// python/numfuse/_exchange.py holds the protocols' argument rules; this file the memory.
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <cstdint>

#include "bindings.h"
#include "dlpack_abi.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/exchange.h"
#include "numfuse/graph/eval.h"

namespace nf::py {

namespace {

namespace dl = dlpack;

PyObject* buffer_error(const std::string& msg) {
  PyErr_SetString(PyExc_BufferError, msg.c_str());
  throw nb::python_error();
}

bool python_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

// ---- numfuse -> DLPack ---------------------------------------------------------------------------

dl::DataType dl_dtype(DType d) {
  uint8_t code = dl::kDLFloat;
  if (d == DType::Bool) code = dl::kDLBool;
  else if (is_unsigned(d)) code = dl::kDLUInt;
  else if (is_integer(d)) code = dl::kDLInt;
  else if (is_complex(d)) code = dl::kDLComplex;
  return {code, static_cast<uint8_t>(itemsize(d) * 8), 1};
}

// What a capsule lends: the storage (kept alive until the consumer calls the deleter), the
// shape and strides the DLTensor points to, and the managed tensor itself.
struct Export {
  std::shared_ptr<Storage> storage;
  bool counted = false;  // counted in storage->host_views: the consumer may write
  std::vector<int64_t> shape, strides;
  dl::ManagedTensorVersioned versioned{};
  dl::ManagedTensor legacy{};

  ~Export() {
    if (counted) storage->host_views.fetch_sub(1, std::memory_order_relaxed);
    if (!storage->device.is_cpu() && storage.use_count() == 1) {
      // The consumer's kernels may still read the memory on its own stream, which numfuse's
      // stream-ordered free does not wait for: the last lender waits for the device.
      try {
        cuda::device_synchronize(storage->device.index);
      } catch (...) {
      }
    }
  }
};

// The deleters may run on any thread, with or without the GIL: they touch no Python object
// (a storage that wraps Python-owned memory takes the GIL in its own release).
void delete_versioned(dl::ManagedTensorVersioned* m) { delete static_cast<Export*>(m->manager_ctx); }
void delete_legacy(dl::ManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); }

// A capsule nobody consumed owns its tensor; a consumer renames it "used_..." and owns it then.
void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, dl::kVersionedCapsule)) {
    auto* m = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(cap, dl::kVersionedCapsule));
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(cap, dl::kCapsule)) {
    auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(cap, dl::kCapsule));
    if (m && m->deleter) m->deleter(m);
  }
}

// The capsule of `a` (already on the device the consumer asked for). `stream` is the consumer's
// (-1: it asks for no synchronisation; CUDA arrays only, the Python side checks the rest).
// `minor`: the DLPack 1.x minor version the consumer reads at most (the layout is the same).
nb::object dlpack_export(const Array& a, bool versioned, bool copied, int64_t stream, uint32_t minor) {
  if (!versioned && !a.writeable) {
    buffer_error("a read-only array cannot be exported as a legacy DLPack capsule (no read-only "
                 "flag before DLPack 1.0): ask for max_version=(1, 0) or later");
  }
  const bool counted = a.writeable;
  auto ex = std::make_unique<Export>();
  ex->storage = a.storage;
  // Counted first, so that no reader recorded by another thread meanwhile is missed.
  if (counted) a.storage->host_views.fetch_add(1, std::memory_order_relaxed);
  ex->counted = counted;
  // The consumer may write at once: pending readers of the memory see the values of now, and
  // the array itself is computed (prepare_write materialises it too).
  if (counted) prepare_write(a);
  else eval(a, FlushReason::HostRead);
  if (!a.device().is_cpu() && stream != -1) {
    nb::gil_scoped_release release;
    cuda::order_external_after_ours(a.device().index, static_cast<cuda::ExternalStream>(stream));
  }
  ex->shape.assign(a.shape.begin(), a.shape.end());
  ex->strides.assign(a.strides.begin(), a.strides.end());
  dl::Tensor t{};
  t.data = a.data();  // element 0 (negative strides run below it), as NumPy and PyTorch export
  t.device = a.device().is_cpu() ? dl::Device{dl::kDLCPU, 0}
                                 : dl::Device{dl::kDLCUDA, a.device().index};
  t.ndim = a.ndim();
  t.dtype = dl_dtype(a.dtype);
  t.shape = ex->shape.data();
  t.strides = ex->strides.data();
  t.byte_offset = 0;
  void* managed = nullptr;
  if (versioned) {
    ex->versioned.version = {dl::kMajor, std::min(minor, dl::kMinor)};
    ex->versioned.manager_ctx = ex.get();
    ex->versioned.deleter = delete_versioned;
    ex->versioned.flags = (a.writeable ? 0 : dl::kFlagReadOnly) | (copied ? dl::kFlagIsCopied : 0);
    ex->versioned.dl_tensor = t;
    managed = &ex->versioned;
  } else {
    ex->legacy.dl_tensor = t;
    ex->legacy.manager_ctx = ex.get();
    ex->legacy.deleter = delete_legacy;
    managed = &ex->legacy;
  }
  PyObject* cap = PyCapsule_New(managed, versioned ? dl::kVersionedCapsule : dl::kCapsule,
                                capsule_destructor);
  if (!cap) throw nb::python_error();
  ex.release();  // the capsule owns it now
  return nb::steal(cap);
}

// ---- DLPack / foreign memory -> numfuse ---------------------------------------------------------

DType dtype_from_dl(const dl::DataType& t) {
  auto bad = [&]() -> DType {
    buffer_error("DLPack dtype (code " + std::to_string(t.code) + ", " + std::to_string(t.bits) +
                 " bits, " + std::to_string(t.lanes) + " lanes) has no numfuse dtype");
    return DType::Bool;
  };
  if (t.lanes != 1) return bad();
  switch (t.code) {
    case dl::kDLBool:
      return t.bits == 8 ? DType::Bool : bad();
    case dl::kDLInt:
      switch (t.bits) {
        case 8: return DType::Int8;
        case 16: return DType::Int16;
        case 32: return DType::Int32;
        case 64: return DType::Int64;
      }
      return bad();
    case dl::kDLUInt:
      switch (t.bits) {
        case 8: return DType::UInt8;
        case 16: return DType::UInt16;
        case 32: return DType::UInt32;
        case 64: return DType::UInt64;
      }
      return bad();
    case dl::kDLFloat:
      switch (t.bits) {
        case 16: return DType::Float16;
        case 32: return DType::Float32;
        case 64: return DType::Float64;
      }
      return bad();
    case dl::kDLComplex:
      switch (t.bits) {
        case 64: return DType::Complex64;
        case 128: return DType::Complex128;
      }
      return bad();
  }
  return bad();
}

// What a wrapped foreign buffer gives back when numfuse is done with it.
struct Lent {
  int cuda_device = -1;  // numfuse's work on it must finish first (its owner knows no stream of ours)
  dl::ManagedTensorVersioned* versioned = nullptr;
  dl::ManagedTensor* legacy = nullptr;
  PyObject* owner = nullptr;  // a __cuda_array_interface__ exporter, kept alive
};

// The producer's deleter and the owner's reference, with the GIL held.
int release_to_owner(void* p) {
  auto* lent = static_cast<Lent*>(p);
  if (lent->versioned && lent->versioned->deleter) lent->versioned->deleter(lent->versioned);
  if (lent->legacy && lent->legacy->deleter) lent->legacy->deleter(lent->legacy);
  Py_XDECREF(lent->owner);
  delete lent;
  return 0;
}

void give_back(void* p) {
  auto* lent = static_cast<Lent*>(p);
  if (lent->cuda_device >= 0 && cuda::cuda_available()) {
    try {
      cuda::finish_our_work(lent->cuda_device);
    } catch (...) {
    }
  }
  const bool python_needed = lent->versioned || lent->legacy || lent->owner;
  if (!python_needed) {
    delete lent;
    return;
  }
  // After the interpreter is gone nothing may run: the memory leaks.
  if (!python_alive()) return;
  if (PyGILState_Check()) {
    release_to_owner(lent);
    return;
  }
  // A thread without the GIL (an evaluation that released it, a worker) may hold the graph's
  // lock, which a thread holding the GIL may be waiting for: waiting for the GIL here could
  // deadlock. The interpreter runs the release at its next pending-call check instead.
  if (Py_AddPendingCall(release_to_owner, lent) != 0) {
    PyGILState_STATE g = PyGILState_Ensure();  // the queue is full: take the GIL after all
    release_to_owner(lent);
    PyGILState_Release(g);
  }
}

Device device_from_dl(const dl::Device& d) {
  switch (d.device_type) {
    case dl::kDLCPU:
    case dl::kDLCUDAHost:
      return Device::cpu();
    case dl::kDLCUDA:
    case dl::kDLCUDAManaged: {
      Device dev = Device::cuda(d.device_id);
      check_device_usable(dev);
      return dev;
    }
  }
  buffer_error("DLPack device type " + std::to_string(d.device_type) +
               " is not one numfuse reads (CPU 1, CUDA 2, CUDA host 3, CUDA managed 13)");
  return Device::cpu();
}

// An array over memory owned elsewhere: element 0 at `first`, `strides` in elements (any sign).
// `lent` (owned by the result from here on, also on error) gives the memory back.
Array wrap_foreign(char* first, const Shape& shape, const Strides& strides, DType dtype,
                   Device device, bool writeable, Lent* lent) {
  std::unique_ptr<Lent> guard(lent);
  const int64_t item = static_cast<int64_t>(itemsize(dtype));
  const int64_t align = is_complex(dtype) ? item / 2 : item;
  if (reinterpret_cast<uintptr_t>(first) % static_cast<uintptr_t>(align) != 0) {
    buffer_error("the memory is not aligned to its dtype (" + std::to_string(align) +
                 " bytes): numfuse's kernels read aligned elements only");
  }
  // The extent of the elements in memory, low and high, in elements from element 0.
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) empty = true;
    const int64_t reach = (shape[d] - 1) * strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  if (empty) lo = hi = 0;
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  a.strides = strides;
  a.byte_offset = -lo * item;
  a.writeable = writeable;
  a.is_view = true;  // NumPy's OWNDATA: the memory is another library's
  const size_t nbytes = empty ? 0 : static_cast<size_t>((hi - lo + 1) * item);
  a.storage = std::make_shared<Storage>();
  a.storage->nbytes = nbytes;
  a.storage->device = device;
  a.storage->buffer = Buffer::wrap(first + lo * item, nbytes, device, give_back, guard.release());
  // Its owner may write into it at any time, unseen by the graph: readers are evaluated when
  // recorded, as for memory numfuse lends to NumPy (graph/eval.cpp, FlushReason::HostView).
  a.storage->host_views.store(1, std::memory_order_relaxed);
  return a;
}

template <class Managed>
Array array_from_tensor(Managed* m, bool writeable, Lent* lent) {
  const dl::Tensor& t = m->dl_tensor;
  std::unique_ptr<Lent> guard(lent);
  if (t.ndim < 0 || t.ndim > 64) buffer_error("DLPack tensor of " + std::to_string(t.ndim) + " dimensions");
  DType dtype = dtype_from_dl(t.dtype);
  Device device = device_from_dl(t.device);
  Shape shape(t.shape, t.shape + t.ndim);
  Strides strides(t.ndim);
  if (t.strides) {
    std::copy(t.strides, t.strides + t.ndim, strides.begin());
  } else {
    strides = contiguous_strides(shape);
  }
  if (!device.is_cpu()) guard->cuda_device = device.index;
  char* first = static_cast<char*>(t.data) + t.byte_offset;
  return wrap_foreign(first, shape, strides, dtype, device, writeable, guard.release());
}

// Takes the tensor out of a capsule, renaming it as the protocol asks. Until the array is made
// the capsule owns the tensor (a failure leaves it so); from then on the array does.
Array dlpack_import(nb::handle capsule) {
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, dl::kVersionedCapsule)) {
    auto* m = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(cap, dl::kVersionedCapsule));
    if (m->version.major != dl::kMajor) {
      buffer_error("DLPack version " + std::to_string(m->version.major) + "." +
                   std::to_string(m->version.minor) + " is not supported (numfuse reads 1.x)");
    }
    auto* lent = new Lent{};
    Array a = array_from_tensor(m, (m->flags & dl::kFlagReadOnly) == 0, lent);
    lent->versioned = m;
    PyCapsule_SetName(cap, dl::kUsedVersionedCapsule);
    return a;
  }
  if (PyCapsule_IsValid(cap, dl::kCapsule)) {
    auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(cap, dl::kCapsule));
    auto* lent = new Lent{};
    Array a = array_from_tensor(m, true, lent);
    lent->legacy = m;
    PyCapsule_SetName(cap, dl::kUsedCapsule);
    return a;
  }
  if (PyCapsule_CheckExact(cap)) {
    const char* name = PyCapsule_GetName(cap);
    PyErr_Clear();
    throw ValueError(std::string("the DLPack capsule was already consumed (its name is '") +
                     (name ? name : "") + "'): a capsule can be read once");
  }
  throw TypeError("expected a DLPack capsule, got " +
                  nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(cap))))));
}

}  // namespace

void bind_dlpack(nb::module_& m) {
  m.def("_dlpack_export", &dlpack_export, nb::arg("a"), nb::arg("versioned"),
        nb::arg("copied"), nb::arg("stream"), nb::arg("minor") = dl::kMinor);
  m.def("_dlpack_import", &dlpack_import, nb::arg("capsule"));
  // An array over CUDA memory another library owns (__cuda_array_interface__): `owner` is kept
  // alive until numfuse is done with the memory. strides in bytes, None for C order.
  m.def("_wrap_cuda_memory",
        [](uintptr_t ptr, nb::handle shape_obj, nb::handle strides, nb::handle dtype, bool readonly,
           nb::handle owner) {
          const Shape shape = py_shape(shape_obj);
          DType dt = dtype_from_py(dtype);
          const int64_t item = static_cast<int64_t>(itemsize(dt));
          Strides st(shape.size());
          if (strides.is_none()) {
            st = contiguous_strides(shape);
          } else {
            auto bytes = nb::cast<std::vector<int64_t>>(strides);
            if (bytes.size() != shape.size()) throw ValueError("strides and shape differ in length");
            for (size_t i = 0; i < bytes.size(); ++i) {
              if (bytes[i] % item) {
                buffer_error("strides " + std::to_string(bytes[i]) +
                             " is not a multiple of the itemsize " + std::to_string(item));
              }
              st[i] = bytes[i] / item;
            }
          }
          int device = cuda::current_device();
          if (ptr != 0 && numel(shape) != 0) device = cuda::device_of_pointer(ptr);
          check_device_usable(Device::cuda(device));
          auto* lent = new Lent{};
          lent->cuda_device = device;
          lent->owner = owner.inc_ref().ptr();
          return wrap_foreign(reinterpret_cast<char*>(ptr), shape, st, dt, Device::cuda(device),
                              !readonly, lent);
        },
        nb::arg("ptr"), nb::arg("shape"), nb::arg("strides").none(), nb::arg("dtype"),
        nb::arg("readonly"), nb::arg("owner").none());
  // numfuse's next work on `device` waits for the producer's `stream` (CUDA array interface).
  m.def("_wait_for_external_stream", [](int device, uintptr_t stream) {
    nb::gil_scoped_release release;
    cuda::order_ours_after_external(device, stream);
  });
  // The stream numfuse enqueues on now for `device`, as the protocols name it (1: legacy default).
  m.def("_exchange_stream", [](int device) { return cuda::exchange_stream(device); });
  // The address of element 0 (a pending array is computed first: only then has it memory).
  m.def("_data_ptr", [](const Array& a) {
    eval(a, FlushReason::Explicit);
    return reinterpret_cast<uintptr_t>(a.data());
  });
}

}  // namespace nf::py
