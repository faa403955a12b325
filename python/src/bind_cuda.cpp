// numfuse._core.cuda: the CUDA runtime layer (devices, streams, events, memory, the kernel cache)
// and its exception classes. numfuse/cuda/__init__.py builds the public numfuse.cuda on it.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>

#include "bindings.h"
#include "numfuse/backend/backend.h"
#include "numfuse/backend/cuda/driver.h"
#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/backend/cuda/kernel_cache.h"
#include "numfuse/backend/cuda/launch.h"
#include "numfuse/backend/cuda/library_search.h"
#include "numfuse/backend/cuda/memory.h"
#include "numfuse/backend/cuda/nodes_cuda.h"
#include "numfuse/backend/cuda/nvrtc.h"
#include "numfuse/backend/cuda/stream.h"
#include "numfuse/backend/cuda/warmup.h"
#include "numfuse/core/error.h"
#include "numfuse/core/fp_status.h"
#include "numfuse/graph/eval.h"

namespace nf::py {

namespace {

using namespace nf::cuda;

PyObject* g_cuda_error = nullptr;
PyObject* g_compile_error = nullptr;
PyObject* g_oom_error = nullptr;

void make_exceptions(nb::module_& m) {
  g_cuda_error = PyErr_NewException("numfuse.cuda.CUDAError", PyExc_RuntimeError, nullptr);
  g_compile_error = PyErr_NewException("numfuse.cuda.CompileError", g_cuda_error, nullptr);
  // Both a CUDAError and a MemoryError: `except MemoryError` catches it, as in CuPy.
  PyObject* bases = PyTuple_Pack(2, g_cuda_error, PyExc_MemoryError);
  g_oom_error = PyErr_NewException("numfuse.cuda.OutOfMemoryError", bases, nullptr);
  Py_DECREF(bases);
  m.attr("CUDAError") = nb::handle(g_cuda_error);
  m.attr("CompileError") = nb::handle(g_compile_error);
  m.attr("OutOfMemoryError") = nb::handle(g_oom_error);
  // Registered after bind_errors' translator, so tried before it.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const CUDAOutOfMemoryError& e) {
      PyErr_SetString(g_oom_error, e.what());
    } catch (const CUDAError& e) {
      PyErr_SetString(g_cuda_error, e.what());
    } catch (const CompileError& e) {
      PyErr_SetString(g_compile_error, e.what());
    }
  });
}

