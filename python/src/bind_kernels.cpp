// numfuse._core.kernels: users' CUDA C++ kernels (RawKernel, RawModule, SourceModule and the
// translator's sources): compilation through NVRTC and the kernel cache, and the launch, whose
// argument conversion is here in C++ because it is the whole host cost of a small kernel.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>

#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>

#include "bindings.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/user_kernels.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/user_elementwise.h"

namespace nf::py {

namespace {

using namespace nf::cuda;

// What one kernel parameter takes, when the kernel's signature could be read.
struct ParamSpec {
  std::string name;
  char kind = '?';  // 'p' pointer, 's' scalar of `dtype`, '?' unknown (a struct, a template T)
  DType dtype = DType::Int64;
};

// A kernel of a UserModule, loaded lazily on each device it is launched on.
struct Function {
  std::shared_ptr<UserModule> module;
  std::string name;      // as the user wrote it (a name expression or an extern "C" name)
  std::string lowered;   // "" until resolved
  std::string label;     // "kernel 'k'" in messages
  bool cooperative = false;
  bool params_known = false;
  std::vector<ParamSpec> params;
  // The loaded function per device (a launch's lookup; threads may launch side by side).
  static constexpr int kCachedDevices = 16;
  std::array<std::atomic<CUfunction>, kCachedDevices> loaded{};

