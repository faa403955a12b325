// Conversions between Python objects and numfuse's core types.
#include <nanobind/ndarray.h>

#include <cstring>
#include <limits>

#include "bindings.h"
#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"

namespace nf::py {

nb::module_& numpy() {
  static nb::module_* np = new nb::module_(nb::module_::import_("numpy"));
  return *np;
}

namespace {

// numpy.dtype objects for each DType, created once (numfuse.float32 is numpy.float32).
nb::object* dtype_objects() {
  static nb::object* objs = [] {
    auto* o = new nb::object[kNumDTypes];
    for (int i = 0; i < kNumDTypes; ++i) {
      o[i] = numpy().attr("dtype")(dtype_name(static_cast<DType>(i)));
    }
    return o;
  }();
  return objs;
}

bool dtype_from_kind(char kind, int64_t size, DType* out) {
  switch (kind) {
    case 'b': *out = DType::Bool; return size == 1;
    case 'i':
      switch (size) {
        case 1: *out = DType::Int8; return true;
        case 2: *out = DType::Int16; return true;
        case 4: *out = DType::Int32; return true;
        case 8: *out = DType::Int64; return true;
      }
      return false;
    case 'u':
      switch (size) {
        case 1: *out = DType::UInt8; return true;
        case 2: *out = DType::UInt16; return true;
        case 4: *out = DType::UInt32; return true;
        case 8: *out = DType::UInt64; return true;
      }
      return false;
    case 'f':
      switch (size) {
        case 2: *out = DType::Float16; return true;
        case 4: *out = DType::Float32; return true;
        case 8: *out = DType::Float64; return true;
      }
      return false;
    case 'c':
      switch (size) {
        case 8: *out = DType::Complex64; return true;
        case 16: *out = DType::Complex128; return true;
      }
      return false;
  }
  return false;
}

// Whether a numpy.dtype is one numfuse has (not strings, objects, datetimes, void...).
bool supported_numpy_dtype(nb::handle dt) {
  DType d;
  return dtype_from_kind(nb::cast<std::string>(dt.attr("kind"))[0], nb::cast<int64_t>(dt.attr("itemsize")), &d);
}

}  // namespace

DType dtype_from_py(nb::handle obj) {
  nb::object* objs = dtype_objects();
  for (int i = 0; i < kNumDTypes; ++i) {
    if (obj.is(objs[i])) return static_cast<DType>(i);
  }
  nb::object dt = numpy().attr("dtype")(obj);
  char kind = nb::cast<std::string>(dt.attr("kind"))[0];
  int64_t size = nb::cast<int64_t>(dt.attr("itemsize"));
  DType d;
  if (!dtype_from_kind(kind, size, &d)) {
    throw TypeError("numfuse does not support " + nb::cast<std::string>(nb::repr(dt)));
  }
  return d;
}

nb::object dtype_to_py(DType d) { return dtype_objects()[static_cast<int>(d)]; }

std::optional<DType> optional_dtype(nb::handle obj) {
  if (obj.is_none()) return std::nullopt;
  return dtype_from_py(obj);
}

int64_t py_to_int64(nb::handle obj) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow) throw OverflowError("Python int too large to convert to C long");
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

const char* const kBadIndexMessage =
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices";