nb::dict properties_dict(int device) {
  const DeviceProperties& p = device_properties(device);
  nb::dict d;
  d["name"] = nb::bytes(p.name.data(), p.name.size());
  d["totalGlobalMem"] = p.total_memory;
  d["sharedMemPerBlock"] = p.max_shared_memory_per_block;
  d["regsPerBlock"] = p.max_registers_per_block;
  d["warpSize"] = p.warp_size;
  d["memPitch"] = p.max_pitch;
  d["maxThreadsPerBlock"] = p.max_threads_per_block;
  d["maxThreadsDim"] = nb::make_tuple(p.max_block_dim[0], p.max_block_dim[1], p.max_block_dim[2]);
  d["maxGridSize"] = nb::make_tuple(p.max_grid_dim[0], p.max_grid_dim[1], p.max_grid_dim[2]);
  d["clockRate"] = p.clock_rate_khz;
  d["totalConstMem"] = p.total_constant_memory;
  d["major"] = p.major;
  d["minor"] = p.minor;
  d["textureAlignment"] = p.texture_alignment;
  d["multiProcessorCount"] = p.multiprocessor_count;
  d["kernelExecTimeoutEnabled"] = p.kernel_exec_timeout;
  d["integrated"] = p.integrated;
  d["canMapHostMemory"] = p.can_map_host_memory;
  d["computeMode"] = p.compute_mode;
  d["concurrentKernels"] = p.concurrent_kernels;
  d["ECCEnabled"] = p.ecc_enabled;
  d["pciBusID"] = p.pci_bus_id;
  d["pciDeviceID"] = p.pci_device_id;
  d["pciDomainID"] = p.pci_domain_id;
  d["memoryClockRate"] = p.memory_clock_rate_khz;
  d["memoryBusWidth"] = p.memory_bus_width;
  d["l2CacheSize"] = p.l2_cache_size;
  d["maxThreadsPerMultiProcessor"] = p.max_threads_per_multiprocessor;
  d["asyncEngineCount"] = p.async_engine_count;
  d["unifiedAddressing"] = p.unified_addressing;
  d["managedMemory"] = p.managed_memory;
  d["multiGpuBoard"] = p.multi_gpu_board;
  d["sharedMemPerMultiprocessor"] = p.max_shared_memory_per_multiprocessor;
  d["regsPerMultiprocessor"] = p.max_registers_per_multiprocessor;
  d["sharedMemPerBlockOptin"] = p.max_shared_memory_per_block_optin;
  d["maxBlocksPerMultiProcessor"] = p.max_blocks_per_multiprocessor;
  d["cooperativeLaunch"] = p.cooperative_launch;
  d["pageableMemoryAccess"] = p.pageable_memory_access;
  d["concurrentManagedAccess"] = p.concurrent_managed_access;
  d["streamPrioritiesSupported"] = p.stream_priorities_supported;
  d["globalL1CacheSupported"] = p.global_l1_cache_supported;
  d["localL1CacheSupported"] = p.local_l1_cache_supported;
  d["memoryPoolsSupported"] = p.memory_pools_supported;
  return d;
}

nb::dict stats_dict(const KernelCacheStats& s) {
  nb::dict d;
  d["compilations"] = s.compilations;
  d["disk_hits"] = s.disk_hits;
  d["memory_hits"] = s.memory_hits;
  d["corrupt"] = s.corrupt;
  return d;
}

// Device memory owned by a Python object: the tests' way to run a raw kernel.
struct DeviceMemory {
  CUdeviceptr ptr = 0;
  size_t nbytes = 0;
  Stream stream;
  DeviceMemory(size_t n, int device) : nbytes(n) {
    stream = current_stream(device);
    if (stream.is_null()) stream = Stream::null_stream(stream.device());
    ptr = device_malloc(n, stream);
  }
  ~DeviceMemory() { device_free(ptr, nbytes, stream); }
};

}  // namespace

