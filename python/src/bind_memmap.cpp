// _wrap_host_memory(obj, dtype): a numfuse CPU array whose memory is a Python buffer's own (an
// mmap.mmap), for numfuse.memmap: the array is the mapped file itself, so what numfuse writes
// into it reaches the file (flush() pushes the pages out). The buffer export is held for as long
// as the memory is (released when the last view of the Buffer dies), so the mapping cannot be
// closed under the array: mmap.close() raises BufferError while exports exist.
#include "bindings.h"

#include "numfuse/core/buffer.h"

namespace nf::py {

namespace {

struct HeldExport {
  Py_buffer view;
};

void release_export(void* p) noexcept {
  auto* held = static_cast<HeldExport*>(p);
  if (nb::is_alive()) {  // after interpreter shutdown the export dies with the process
    nb::gil_scoped_acquire gil;
    PyBuffer_Release(&held->view);
  }
  delete held;
}

Array wrap_host_memory(nb::handle obj, nb::handle dtype_obj) {
  const DType d = dtype_from_py(dtype_obj);
  auto* held = new HeldExport;
  bool writeable = true;
  if (PyObject_GetBuffer(obj.ptr(), &held->view, PyBUF_SIMPLE | PyBUF_WRITABLE) != 0) {
    PyErr_Clear();  // a read-only mapping (mode 'r'): a read-only array
    writeable = false;
    if (PyObject_GetBuffer(obj.ptr(), &held->view, PyBUF_SIMPLE) != 0) {
      delete held;
      throw nb::python_error();
    }
  }
  const auto len = static_cast<size_t>(held->view.len);
  const size_t item = itemsize(d);
  if (len % item != 0 || reinterpret_cast<uintptr_t>(held->view.buf) % item != 0) {
    PyBuffer_Release(&held->view);
    delete held;
    throw ValueError("_wrap_host_memory: the buffer's size and address must be multiples of the "
                     "itemsize (" + std::to_string(item) + ")");
  }
  Array a;
  a.dtype = d;
  a.shape = Shape{static_cast<int64_t>(len / item)};
  a.strides = Strides{1};
  a.storage = std::make_shared<Storage>();
  a.storage->nbytes = len;
  a.storage->device = Device::cpu();
  a.storage->buffer = Buffer::wrap(held->view.buf, len, Device::cpu(), release_export, held);
  a.writeable = writeable;
  return a;
}

}  // namespace

void bind_memmap(nb::module_& m) {
  m.def("_wrap_host_memory", &wrap_host_memory, nb::arg("obj"), nb::arg("dtype"),
        "A 1-d CPU array of `dtype` over the memory of a Python buffer (held while the array "
        "lives), for numfuse.memmap.");
}

}  // namespace nf::py