int64_t py_index(nb::handle obj, IntUse use) {
  PyObject* p = obj.ptr();
  if (use == IntUse::SliceBound && !PyIndex_Check(p)) {
    throw TypeError("slice indices must be integers or None or have an __index__ method");
  }
  // NumPy reads integer arguments through __index__: floats, strings and None are TypeErrors
  // here, and the error of an __index__ that raises (a float 0-d array) is kept as it is.
  // NumPy refuses bools as sizes and axes (they are ints to Python): zeros(True), sum(axis=True).
  if (PyBool_Check(p) && use == IntUse::Dim) throw TypeError("an integer is required");
  if (PyBool_Check(p) && use == IntUse::Axis) throw TypeError("an integer is required for the axis");
  PyObject* i = PyNumber_Index(p);
  if (!i) throw nb::python_error();
  nb::object n = nb::steal(i);
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  if (!overflow) {
    // NumPy's axis converters read a C int (PyArray_PyIntAsInt): ValueError past its range.
    if (use == IntUse::Axis && (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min())) {
      throw ValueError("integer won't fit into a C int");
    }
    if (use == IntUse::CInt && v > std::numeric_limits<int>::max()) {
      throw OverflowError("signed integer is greater than maximum");
    }
    if (use == IntUse::CInt && v < std::numeric_limits<int>::min()) {
      throw OverflowError("signed integer is less than minimum");
    }
    return v;
  }
  switch (use) {
    case IntUse::Plain:
    case IntUse::Axis:
    case IntUse::CInt: break;
    case IntUse::Dim: throw ValueError("Maximum allowed dimension exceeded");
    case IntUse::Index:
      // NumPy reads an int past int64 as an array: one that fits uint64 is a uint64 index that
      // does not convert to intp (OverflowError), a larger one an object array (IndexError).
      if (overflow > 0) {
        PyLong_AsUnsignedLongLong(i);
        if (!PyErr_Occurred()) throw OverflowError("Python int too large to convert to C long");
        PyErr_Clear();
      }
      throw IndexError(kBadIndexMessage);
    case IntUse::SliceBound:
    case IntUse::Clamped:
      return overflow > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  throw OverflowError("Python int too large to convert to C long");
}

Shape py_shape(nb::handle obj) {
  PyObject* p = obj.ptr();
  if (p == Py_None) throw TypeError("Use () not None as shape arguments");
  if (PyUnicode_Check(p)) py_index(obj);  // NumPy: "'str' object cannot be interpreted ..."
  std::optional<std::vector<int64_t>> items = int_sequence(obj, IntUse::Dim);
  if (items) return Shape(items->begin(), items->end());
  // NumPy names the argument for every TypeError of the single integer (a bool, a float 0-d
  // array); its other errors (too large) stay. The message is made only when it is raised.
  auto not_int = [&] {
    return TypeError("expected a sequence of integers or a single integer, got '" +
                     nb::cast<std::string>(nb::repr(obj)) + "'");
  };
  if (!PyIndex_Check(p)) throw not_int();
  try {
    return Shape{py_index(obj, IntUse::Dim)};
  } catch (const TypeError&) {
    throw not_int();
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw not_int();
  }
}

std::optional<std::vector<int64_t>> int_sequence(nb::handle obj, IntUse use) {
  PyObject* p = obj.ptr();
  // NumPy's PyArray_IntpConverter: anything but an int that iterates is a sequence (a 1-d array
  // included); what does not iterate (a 0-d array) is read as one integer.
  if (PyLong_Check(p) || !(PySequence_Check(p) || is_array(p))) return std::nullopt;
  PyObject* fast = PySequence_Fast(p, "expected a sequence of integers or a single integer");
  if (!fast) {
    PyErr_Clear();
    return std::nullopt;
  }
  nb::object seq = nb::steal(fast);
  std::vector<int64_t> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t k = 0; k < n; ++k) out.push_back(py_index(PySequence_Fast_GET_ITEM(fast, k), use));
  return out;
}

IndexItem slice_item(PyObject* slice) {
  auto* s = reinterpret_cast<PySliceObject*>(slice);
  auto get = [](PyObject* o, int64_t* v) {
    if (o == Py_None) return false;
    *v = py_index(o, IntUse::SliceBound);
    return true;
  };
  int64_t start = 0, stop = 0, step = 1;
  bool has_start = get(s->start, &start), has_stop = get(s->stop, &stop);
  get(s->step, &step);
  return IndexItem::slice(has_start, start, has_stop, stop, step);
}

Casting casting_from_str(const std::string& s) {
  if (s == "no") return Casting::No;
  if (s == "equiv") return Casting::Equiv;
  if (s == "safe") return Casting::Safe;
  if (s == "same_kind") return Casting::SameKind;
  if (s == "unsafe") return Casting::Unsafe;
  throw ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'");
}