void bind_cuda(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("cuda", "numfuse's CUDA runtime layer");
  make_exceptions(m);
  bind_nccl(m);

  // The warm-up thread (warmup.h) ends before the interpreter does: the libraries it is loading
  // must not be torn down under it.
  Py_AtExit([] { wait_warmup(); });
  m.def("_warmup_running", &warmup_running);
  m.def("_wait_warmup", &wait_warmup, nb::call_guard<nb::gil_scoped_release>());
  m.def("_nvrtc_pch_ready", &nvrtc_pch_ready);
  m.def("_set_nvrtc_pch", &set_nvrtc_pch, nb::arg("on"));
  m.def("is_available", &cuda_available);
  m.def("unavailable_reason", &cuda_unavailable_reason);
  m.def("device_count", [] {
    driver();  // raises CUDAError with the reason when CUDA is unusable
    return device_count();
  });
  m.def("get_device", &current_device);
  m.def("set_device", &set_current_device);
  m.def("device_properties", &properties_dict);
  m.def("device_mem_info", [](int device) {
    size_t f = 0, t = 0;
    device_mem_info(device, &f, &t);
    return std::make_pair(f, t);
  });
  m.def("device_arch", &device_arch);
  m.def("driver_version", &driver_version);
  // dst[...] = src between numfuse arrays on any devices (a cuMemcpyDtoD when both are dense
  // with one dtype): what the benchmarks measure the copy bandwidth with.
  m.def("_copy_into", [](const Array& src, const Array& dst) {
    eval(src, FlushReason::Explicit);
    prepare_write(dst);
    run_blocking([&] { backend::copy_into(src, dst); });
  }, nb::arg("src"), nb::arg("dst"));
  m.def("synchronize", [](int device) {
    {
      nb::gil_scoped_release release;
      cuda::synchronize(device);
      // What the finished kernels found is reported here as at a read (numpy.errstate).
      cuda::collect_fp_flags(device < 0 ? current_device() : device);
    }
    fp_report_if_outermost();
  }, nb::arg("device") = -1);
  m.def("set_fp_checks", &set_fp_checks, nb::arg("on"));
  m.def("fp_checks_enabled", &fp_checks_enabled);
  m.def("add_search_dirs", &add_search_dirs, nb::arg("lib_dirs"), nb::arg("include_dirs"));
  m.def("nvrtc_available", &nvrtc_available);
  m.def("cub_sort_available", &cub_sort_available);
  m.def("nvrtc_info", [] {
    const NvrtcApi& n = nvrtc();
    nb::dict d;
    d["version"] = nvrtc_version_string();
    d["path"] = n.path;
    d["builtins_path"] = n.builtins_path;
    d["archs"] = n.archs;
    d["include_dirs"] = cuda_include_dirs();
    return d;
  });

  nb::class_<Stream>(m, "Stream")
      .def_static("create", &Stream::create, nb::arg("device") = -1,
                  nb::arg("non_blocking") = false)
      .def_static("null", &Stream::null_stream, nb::arg("device") = -1)
      .def_prop_ro("ptr", [](const Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); })
      .def_prop_ro("device_id", &Stream::device)
      .def_prop_ro("non_blocking", &Stream::non_blocking)
      .def("synchronize", [](const Stream& s) { run_blocking([&] { s.synchronize(); }); })
      .def("done", &Stream::done)
      .def("wait", &Stream::wait)
      .def("__eq__", [](const Stream& a, const Stream& b) { return a == b; });
  m.def("push_stream", &push_stream);
  m.def("pop_stream", &pop_stream);
  m.def("current_stream", &current_stream, nb::arg("device") = -1);

  nb::class_<Event>(m, "Event")
      .def_static("create", &Event::create, nb::arg("device") = -1,
                  nb::arg("disable_timing") = false, nb::arg("blocking") = false)
      .def_prop_ro("ptr", [](const Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); })
      .def_prop_ro("device_id", &Event::device)
      .def("record", [](Event& e, const Stream& s) { e.record(s); })
      .def("record_current", [](Event& e) { e.record(); })
      .def("synchronize", [](const Event& e) { run_blocking([&] { e.synchronize(); }); })
      .def("done", &Event::done);
  m.def("elapsed_ms", &Event::elapsed_ms);

  m.def("memory_info", [](int device) {
    MemoryInfo i = cuda::memory_info(device);
    nb::dict d;
    d["used"] = i.used;
    d["used_high"] = i.used_high;
    d["reserved"] = i.reserved;
    d["limit"] = i.limit;
    d["device_free"] = i.device_free;
    d["device_total"] = i.device_total;
    return d;
  }, nb::arg("device") = -1);
  m.def("free_cache", &free_cache, nb::arg("device") = -1,
        nb::call_guard<nb::gil_scoped_release>());
  m.def("set_memory_limit", &set_memory_limit);
  m.def("get_memory_limit", &memory_limit);
  m.def("parse_memory_size", [](const std::string& s) { return parse_memory_size(s); });

  m.def("kernel_cache_stats", [] { return stats_dict(kernel_cache_stats()); });
  m.def("loaded_kernel_names", &loaded_kernel_names);
  m.def("reset_kernel_cache_stats", &reset_kernel_cache_stats);
  m.def("set_kernel_cache_dir", &set_kernel_cache_dir);
  m.def("kernel_cache_dir", &kernel_cache_dir);

  // Compiles without a GPU (NVRTC only): returns the cubin.
  m.def("compile_to_cubin", [](const std::string& source, const std::string& name,
                               const std::string& arch, const std::vector<std::string>& options) {
    std::string cubin;
    {
      nb::gil_scoped_release release;
      cubin = compile_to_cubin(source, name, arch, options);
    }
    return nb::bytes(cubin.data(), cubin.size());
  }, nb::arg("source"), nb::arg("name"), nb::arg("arch"), nb::arg("options") = std::vector<std::string>{});

  nb::class_<DeviceMemory>(m, "DeviceMemory")
      .def(nb::init<size_t, int>(), nb::arg("nbytes"), nb::arg("device") = -1)
      .def_ro("ptr", &DeviceMemory::ptr)
      .def_ro("nbytes", &DeviceMemory::nbytes)
      .def("copy_from_host", [](DeviceMemory& d, nb::bytes b) {
        if (b.size() > d.nbytes) throw ValueError("copy_from_host: more bytes than the allocation");
        copy_host_to_device(d.ptr, b.c_str(), b.size(), d.stream);
      })
      .def("copy_to_host", [](DeviceMemory& d) {
        std::string out(d.nbytes, '\0');
        copy_device_to_host(&out[0], d.ptr, d.nbytes, d.stream);
        return nb::bytes(out.data(), out.size());
      });

  // Launches kernel `name` of `source` (through the kernel cache). args: DeviceMemory (a
  // pointer), or (typecode, value) with typecode one of i32 i64 u32 u64 f32 f64.
  m.def("launch", [](const std::string& source, const std::string& name, std::tuple<unsigned, unsigned, unsigned> grid,
                     std::tuple<unsigned, unsigned, unsigned> block, nb::list args,
                     const std::vector<std::string>& options, nb::handle stream) {
    Stream s = stream.is_none() ? current_stream() : nb::cast<Stream>(stream);
    CUfunction f = get_kernel(source, name, options, s.device());
    std::vector<std::array<unsigned char, 8>> storage(args.size());
    std::vector<void*> ptrs(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      nb::handle a = args[i];
      unsigned char* slot = storage[i].data();
      if (nb::isinstance<DeviceMemory>(a)) {
        CUdeviceptr p = nb::cast<DeviceMemory&>(a).ptr;
        std::memcpy(slot, &p, 8);
      } else {
        auto t = nb::cast<std::pair<std::string, nb::handle>>(a);
        const std::string& c = t.first;
        if (c == "i32") { int32_t v = nb::cast<int32_t>(t.second); std::memcpy(slot, &v, 4); }
        else if (c == "i64") { int64_t v = nb::cast<int64_t>(t.second); std::memcpy(slot, &v, 8); }
        else if (c == "u32") { uint32_t v = nb::cast<uint32_t>(t.second); std::memcpy(slot, &v, 4); }
        else if (c == "u64") { uint64_t v = nb::cast<uint64_t>(t.second); std::memcpy(slot, &v, 8); }
        else if (c == "f32") { float v = nb::cast<float>(t.second); std::memcpy(slot, &v, 4); }
        else if (c == "f64") { double v = nb::cast<double>(t.second); std::memcpy(slot, &v, 8); }
        else throw ValueError("launch: unknown argument type code '" + c + "'");
      }
      ptrs[i] = slot;
    }
    activate(s.device());
    check(driver().LaunchKernel(f, std::get<0>(grid), std::get<1>(grid), std::get<2>(grid),
                                std::get<0>(block), std::get<1>(block), std::get<2>(block), 0,
                                s.handle(), ptrs.data(), nullptr),
          "cuLaunchKernel");
  }, nb::arg("source"), nb::arg("name"), nb::arg("grid"), nb::arg("block"), nb::arg("args"),
     nb::arg("options") = std::vector<std::string>{}, nb::arg("stream").none() = nb::none());
}

}  // namespace nf::py