  std::mutex lowered_mutex;
  std::string lowered_name() {
    std::lock_guard<std::mutex> lock(lowered_mutex);
    if (lowered.empty()) lowered = module->lowered_name(name);
    return lowered;
  }
  CUfunction get(int device) {
    const bool cached = device >= 0 && device < kCachedDevices;
    if (cached) {
      if (CUfunction f = loaded[device].load(std::memory_order_acquire)) return f;
    }
    CUfunction f = module->function(lowered_name(), device);
    if (cached) loaded[device].store(f, std::memory_order_release);
    return f;
  }
};

// Device memory owned by a Python object (PyCUDA's DeviceAllocation, from mem_alloc).
struct DeviceAllocation {
  CUdeviceptr ptr = 0;
  size_t nbytes = 0;
  int device = 0;
  Stream stream;
  DeviceAllocation(size_t n) : nbytes(n) {
    driver();
    device = current_device();
    stream = enqueue_stream(device);
    ptr = device_malloc(n ? n : 1, stream);
  }
  void free() {
    if (ptr) device_free(ptr, nbytes ? nbytes : 1, stream);
    ptr = 0;
  }
  ~DeviceAllocation() { free(); }
};

Dim3 dims_from_py(nb::handle h, const char* what) {
  Dim3 d;
  auto one = [&](nb::handle v) -> unsigned {
    int64_t x = py_index(v);
    if (x < 0 || x > std::numeric_limits<unsigned>::max()) {
      throw ValueError(std::string(what) + " extents must be in [0, 2**32), got " + std::to_string(x));
    }
    return static_cast<unsigned>(x);
  };
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    nb::sequence s = nb::borrow<nb::sequence>(h);
    size_t n = nb::len(s);
    if (n < 1 || n > 3) {
      throw ValueError(std::string(what) + " must be an int or a tuple of 1 to 3 ints, got " +
                       std::to_string(n) + " values");
    }
    d.x = one(s[0]);
    if (n > 1) d.y = one(s[1]);
    if (n > 2) d.z = one(s[2]);
  } else {
    d.x = one(h);
  }
  return d;
}

std::string type_of(nb::handle o) { return nb::type_name(o.type()).c_str(); }

std::string param_label(const Function& f, size_t i) {
  if (f.params_known && i < f.params.size()) {
    return "parameter '" + f.params[i].name + "' (argument " + std::to_string(i) + ") of " + f.label;
  }
  return "argument " + std::to_string(i) + " of " + f.label;
}

// A Python int, float, bool or complex stored as `d`; TypeError when it does not fit the kind
// (a float for an int parameter), OverflowError when out of range.
// `f` and `i` name the parameter in errors (the label is built only then: a launch's host cost).
void store_python_scalar(PyObject* o, DType d, unsigned char* slot, const Function& f, size_t i) {
  const bool is_bool_obj = PyBool_Check(o);
  const bool is_int_obj = !is_bool_obj && PyLong_Check(o);
  const bool is_float_obj = PyFloat_Check(o);
  const bool is_complex_obj = PyComplex_Check(o);
  auto refuse = [&] {
    throw TypeError(param_label(f, i) + " is " + dtype_name(d) + ", got a Python " + Py_TYPE(o)->tp_name);
  };
  if (is_bool(d)) {
    if (!is_bool_obj) refuse();
    slot[0] = o == Py_True;
    return;
  }
  if (is_integer(d)) {
    if (!is_int_obj && !is_bool_obj) refuse();
    if (d == DType::UInt64) {
      unsigned long long v = PyLong_AsUnsignedLongLong(o);
      if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw nb::python_error();
      std::memcpy(slot, &v, 8);
      return;
    }
    int64_t v = py_to_int64(nb::handle(o));
    auto fits = [&](int64_t lo, int64_t hi) {
      if (v < lo || v > hi) {
        throw OverflowError(param_label(f, i) + " is " + dtype_name(d) + ": " + std::to_string(v) +
                            " is out of its range");
      }
    };
    switch (d) {
      case DType::Int8: fits(INT8_MIN, INT8_MAX); { int8_t x = int8_t(v); std::memcpy(slot, &x, 1); } break;
      case DType::UInt8: fits(0, UINT8_MAX); { uint8_t x = uint8_t(v); std::memcpy(slot, &x, 1); } break;
      case DType::Int16: fits(INT16_MIN, INT16_MAX); { int16_t x = int16_t(v); std::memcpy(slot, &x, 2); } break;
      case DType::UInt16: fits(0, UINT16_MAX); { uint16_t x = uint16_t(v); std::memcpy(slot, &x, 2); } break;
      case DType::Int32: fits(INT32_MIN, INT32_MAX); { int32_t x = int32_t(v); std::memcpy(slot, &x, 4); } break;
      case DType::UInt32: fits(0, UINT32_MAX); { uint32_t x = uint32_t(v); std::memcpy(slot, &x, 4); } break;
      default: std::memcpy(slot, &v, 8); break;
    }
    return;
  }
  if (is_floating(d)) {
    if (is_complex_obj) refuse();
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
    if (d == DType::Float32) {
      float x = static_cast<float>(v);
      std::memcpy(slot, &x, 4);
    } else if (d == DType::Float64) {
      std::memcpy(slot, &v, 8);
    } else {
      half h = static_cast<half>(static_cast<float>(v));
      std::memcpy(slot, &h, 2);
    }
    return;
  }
  // complex
  Py_complex c = PyComplex_AsCComplex(o);
  if (c.real == -1.0 && PyErr_Occurred()) throw nb::python_error();
  if (d == DType::Complex64) {
    float x[2] = {static_cast<float>(c.real), static_cast<float>(c.imag)};
    std::memcpy(slot, x, 8);
  } else {
    double x[2] = {c.real, c.imag};
    std::memcpy(slot, x, 16);
  }
}

// The device pointer of an object other than a numfuse array, or false.
bool foreign_pointer(nb::handle a, CUdeviceptr* p) {
  if (nb::isinstance<DeviceAllocation>(a)) {
    *p = nb::cast<DeviceAllocation&>(a).ptr;
    return true;
  }
  if (nb::hasattr(a, "__cuda_array_interface__")) {
    nb::dict cai = nb::cast<nb::dict>(a.attr("__cuda_array_interface__"));
    *p = nb::cast<uint64_t>(nb::tuple(cai["data"])[0]);
    return true;
  }
  if (nb::hasattr(a, "ptr") && !nb::hasattr(a, "synchronize")) {  // bind_cuda's DeviceMemory
    *p = nb::cast<uint64_t>(a.attr("ptr"));
    return true;
  }
  return false;
}

// Launches `f`: arrays are evaluated and every pending reader of their memory runs first (the
// kernel may write them), then the kernel is enqueued after numfuse's earlier work.
void launch(Function& f, nb::handle grid_h, nb::handle block_h, nb::handle args_h,
            int64_t shared_mem, nb::handle stream_h) {
  if (!cuda_available()) {
    throw CUDAError(f.label + " needs a CUDA GPU: " + cuda_unavailable_reason());
  }
  Dim3 grid = dims_from_py(grid_h, "grid");
  Dim3 block = dims_from_py(block_h, "block");
  if (shared_mem < 0 || shared_mem > std::numeric_limits<unsigned>::max()) {
    throw ValueError("shared_mem must be in [0, 2**32), got " + std::to_string(shared_mem));
  }
  if (!PyTuple_Check(args_h.ptr()) && !PyList_Check(args_h.ptr())) {
    throw TypeError(f.label + ": args must be a tuple or a list, got " + type_of(args_h));
  }
  nb::sequence args = nb::borrow<nb::sequence>(args_h);
  const size_t n = nb::len(args);
  if (f.params_known && n != f.params.size()) {
    std::string names;
    for (size_t i = 0; i < f.params.size(); ++i) names += (i ? ", " : "") + f.params[i].name;
    throw TypeError(f.label + " takes " + std::to_string(f.params.size()) + " arguments (" + names +
                    "), " + std::to_string(n) + " given");
  }
  std::vector<std::array<uint64_t, 2>> storage(n);
  std::vector<void*> ptrs(n);
  std::vector<std::pair<size_t, Array>> arrays;
  int device = -1;
  for (size_t i = 0; i < n; ++i) {
    nb::handle a = args[i];
    auto* slot = reinterpret_cast<unsigned char*>(storage[i].data());
    ptrs[i] = slot;
    const ParamSpec* spec = f.params_known ? &f.params[i] : nullptr;
    const char kind = spec ? spec->kind : '?';
    if (is_array(a.ptr())) {
      if (kind == 's') throw TypeError(param_label(f, i) + " is " + dtype_name(spec->dtype) + ", got a numfuse.ndarray");
      const Array& arr = *nb::inst_ptr<Array>(a);
      if (arr.device().is_cpu()) {
        throw CUDAError(param_label(f, i) + " is a numfuse array on the CPU (NUMFUSE_DEVICE=cpu or "
                        "device='cpu'): CUDA kernels take arrays on a CUDA device");
      }
      if (device < 0) device = arr.device().index;
      else if (device != arr.device().index) {
        throw ValueError(param_label(f, i) + " is on " + arr.device().str() + ", an earlier array on cuda:" + std::to_string(device));
      }
      arrays.emplace_back(i, arr);
      continue;
    }
    DType d;
    const void* value = nullptr;
    if (numpy_scalar_value(a.ptr(), &d, &value)) {
      if (kind == 'p') {
        if (!is_integer(d) || itemsize(d) != 8) {
          throw TypeError(param_label(f, i) + " is a pointer, got numpy." + dtype_name(d));
        }
      } else if (kind == 's' && (itemsize(d) != itemsize(spec->dtype) ||
                                 is_integer(d) != is_integer(spec->dtype) ||
                                 is_floating(d) != is_floating(spec->dtype) ||
                                 is_complex(d) != is_complex(spec->dtype))) {
        throw TypeError(param_label(f, i) + " is " + dtype_name(spec->dtype) + ", got numpy." +
                        dtype_name(d) + " (convert it, e.g. numpy." + dtype_name(spec->dtype) + "(x))");
      }
      std::memcpy(slot, value, itemsize(d));
      continue;
    }
    PyObject* o = a.ptr();
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o)) {
      if (kind == 's') {
        store_python_scalar(o, spec->dtype, slot, f, i);
      } else if (kind == 'p') {
        if (!PyLong_Check(o) || PyBool_Check(o)) {
          throw TypeError(param_label(f, i) + " is a pointer, got a Python " + Py_TYPE(o)->tp_name);
        }
        store_python_scalar(o, DType::UInt64, slot, f, i);
      } else {
        // CuPy's typing: int -> long long, float -> double, bool -> bool, complex -> complex<double>.
        DType as = PyBool_Check(o) ? DType::Bool : PyLong_Check(o) ? DType::Int64
                 : PyFloat_Check(o) ? DType::Float64 : DType::Complex128;
        store_python_scalar(o, as, slot, f, i);
      }
      continue;
    }
    CUdeviceptr p = 0;
    if (kind != 's' && foreign_pointer(a, &p)) {
      std::memcpy(slot, &p, 8);
      continue;
    }
    throw TypeError(param_label(f, i) + (kind == 's' ? std::string(" is ") + dtype_name(spec->dtype) : std::string("")) +
                    ": unsupported argument type " + type_of(a) +
                    " (numfuse arrays, device allocations, NumPy and Python scalars are)");
  }
  if (device < 0) {
    device = stream_h.is_none() ? current_device() : nb::cast<Stream&>(stream_h).device();
  }
  if (!arrays.empty()) {
    // The kernel may write every array it is given: NumPy's write rules of the graph. A loop of
    // launches on materialised arrays that nothing pending reads skips the graph's lock (a
    // racing reader recorded by another thread is unordered with this launch in any case).
    for (auto& p : arrays) {
      const Storage* st = p.second.storage.get();
      if (st->producer || !st->readers.empty()) prepare_write(p.second);
      CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(p.second.data());
      std::memcpy(storage[p.first].data(), &ptr, 8);
    }
  }
  CUfunction fn = f.get(device);
  const Stream* sp = stream_h.is_none() ? nullptr : &nb::cast<Stream&>(stream_h);
  launch_user_kernel(fn, device, grid, block, static_cast<unsigned>(shared_mem), sp, ptrs.data(),
                     f.cooperative);
}