Device operands_device(const nb::handle* objs, size_t n) {
  const Array* zero_d = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (!is_array(objs[i].ptr())) continue;
    const Array* a = nb::inst_ptr<Array>(objs[i]);
    if (a->ndim() > 0 || a->pending()) return a->device();
    if (!zero_d) zero_d = a;
  }
  return zero_d ? zero_d->device() : default_device();
}

bool push_operands_device(nb::handle args, nb::handle kwargs) {
  std::vector<PyObject*> flat;
  auto add = [&](PyObject* o) {
    if (PyList_Check(o)) {
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i) flat.push_back(PyList_GET_ITEM(o, i));
    } else if (PyTuple_Check(o)) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) flat.push_back(PyTuple_GET_ITEM(o, i));
    } else {
      flat.push_back(o);
    }
  };
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args.ptr()); ++i)
    add(PyTuple_GET_ITEM(args.ptr(), i));
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs.ptr(), &pos, &key, &value)) add(value);
  const Array* chosen = nullptr;
  const Array* zero_d = nullptr;
  for (PyObject* o : flat) {
    if (!is_array(o)) continue;
    const Array* a = nb::inst_ptr<Array>(o);
    if (a->ndim() > 0 || a->pending()) {
      chosen = a;
      break;
    }
    if (!zero_d) zero_d = a;
  }
  if (!chosen) chosen = zero_d;
  if (!chosen) return false;
  const Device d = chosen->device();
  for (PyObject* o : flat) {
    if (!is_array(o)) continue;
    const Array* a = nb::inst_ptr<Array>(o);
    const bool host_scalar = a->ndim() == 0 && !a->pending() && a->device().is_cpu();
    if (a->device() != d && !host_scalar) {
      throw ValueError("arrays are on different devices: " + d.str() + " and " + a->device().str() +
                       "; move one with asarray(x, device=...)");
    }
  }
  push_thread_device(d);
  return true;
}

Device operands_device(std::initializer_list<nb::handle> objs) {
  return operands_device(objs.begin(), objs.size());
}

Operand operand_from_py(nb::handle obj, Device device) {
  PyObject* p = obj.ptr();
  // The common operands first, by exact type: a Python float costs no subclass walk.
  if (PyFloat_CheckExact(p)) return Operand::py_float(PyFloat_AS_DOUBLE(p));
  if (is_array(p)) return Operand::of(*nb::inst_ptr<Array>(p));
  if (PyBool_Check(p)) {
    return Operand::py_bool(p == Py_True);
  }
  if (PyLong_CheckExact(p) || (PyLong_Check(p) && !PyObject_HasAttrString(p, "dtype"))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (!overflow) return Operand::py_int(v);
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(p);
      if (!PyErr_Occurred()) return Operand::py_uint(u);
      PyErr_Clear();
    }
    throw OverflowError("Python integer " + nb::cast<std::string>(nb::str(obj)) +
                        " is too large for numfuse (no object dtype)");
  }
  if (PyFloat_CheckExact(p)) return Operand::py_float(PyFloat_AS_DOUBLE(p));
  if (PyComplex_CheckExact(p)) {
    return Operand::py_complex(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p));
  }
  // NumPy scalars and other 0-d values stay on the host: kernels take them as parameters. A
  // NumPy scalar of a numfuse dtype is read in place (numpy.asarray and its conversion cost
  // ~6 us of an ~0.6 us `a * numpy.float32(c)`); its dtype is strong, as NumPy's is.
  DType scalar_dtype;
  const void* scalar_value;
  if (numpy_scalar_value(p, &scalar_dtype, &scalar_value)) {
    return Operand::of(Array::scalar(scalar_value, scalar_dtype));
  }
  nb::object np_arr = numpy().attr("asarray")(obj);
  if (!supported_numpy_dtype(np_arr.attr("dtype"))) {
    throw UnsupportedOperand("numfuse does not support " +
                             nb::cast<std::string>(nb::repr(np_arr.attr("dtype"))));
  }
  const bool scalar = nb::cast<int64_t>(np_arr.attr("ndim")) == 0;
  return Operand::of(array_from_numpy(np_arr, scalar ? Device::cpu() : device));
}

