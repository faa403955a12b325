// Shared declarations of the nanobind bindings: one bind_* function per file, and the
// conversions between Python objects and core types.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <initializer_list>

#include "numfuse/core/array.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/indexing.h"

namespace nb = nanobind;

namespace nf::py {

void bind_errors(nb::module_& m);
void bind_array(nb::module_& m);
void bind_ufuncs(nb::module_& m);
void bind_creation(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_fft(nb::module_& m);  // numfuse.fft
void bind_random(nb::module_& m);
void bind_cuda(nb::module_& m);  // numfuse._core.cuda
void bind_nccl(nb::module_& cuda);  // numfuse._core.cuda's NCCL calls (bind_nccl.cpp)
void bind_kernels(nb::module_& m);  // numfuse._core.kernels: users' CUDA C++ kernels
void bind_advanced_indexing(nb::module_& m);
void bind_reductions(nb::module_& m);
void bind_sort(nb::module_& m);  // bind_sort.cpp
void bind_statistics(nb::module_& m);  // bind_statistics.cpp
void bind_numerical(nb::module_& m);  // bind_numerical.cpp: interp
void bind_construction(nb::module_& m);  // bind_construction.cpp: ndarray(...), views by strides
void bind_errstate(nb::module_& m);  // numpy.errstate hooks of the core
void bind_dlpack(nb::module_& m);  // bind_dlpack.cpp: DLPack capsules, foreign CUDA memory
void bind_memmap(nb::module_& m);  // bind_memmap.cpp: arrays over a mapped file's memory
void bind_stencil(nb::module_& m);  // bind_stencil.cpp: numfuse.stencil's cached views
void init_slots(nb::module_& m);  // before any raw slot runs
void bind_evaluation(nb::module_& m);  // GIL release, Ctrl-C and fork handlers of evaluation

// Raw type slots (slots.cpp): a C++ exception caught in a slot, raised as nanobind would
// (returns NULL); exact and subclass tests of numfuse.ndarray.
PyObject* raise_from_slot(std::exception_ptr p);
bool is_exact_array(PyObject* h);
bool is_array(PyObject* h);
// A new numfuse.ndarray object holding `a` (a new reference).
PyObject* new_array_object(Array&& a);
// The result of a product that NumPy returns as a scalar when it is 0-d (matmul, dot, vdot and
// inner of two vectors): on the CPU NumPy's scalar of its value, evaluated now, as NumPy returns
// `v @ w`; elsewhere the array (on a GPU a 0-d array, as CuPy's, so that a loop does not wait for
// the device). A new reference.
PyObject* new_result_object(Array&& a);
// The ndarray's operator slots (bind_operators.cpp), for nb::type_slots.
PyType_Slot* array_operator_slots();
// ndarray's mapping slots (bind_indexing.cpp): a[key], a[key] = value and del a[key].
PyObject* getitem_slot(PyObject* self, PyObject* key);
int setitem_slot(PyObject* self, PyObject* key, PyObject* value);

// NumPy scalars (numpy_scalars.cpp, through NumPy's C API). A new numpy.float64, numpy.int32,
// numpy.bool_ ... holding the value of dtype `d` at `p` (any alignment), as NumPy's indexing
// returns it.
PyObject* numpy_scalar(DType d, const void* p);
// The dtype of a NumPy scalar whose type is exactly one of numfuse's dtypes, and where its value
// lies; false for any other object (a Python float, a subclass, numpy.longdouble).
bool numpy_scalar_value(PyObject* o, DType* d, const void** value);
// Whether o is a 0-d NumPy array of an integer dtype (an integer index to NumPy).
bool is_numpy_integer_0d(PyObject* o);
// A numpy.ndarray viewing `data` (dtype `d`, strides in bytes) whose base is `owner` (a new
// reference, stolen: released with the view, or at once when making it fails). Python error on failure.
PyObject* numpy_view_of(void* data, DType d, int ndim, const int64_t* shape, const int64_t* strides,
                        bool writeable, PyObject* owner);

// numpy, imported once.
nb::module_& numpy();

// NumPy dtype objects <-> DType. Accepts anything numpy.dtype() accepts; TypeError for dtypes
// numfuse does not support (strings, objects, datetimes, longdouble).
DType dtype_from_py(nb::handle obj);
nb::object dtype_to_py(DType d);
// Optional dtype argument: None -> nullopt.
std::optional<DType> optional_dtype(nb::handle obj);

// Where a function of these operands puts its result and the arrays it makes of the non-array
// operands (lists, NumPy arrays): the device of the first numfuse array of more than 0 dimensions
// (or pending), else of the first numfuse 0-d array, else the default device, which is asked for
// only then (NumPy's rule for numfuse: a function of arrays on D creates its results on D).
Device operands_device(std::initializer_list<nb::handle> objs);
Device operands_device(const nb::handle* objs, size_t n);
// numfuse._creation.follows_operands's call: the device of the numfuse arrays among a call's
// arguments (list and tuple arguments looked into), pushed on the thread's device stack (true),
// or nothing when there is none (false). Arrays on two devices raise the ValueError of mixing
// devices (a host 0-d array excepted, as in common_device).
bool push_operands_device(nb::handle args, nb::handle kwargs);
// A ufunc operand: numfuse arrays as they are, Python scalars weak (NEP 50), anything else
// through numpy.asarray.
Operand operand_from_py(nb::handle obj, Device device);
// numfuse.asarray(obj, dtype): numfuse arrays are returned as they are (cast if dtype differs).
Array array_from_py(nb::handle obj, std::optional<DType> dtype, Device device);
// A copy of a NumPy (or buffer-protocol) array in a new numfuse array.
Array array_from_numpy(nb::handle np_array, Device device);
// What a NumPy view of a host array is for. Export: handed to the user (numpy.asarray,
// asnumpy), who may write through it: pending readers of the memory are evaluated first and,
// while the view lives, new ones when they are recorded (docs/decisions.md, "asnumpy shares
// memory"). Read: numfuse's own short read (repr, tolist, float()) that lets no one write: the
// view is read-only and the graph is left as it is.
enum class HostUse { Export, Read };
// A NumPy array viewing a host array's memory (keeps the storage alive; any strides; read-only
// when `a` is); for a device array, a NumPy array over a host copy. Evaluates `a` first.
nb::object host_numpy_view(const Array& a, HostUse use = HostUse::Export);
// A private NumPy copy of `a` in C order (ndarray.__array__(copy=True)): evaluates, copies once,
// no view in between.
nb::object host_numpy_copy(const Array& a);
// `a` on `device` (itself when already there; otherwise a copy).
Array to_device(const Array& a, Device device);

// `r`, computed from the array object `self`: when r is a view of self's memory it records the
// owner of that memory as its base (view_base.cpp), as NumPy's ndarray.base does.
Array as_view_of(nb::handle self, Array r);
// A reference to array object `self`, held as the base of views of its memory (view_base.cpp).
// `self_array`: self's own Array, where the caller has it (one nanobind lookup fewer per view).
BaseRef base_reference(nb::handle self);
BaseRef base_reference(nb::handle self, Array& self_array);
// A new ndarray object: the view (shape, strides, byte_offset) of array object `self`'s memory,
// with `self` (or its own base) as its base. `a` is self's Array.
PyObject* new_view_object(nb::handle self, Shape&& shape, Strides&& strides, int64_t byte_offset);
PyObject* new_view_object(nb::handle self, const Array& a, Shape&& shape, Strides&& strides,
                          int64_t byte_offset);
// The type's getset table (ndarray.T), a slot of the ndarray type (slots.cpp).
PyGetSetDef* array_getset();
// numfuse.ndarray as no GC type with weak references of its own (untracked_arrays.cpp): called
// once on the type, bound without nb::is_weak_referenceable, before any instance exists.
void untrack_array_type(nb::handle type);
// __init__'s Array, a copy of `contents`, built in the new instance whose payload is `payload`.
void build_in_new_object(Array* payload, const Array& contents);
// ndarray.base: the owner object of a view's memory, None for an array that owns its memory.
nb::object base_of(const Array& a);

// A Python slice object as an index item (bounds still unadjusted: None stays "not given").
IndexItem slice_item(PyObject* slice);

// Python int -> int64 with OverflowError past its range.
int64_t py_to_int64(nb::handle obj);

// What an integer argument is for: each use reads non-integers and values past int64 as NumPy
// does (TypeError "'float' object cannot be interpreted as an integer" for every use, then):
enum class IntUse {
  Plain,       // offsets, counts: OverflowError past int64
  Axis,        // an axis (NumPy's PyArray_AxisConverter): as Plain, bools refused, ValueError
               // past a C int
  CInt,        // a C int method argument (PyArg "i": swapaxes, diagonal): OverflowError past it
  Dim,         // a shape entry: ValueError "Maximum allowed dimension exceeded"
  Index,       // an integer index: OverflowError in (2**63, 2**64), IndexError (NumPy's "only
               // integers, slices ..." message) past those
  SliceBound,  // slice start/stop/step: clamped to int64, as Python's slices are
  Clamped,     // an offset whose far values all mean the same (eye's k): clamped to int64
};
// The checked conversion every integer argument goes through (PyNumber_Index, then int64).
int64_t py_index(nb::handle obj, IntUse use = IntUse::Plain);
// A shape: one integer or a sequence of them, with NumPy's errors ("expected a sequence of
// integers or a single integer, got '2.0'", "Use () not None as shape arguments").
Shape py_shape(nb::handle obj);
// The integers of a shape-like sequence (NumPy's PyArray_IntpConverter): nullopt for an int or
// an object that does not iterate (a 0-d array), which the caller reads as one integer.
std::optional<std::vector<int64_t>> int_sequence(nb::handle obj, IntUse use);
// NumPy's message for a key item that is no valid index.
extern const char* const kBadIndexMessage;

// A value to be stored into an array of `target` dtype (setitem, fill, full): as
// operand_from_py, except that values NumPy reads as strings, objects or other dtypes numfuse
// lacks are converted to `target` by NumPy itself, with its results ('1.5' -> 1.5, None -> nan)
// and its errors (ValueError "could not convert string to float: 'abc'").
Operand value_from_py(nb::handle obj, DType target, Device device);

// An operand whose NumPy dtype has no numfuse loops (strings, objects, datetimes): ufunc entry
// points turn it into NumPy's UFuncTypeError naming the ufunc and the operand dtypes; the
// comparison operators hand the comparison to NumPy (`a == None` is an array of False).
struct UnsupportedOperand : UFuncTypeError {
  using UFuncTypeError::UFuncTypeError;
};
// NumPy's "ufunc 'add' did not contain a loop with signature matching types (dtype('int64'),
// dtype('<U1')) -> None" for these operands.
[[noreturn]] void raise_no_loop(UFunc op, const std::vector<nb::handle>& operands);
Casting casting_from_str(const std::string& s);

}  // namespace nf::py