// Copies between a host buffer (anything with the buffer protocol, C-contiguous) and device memory.
void host_device_copy(CUdeviceptr dev, nb::handle host, bool to_device, size_t offset_limit) {
  Py_buffer view;
  int flags = PyBUF_C_CONTIGUOUS | (to_device ? 0 : PyBUF_WRITABLE);
  if (PyObject_GetBuffer(host.ptr(), &view, flags) != 0) throw nb::python_error();
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  size_t n = static_cast<size_t>(view.len);
  if (offset_limit && n > offset_limit) {
    throw ValueError("the host array has " + std::to_string(n) + " bytes, the device allocation " +
                     std::to_string(offset_limit));
  }
  Stream s = enqueue_stream(current_device());
  nb::gil_scoped_release nogil;
  if (to_device) copy_host_to_device(dev, view.buf, n, s);
  else copy_device_to_host(view.buf, dev, n, s);
}

CUdeviceptr pointer_of(nb::handle h) {
  if (nb::isinstance<DeviceAllocation>(h)) return nb::cast<DeviceAllocation&>(h).ptr;
  CUdeviceptr p = 0;
  if (is_array(h.ptr())) {
    const Array& a = *nb::inst_ptr<Array>(h);
    if (a.device().is_cpu()) throw ValueError("a numfuse array on the CPU is not device memory");
    eval(a, FlushReason::Explicit);
    prepare_write(a);
    return reinterpret_cast<CUdeviceptr>(a.data());
  }
  if (foreign_pointer(h, &p)) return p;
  if (PyLong_Check(h.ptr())) return nb::cast<uint64_t>(h);
  throw TypeError("expected device memory (mem_alloc's allocation, an int pointer or a numfuse "
                  "array), got " + type_of(h));
}