Operand value_from_py(nb::handle obj, DType target, Device device) {
  try {
    return operand_from_py(obj, device);
  } catch (const UnsupportedOperand&) {
    // NumPy's setitem converts such values to the target dtype itself ('1.5', None -> nan).
    nb::object np_arr = numpy().attr("asarray")(obj, dtype_to_py(target));
    const bool scalar = nb::cast<int64_t>(np_arr.attr("ndim")) == 0;
    return Operand::of(array_from_numpy(np_arr, scalar ? Device::cpu() : device));
  }
}

namespace {
nb::object dtype_repr_of(nb::handle obj) {
  if (is_array(obj.ptr())) return nb::repr(dtype_to_py(nb::inst_ptr<Array>(obj)->dtype));
  nb::object dt = numpy().attr("asarray")(obj).attr("dtype");
  return nb::repr(dt);
}
}  // namespace

// NumPy runs its object loop for an operand of dtype object (None, an arbitrary object): the
// error is the one Python's operator raises on the elements (`arange(3) + None`: a plain
// TypeError "unsupported operand type(s) for +: 'int' and 'NoneType'"). The same ufunc of NumPy
// on one-element stand-ins of the arrays raises it; whatever else happens, UFuncTypeError stays.
void raise_object_loop_error(UFunc op, const std::vector<nb::handle>& operands) {
  bool object_operand = false;
  for (nb::handle h : operands) {
    if (!is_array(h.ptr())) object_operand |= nb::cast<std::string>(dtype_repr_of(h)) == "dtype('O')";
  }
  if (!object_operand) return;
  nb::object np = numpy();
  if (!nb::hasattr(np, ufunc_name(op))) return;
  nb::list args;
  for (nb::handle h : operands) {
    if (is_array(h.ptr())) {
      args.append(np.attr("zeros")(1, dtype_to_py(nb::inst_ptr<Array>(h)->dtype)));
    } else {
      args.append(h);
    }
  }
  try {
    np.attr(ufunc_name(op))(*args);
  } catch (nb::python_error& e) {
    if (e.matches(PyExc_TypeError)) throw;
  }
}

void raise_no_loop(UFunc op, const std::vector<nb::handle>& operands) {
  raise_object_loop_error(op, operands);
  std::string types;
  for (nb::handle h : operands) {
    if (!types.empty()) types += ", ";
    types += nb::cast<std::string>(dtype_repr_of(h));
  }
  throw UFuncTypeError(std::string("ufunc '") + ufunc_name(op) +
                       "' did not contain a loop with signature matching types (" + types +
                       ") -> None");
}

