// The numfuse._core extension: one bind_* function per area.
#include "bindings.h"
#include "numfuse/core/error.h"

namespace nf::py {

namespace {
PyObject* g_axis_error = nullptr;
PyObject* g_ufunc_type_error = nullptr;
PyObject* g_linalg_error = nullptr;

PyObject* attr_or(const char* module, const char* name, PyObject* fallback) {
  try {
    nb::object m = nb::module_::import_(module);
    return nb::getattr(m, name).release().ptr();
  } catch (...) {
    PyErr_Clear();
    Py_INCREF(fallback);
    return fallback;
  }
}
}  // namespace

void bind_errors(nb::module_& m) {
  g_axis_error = attr_or("numpy.exceptions", "AxisError", PyExc_IndexError);
  // Subclass numpy's UFuncTypeError so `except UFuncTypeError` catches ours too.
  PyObject* base = attr_or("numpy._core._exceptions", "UFuncTypeError", PyExc_TypeError);
  g_ufunc_type_error = PyErr_NewException("numfuse.UFuncTypeError", base, nullptr);
  Py_DECREF(base);
  g_linalg_error = attr_or("numpy.linalg", "LinAlgError", PyExc_ValueError);
  m.attr("UFuncTypeError") = nb::handle(g_ufunc_type_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const AxisError& e) {
      PyErr_SetString(g_axis_error, e.what());
    } catch (const UFuncTypeError& e) {
      PyErr_SetString(g_ufunc_type_error, e.what());
    } catch (const LinAlgError& e) {
      PyErr_SetString(g_linalg_error, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const OverflowError& e) {
      PyErr_SetString(PyExc_OverflowError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const MemoryError& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const std::bad_cast&) {
      // A Python argument of the wrong type reached a typed conversion: NumPy's class for it.
      PyErr_SetString(PyExc_TypeError, "an argument has a type numfuse cannot use here");
    }
  });
}

}  // namespace nf::py

NB_MODULE(_core, m) {
  using namespace nf::py;
  m.doc() = "numfuse's C++ core";
  bind_errors(m);
  bind_evaluation(m);
  init_slots(m);
  bind_array(m);
  bind_ufuncs(m);
  bind_creation(m);
  bind_linalg(m);
  bind_fft(m);
  bind_random(m);
  bind_cuda(m);
  bind_kernels(m);
  bind_advanced_indexing(m);
  bind_reductions(m);
  bind_sort(m);
  bind_statistics(m);
  bind_numerical(m);
  bind_construction(m);
  bind_dlpack(m);
  bind_errstate(m);
  bind_memmap(m);
  bind_stencil(m);
}
