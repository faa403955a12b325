// NumPy scalars (and NumPy views of host memory) made and read in C++ through NumPy's own C API: a[i, j] of a CPU array returns
// numpy.float64, numpy.int32, numpy.bool_ ... as NumPy's indexing does, and the values a Python
// loop writes back (those same scalars) are read without a conversion call. The only file that
// includes NumPy's headers (its API table is static to it).
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include <cstring>

#include "bindings.h"

namespace nf::py {

namespace {

// NumPy's type number of each numfuse dtype, in DType order.
constexpr int kTypeNums[kNumDTypes] = {NPY_BOOL,    NPY_INT8,    NPY_UINT8,   NPY_INT16,  NPY_UINT16,
                                       NPY_INT32,   NPY_UINT32,  NPY_INT64,   NPY_UINT64, NPY_FLOAT16,
                                       NPY_FLOAT32, NPY_FLOAT64, NPY_COMPLEX64, NPY_COMPLEX128};

// Where a scalar object keeps its value: after the object header in every scalar struct of
// arrayscalars.h (PyDoubleScalarObject::obval ...); one offsetof per struct, in DType order.
const size_t kValueOffsets[kNumDTypes] = {
    offsetof(PyBoolScalarObject, obval),   offsetof(PyByteScalarObject, obval),
    offsetof(PyUByteScalarObject, obval),  offsetof(PyShortScalarObject, obval),
    offsetof(PyUShortScalarObject, obval), offsetof(PyIntScalarObject, obval),
    offsetof(PyUIntScalarObject, obval),   offsetof(PyLongScalarObject, obval),
    offsetof(PyULongScalarObject, obval),  offsetof(PyHalfScalarObject, obval),
    offsetof(PyFloatScalarObject, obval),  offsetof(PyDoubleScalarObject, obval),
    offsetof(PyCFloatScalarObject, obval), offsetof(PyCDoubleScalarObject, obval)};
static_assert(sizeof(long) == 8, "numpy.int64 is NumPy's C long on the platforms numfuse builds for");

struct ScalarTypes {
  PyArray_Descr* descr[kNumDTypes];
  PyTypeObject* type[kNumDTypes];
  PyObject *true_, *false_;  // numpy.True_ and numpy.False_
};

const ScalarTypes& scalar_types() {
  static const ScalarTypes* t = [] {
    if (PyArray_ImportNumPyAPI() < 0) throw nb::python_error();
    auto* s = new ScalarTypes;  // never freed: the types live as long as NumPy
    for (int i = 0; i < kNumDTypes; ++i) {
      s->descr[i] = PyArray_DescrFromType(kTypeNums[i]);
      if (!s->descr[i]) throw nb::python_error();
      s->type[i] = s->descr[i]->typeobj;
    }
    npy_bool yes = 1, no = 0;
    s->true_ = PyArray_Scalar(&yes, s->descr[0], nullptr);
    s->false_ = PyArray_Scalar(&no, s->descr[0], nullptr);
    if (!s->true_ || !s->false_) throw nb::python_error();
    return s;
  }();
  return *t;
}

}  // namespace

PyObject* numpy_scalar(DType d, const void* p) {
  const ScalarTypes& t = scalar_types();
  // What PyArray_Scalar does for these dtypes, without its checks for the others: NumPy's
  // True_/False_ for bools, else a new object of the scalar type with the value copied in.
  if (d == DType::Bool) {
    PyObject* r = *static_cast<const bool*>(p) ? t.true_ : t.false_;
    Py_INCREF(r);
    return r;
  }
  const int k = static_cast<int>(d);
  PyTypeObject* type = t.type[k];
  PyObject* r = type->tp_alloc(type, 0);
  if (!r) throw nb::python_error();
  std::memcpy(reinterpret_cast<char*>(r) + kValueOffsets[k], p, itemsize(d));
  return r;
}

bool numpy_scalar_value(PyObject* o, DType* d, const void** value) {
  const ScalarTypes& t = scalar_types();
  PyTypeObject* tp = Py_TYPE(o);
  for (int i = 0; i < kNumDTypes; ++i) {
    if (tp == t.type[i]) {
      *d = static_cast<DType>(i);
      *value = reinterpret_cast<const char*>(o) + kValueOffsets[i];
      return true;
    }
  }
  return false;
}

PyObject* numpy_view_of(void* data, DType d, int ndim, const int64_t* shape, const int64_t* strides,
                        bool writeable, PyObject* owner) {
  const ScalarTypes& t = scalar_types();
  PyArray_Descr* descr = t.descr[static_cast<int>(d)];
  Py_INCREF(descr);  // PyArray_NewFromDescr steals it
  static_assert(sizeof(npy_intp) == sizeof(int64_t), "numfuse's extents are NumPy's npy_intp");
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, reinterpret_cast<npy_intp*>(const_cast<int64_t*>(shape)),
                                       reinterpret_cast<npy_intp*>(const_cast<int64_t*>(strides)), data,
                                       writeable ? NPY_ARRAY_WRITEABLE : 0, nullptr);
  if (!arr) {
    Py_DECREF(owner);
    throw nb::python_error();
  }
  // Steals `owner` even when it fails (NumPy's rule).
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return arr;
}

bool is_numpy_integer_0d(PyObject* o) {
  scalar_types();  // the API table
  return PyArray_Check(o) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(o)) == 0 &&
         PyArray_ISINTEGER(reinterpret_cast<PyArrayObject*>(o));
}

}  // namespace nf::py