Array array_from_numpy(nb::handle np_array, Device device) {
  nb::object arr = nb::borrow(np_array);
  nb::object dt = arr.attr("dtype");
  if (!nb::cast<bool>(dt.attr("isnative"))) arr = arr.attr("astype")(dt.attr("newbyteorder")("="));
  DType dtype = dtype_from_py(arr.attr("dtype"));
  Py_buffer view;
  if (PyObject_GetBuffer(arr.ptr(), &view, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
  Shape shape(view.shape, view.shape + view.ndim);
  Strides strides(view.ndim);
  const int64_t size = static_cast<int64_t>(itemsize(dtype));
  for (int i = 0; i < view.ndim; ++i) strides[i] = view.strides[i] / size;
  bool aligned = true;
  for (int i = 0; i < view.ndim; ++i) aligned &= view.strides[i] % size == 0;
  aligned &= reinterpret_cast<uintptr_t>(view.buf) % size == 0;
  const bool c_contig = aligned && is_c_contiguous(shape, strides);
  if (!device.is_cpu() && c_contig) {
    // Straight from NumPy's memory to the device (staged through pinned memory).
    Array src;
    src.dtype = dtype;
    src.shape = shape;
    src.strides = strides;
    src.storage = std::make_shared<Storage>();
    src.storage->nbytes = static_cast<size_t>(view.len);
    src.storage->buffer = Buffer::wrap(view.buf, static_cast<size_t>(view.len), Device::cpu(),
                                       nullptr, nullptr);
    Array out = Array::empty(shape, dtype, device);
    try {
      run_blocking([&] { backend::copy_into(src, out); });
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
    PyBuffer_Release(&view);
    return out;
  }
  Array out = Array::empty(shape, dtype, Device::cpu());
  if (aligned) {
    Array src;
    src.dtype = dtype;
    src.shape = shape;
    src.strides = strides;
    src.storage = std::make_shared<Storage>();
    src.storage->nbytes = static_cast<size_t>(view.len);
    src.storage->buffer = Buffer::wrap(view.buf, static_cast<size_t>(view.len), Device::cpu(),
                                       nullptr, nullptr);
    try {
      if (view.len >= (Py_ssize_t(1) << 20)) {
        run_blocking([&] { backend::copy_into(src, out); });  // long copies let other threads run
      } else {
        backend::copy_into(src, out);
      }
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
  } else {
    if (PyBuffer_ToContiguous(out.data(), &view, view.len, 'C') != 0) {
      PyBuffer_Release(&view);
      throw nb::python_error();
    }
  }
  PyBuffer_Release(&view);
  if (device.is_cpu()) return out;
  Array dev = Array::empty(shape, dtype, device);
  run_blocking([&] { backend::copy_into(out, dev); });
  return dev;
}

Array array_from_py(nb::handle obj, std::optional<DType> dtype, Device device) {
  if (nb::isinstance<Array>(obj)) {
    const Array& a = nb::cast<const Array&>(obj);
    return dtype && *dtype != a.dtype ? astype(a, *dtype) : a;
  }
  nb::object np_arr = dtype ? numpy().attr("asarray")(obj, dtype_to_py(*dtype))
                            : numpy().attr("asarray")(obj);
  return array_from_numpy(np_arr, device);
}

namespace {
nb::dlpack::dtype dlpack_dtype(DType d) {
  using nb::dlpack::dtype_code;
  uint8_t bits = static_cast<uint8_t>(itemsize(d) * 8);
  dtype_code code = dtype_code::Float;
  if (d == DType::Bool) code = dtype_code::Bool;
  else if (is_unsigned(d)) code = dtype_code::UInt;
  else if (is_integer(d)) code = dtype_code::Int;
  else if (is_complex(d)) code = dtype_code::Complex;
  return nb::dlpack::dtype{static_cast<uint8_t>(code), bits, 1};
}
}  // namespace

Array to_device(const Array& a, Device device) {
  if (a.device() == device) return a;
  check_device_usable(device);
  eval(a, FlushReason::HostRead);
  Array out = Array::empty(a.shape, a.dtype, device);
  run_blocking([&] { backend::copy_into(a, out); });
  return out;
}

nb::object host_numpy_copy(const Array& a) {
  eval(a, FlushReason::HostRead);
  // One copy (from any strides, from any device) straight into a fresh NumPy array of NumPy's
  // own making: no view, capsule or buffer object in between, and NumPy frees it as its own.
  static nb::object* np_empty = new nb::object(numpy().attr("empty"));
  PyObject* shape = PyTuple_New(a.ndim());
  if (!shape) throw nb::python_error();
  for (int d = 0; d < a.ndim(); ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(a.shape[d]));
  nb::object out = (*np_empty)(nb::steal(shape), dtype_to_py(a.dtype));
  if (a.size() == 0) return out;
  Py_buffer view;
  if (PyObject_GetBuffer(out.ptr(), &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  Array dst;
  dst.dtype = a.dtype;
  dst.shape = a.shape;
  dst.strides = contiguous_strides(a.shape);
  dst.storage = std::make_shared<Storage>();
  dst.storage->nbytes = static_cast<size_t>(view.len);
  dst.storage->buffer = Buffer::wrap(view.buf, static_cast<size_t>(view.len), Device::cpu(), nullptr, nullptr);
  try {
    if (a.nbytes() >= (size_t(1) << 20) || !a.device().is_cpu()) {
      run_blocking([&] { backend::copy_into(a, dst); });  // long copies let other threads run
    } else {
      backend::copy_into(a, dst);
    }
  } catch (...) {
    PyBuffer_Release(&view);
    throw;
  }
  PyBuffer_Release(&view);
  return out;
}

nb::object host_numpy_view(const Array& a, HostUse use) {
  if (!a.device().is_cpu()) {
    eval(a, FlushReason::HostRead);
    // A device array is read through a contiguous host copy (the transfer waits for the stream):
    // private memory, so nothing to guard, and writeable as every copy NumPy makes (also of a
    // read-only view, e.g. a broadcast one).
    Array host = Array::empty(a.shape, a.dtype, Device::cpu());
    run_blocking([&] { backend::copy_into(a, host); });
    return host_numpy_view(host, use);
  }
  const bool exported = use == HostUse::Export && a.writeable;
  // The capsule owns a reference to the storage; an exported view also counts itself in it, so
  // that nodes recorded while it lives read the memory at once (graph/eval.cpp). Counted before
  // the flush below, so that no reader another thread records in between is missed.
  struct Keep {
    std::shared_ptr<Storage> storage;
    bool counted;
  };
  auto* keep = new Keep{a.storage, exported};
  if (exported) a.storage->host_views.fetch_add(1, std::memory_order_relaxed);
  nb::capsule owner(keep, [](void* p) noexcept {
    auto* k = static_cast<Keep*>(p);
    if (k->counted) k->storage->host_views.fetch_sub(1, std::memory_order_relaxed);
    delete k;
  });
  if (exported) {
    // NumPy may write through the view at once: pending nodes that read this memory must see
    // the values of now (prepare_write materialises `a` too). Nothing pending and no reader
    // (writable_now, the usual asnumpy of a result): nothing to do, and the graph's lock and
    // entry are not paid (0.05 us of asnumpy's 0.14).
    if (!writable_now(a)) prepare_write(a);
  } else {
    eval(a, FlushReason::HostRead);
  }
  // NumPy's C API makes the view (~0.1 us; a DLPack round trip through nanobind cost ~0.5 us),
  // with NumPy's own descriptors (int64 prints as int64, not as C long long).
  const bool writeable = a.writeable && use == HostUse::Export;
  // numfuse's strides are in elements, NumPy's in bytes. A stride that does not fit in bytes can
  // only be one that never moves (an extent of 1, an empty array): NumPy gets 0 there.
  Strides byte_strides = a.strides;
  const bool empty = a.size() == 0;
  for (size_t d = 0; d < byte_strides.size(); ++d) {
    int64_t bytes = 0;
    if (__builtin_mul_overflow(byte_strides[d], static_cast<int64_t>(itemsize(a.dtype)), &bytes)) {
      if (!empty && a.shape[d] > 1) throw ValueError("strides too large for a NumPy view");
      bytes = 0;
    }
    byte_strides[d] = bytes;
  }
  nb::object out = nb::steal(numpy_view_of(a.data(), a.dtype, static_cast<int>(a.ndim()), a.shape.data(),
                                           byte_strides.data(), writeable, owner.release().ptr()));
  // A read-only view whose base is not an ndarray may have WRITEABLE set back by its user; an
  // exported read-only view must stay so (nothing else guards the memory behind it): as a view of
  // that view, NumPy refuses, as for numpy.broadcast_to.
  if (!a.writeable && use == HostUse::Export) out = out.attr("view")();
  return out;
}

}  // namespace nf::py