size_t limit_of(nb::handle h) {
  if (nb::isinstance<DeviceAllocation>(h)) return nb::cast<DeviceAllocation&>(h).nbytes;
  if (is_array(h.ptr())) return nb::inst_ptr<Array>(h)->nbytes();
  return 0;
}

// A handle on an interned user element-wise definition (ir/user_elementwise.h).
struct ElementwiseDef {
  const UserElementwiseDef* def = nullptr;
};

UserElementwiseDef::Role role_from(const std::string& r) {
  using R = UserElementwiseDef::Role;
  if (r == "in") return R::In;
  if (r == "raw_view") return R::RawView;
  if (r == "raw_ptr") return R::RawPtr;
  if (r == "raw_size") return R::RawSize;
  if (r == "size") return R::Size;
  if (r == "out_init") return R::OutInit;
  throw ValueError("unknown argument role '" + r + "'");
}

}  // namespace

void bind_kernels(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("kernels", "users' CUDA C++ kernels");

  nb::class_<UserModule>(m, "Module")
      .def("__init__", [](UserModule* self, std::string source, std::vector<std::string> exprs,
                          std::vector<std::string> options) {
        new (self) UserModule(std::move(source), std::move(exprs), std::move(options));
      }, nb::arg("source"), nb::arg("name_expressions"), nb::arg("options"))
      .def_static("from_binary", [](nb::bytes b, bool is_ptx) {
        return UserModule::from_binary(std::string(b.c_str(), b.size()), is_ptx);
      }, nb::arg("binary"), nb::arg("is_ptx"))
      .def("compile", [](UserModule& um, const std::string& arch) {
        nb::gil_scoped_release nogil;
        um.compile(arch);
      }, nb::arg("arch") = "")
      .def("binary", [](UserModule& um, const std::string& arch) {
        const CompiledKernel* k;
        {
          nb::gil_scoped_release nogil;
          k = &um.compile(arch);
        }
        return nb::make_tuple(nb::bytes(k->binary.data(), k->binary.size()), k->is_ptx);
      }, nb::arg("arch") = "")
      .def("lowered_name", [](UserModule& um, const std::string& name, const std::string& arch) {
        nb::gil_scoped_release nogil;
        return um.lowered_name(name, arch);
      }, nb::arg("name"), nb::arg("arch") = "")
      .def_prop_ro("source", &UserModule::source)
      .def_prop_ro("name_expressions", &UserModule::name_expressions)
      .def_prop_ro("options", &UserModule::options);

  nb::class_<Function>(m, "Function")
      .def("__init__", [](Function* self, std::shared_ptr<UserModule> module, std::string name,
                          std::string label, bool cooperative) {
        new (self) Function();
        self->module = std::move(module);
        self->name = std::move(name);
        self->label = std::move(label);
        self->cooperative = cooperative;
      }, nb::arg("module"), nb::arg("name"), nb::arg("label"), nb::arg("cooperative") = false)
      // (name, 'p' | 's' | '?', dtype name or "") for each parameter of the kernel's signature.
      .def("set_params", [](Function& f, const std::vector<std::tuple<std::string, std::string, std::string>>& specs) {
        f.params.clear();
        for (const auto& [name, kind, dt] : specs) {
          ParamSpec p;
          p.name = name;
          p.kind = kind.empty() ? '?' : kind[0];
          if (p.kind == 's' && !dtype_from_name(dt, &p.dtype)) p.kind = '?';
          f.params.push_back(p);
        }
        f.params_known = true;
      })
      .def_prop_ro("name", [](const Function& f) { return f.name; })
      .def_prop_ro("module", [](const Function& f) { return f.module; })
      .def("lowered_name", [](Function& f) {
        nb::gil_scoped_release nogil;
        return f.lowered_name();
      })
      .def("attribute", [](Function& f, int attribute, int device) {
        if (device < 0) device = current_device();
        CUfunction fn = f.get(device);
        activate(device);
        return function_attribute(fn, attribute);
      }, nb::arg("attribute"), nb::arg("device") = -1)
      .def("set_attribute", [](Function& f, int attribute, int value, int device) {
        if (device < 0) device = current_device();
        CUfunction fn = f.get(device);
        activate(device);
        set_function_attribute(fn, attribute, value);
      }, nb::arg("attribute"), nb::arg("value"), nb::arg("device") = -1);

  nb::class_<ElementwiseDef>(m, "ElementwiseDef")
      .def("__init__", [](ElementwiseDef* self, const std::string& name,
                          const std::vector<std::tuple<std::string, std::string, nb::object>>& args,
                          const std::vector<std::string>& out_names,
                          const std::vector<std::pair<std::string, nb::object>>& typedefs,
                          const std::string& operation, const std::string& preamble,
                          const std::string& loop_prep) {
        UserElementwiseDef d;
        d.name = name;
        for (const auto& [role, arg_name, raw_dtype] : args) {
          UserElementwiseDef::Arg a;
          a.role = role_from(role);
          a.name = arg_name;
          if (!raw_dtype.is_none()) a.raw_dtype = dtype_from_py(raw_dtype);
          d.args.push_back(a);
        }
        d.out_names = out_names;
        for (const auto& [t, dt] : typedefs) d.typedefs.emplace_back(t, dtype_from_py(dt));
        d.operation = operation;
        d.preamble = preamble;
        d.loop_prep = loop_prep;
        new (self) ElementwiseDef{intern_user_elementwise(std::move(d))};
      })
      .def_prop_ro("id", [](const ElementwiseDef& d) { return d.def->id; });
  m.def("elementwise", [](const ElementwiseDef& d, const std::vector<Array>& args, nb::list out_dtypes,
                          nb::handle shape, const std::vector<std::optional<Array>>& outs) {
    std::vector<DType> dts;
    for (nb::handle h : out_dtypes) dts.push_back(dtype_from_py(h));
    return user_elementwise(d.def, args, dts, py_shape(shape), outs);
  }, nb::arg("definition"), nb::arg("args"), nb::arg("out_dtypes"), nb::arg("shape"), nb::arg("outs"));

  // The fused CUDA source of one user step over host arrays standing in for device ones (its
  // outputs host arrays too): what a GPU would compile, for NVRTC checks on machines without one.
  m.def("elementwise_source", [](const ElementwiseDef& d, const std::vector<Array>& args,
                                 nb::list out_dtypes, nb::handle shape_h) {
    const Shape shape = py_shape(shape_h);
    // Leaves must be in memory (their addresses become parameters; nothing is read): a GPU's
    // pending arrays are evaluated first.
    eval(args, FlushReason::Explicit);
    auto node = std::make_shared<UserElementwiseNode>();
    node->def = d.def;
    node->device = Device::cuda(0);
    for (const Array& a : args) node->in_loop.push_back(a.dtype);
    GroupProgram p;
    p.shape = shape;
    p.device = Device::cuda(0);
    p.leaves = args;
    for (nb::handle h : out_dtypes) node->out_loop.push_back(dtype_from_py(h));
    ProgramStep step{node.get(), node->op(), {}};
    for (int l = 0; l < static_cast<int>(args.size()); ++l) step.args.push_back(ProgramValue{l});
    p.steps.push_back(step);
    for (size_t j = 0; j < node->out_loop.size(); ++j) {
      p.outputs.push_back({ProgramValue{-1, 0, static_cast<int>(j)},
                           Array::empty(shape, node->out_loop[j], Device::cpu())});
    }
    return std::string(kKernelPrelude) + generate_elementwise(p).body;
  }, nb::arg("definition"), nb::arg("args"), nb::arg("out_dtypes"), nb::arg("shape"));

  // The device address of a CUDA array's first element, evaluating it first (a raw parameter's).
  m.def("device_pointer", [](const Array& a) {
    if (a.device().is_cpu()) throw CUDAError("a numfuse array on the CPU has no device address");
    eval(a, FlushReason::Explicit);
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(a.data()));
  }, nb::arg("array"));

  m.def("launch", &launch, nb::arg("function"), nb::arg("grid"), nb::arg("block"), nb::arg("args"),
        nb::arg("shared_mem") = 0, nb::arg("stream").none() = nb::none());

  nb::class_<DeviceAllocation>(m, "DeviceAllocation")
      .def(nb::init<size_t>(), nb::arg("nbytes"))
      .def_ro("ptr", &DeviceAllocation::ptr)
      .def_ro("nbytes", &DeviceAllocation::nbytes)
      .def("free", &DeviceAllocation::free)
      .def("__int__", [](const DeviceAllocation& d) { return d.ptr; })
      .def("__index__", [](const DeviceAllocation& d) { return d.ptr; });
  m.def("memcpy_htod", [](nb::handle dest, nb::handle src) {
    host_device_copy(pointer_of(dest), src, true, limit_of(dest));
  }, nb::arg("dest"), nb::arg("src"));
  m.def("memcpy_dtoh", [](nb::handle dest, nb::handle src) {
    host_device_copy(pointer_of(src), dest, false, limit_of(src));
  }, nb::arg("dest"), nb::arg("src"));
}

}  // namespace nf::py
