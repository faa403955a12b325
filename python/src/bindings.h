// Shared declarations of the nanobind bindings: one bind_* function per file, and the
// conversions between Python objects and core types.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "numfuse/core/array.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/indexing.h"

namespace nb = nanobind;

namespace nf::py {

void bind_errors(nb::module_& m);
void bind_array(nb::module_& m);
void bind_ufuncs(nb::module_& m);
void bind_indexing(nb::class_<Array>& cls);  // called by bind_array
void bind_creation(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_random(nb::module_& m);
void bind_cuda(nb::module_& m);  // numfuse._core.cuda
void bind_advanced_indexing(nb::module_& m);
void bind_reductions(nb::module_& m);
void bind_errstate(nb::module_& m);  // numpy.errstate hooks of the core
void init_slots(nb::module_& m);  // before any raw slot runs

// Raw type slots (slots.cpp): a C++ exception caught in a slot, raised as nanobind would
// (returns NULL); exact and subclass tests of numfuse.ndarray.
PyObject* raise_from_slot(std::exception_ptr p);
bool is_exact_array(PyObject* h);
bool is_array(PyObject* h);
// A new numfuse.ndarray object holding `a` (a new reference).
PyObject* new_array_object(Array&& a);
// The ndarray's operator slots (bind_operators.cpp), for nb::type_slots.
PyType_Slot* array_operator_slots();

// numpy, imported once.
nb::module_& numpy();

// NumPy dtype objects <-> DType. Accepts anything numpy.dtype() accepts; TypeError for dtypes
// numfuse does not support (strings, objects, datetimes, longdouble).
DType dtype_from_py(nb::handle obj);
nb::object dtype_to_py(DType d);
// Optional dtype argument: None -> nullopt.
std::optional<DType> optional_dtype(nb::handle obj);

// A ufunc operand: numfuse arrays as they are, Python scalars weak (NEP 50), anything else
// through numpy.asarray.
Operand operand_from_py(nb::handle obj, Device device);
// numfuse.asarray(obj, dtype): numfuse arrays are returned as they are (cast if dtype differs).
Array array_from_py(nb::handle obj, std::optional<DType> dtype, Device device);
// A copy of a NumPy (or buffer-protocol) array in a new numfuse array.
Array array_from_numpy(nb::handle np_array, Device device);
// A NumPy array viewing a host array's memory (keeps the storage alive); for a device array, a
// NumPy array over a host copy. Evaluates `a` first.
nb::object host_numpy_view(const Array& a);
// A NumPy copy of `a` in C order (numfuse.asnumpy): evaluates, copies once, no view in between.
nb::object host_numpy_copy(const Array& a);
// `a` on `device` (itself when already there; otherwise a copy).
Array to_device(const Array& a, Device device);

// A Python slice object as an index item (bounds still unadjusted: None stays "not given").
IndexItem slice_item(PyObject* slice);

// Python int -> int64 with OverflowError past its range.
int64_t py_to_int64(nb::handle obj);
Casting casting_from_str(const std::string& s);

}  // namespace nf::py
