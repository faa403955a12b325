// numfuse.linalg's core: matmul (the one product every other is composed from) and BLAS control.
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "numfuse/backend/cpu/blas.h"
#include "numfuse/ops/linalg.h"

namespace nf::py {

void bind_linalg_decomp(nb::module_& m);  // bind_linalg_decomp.cpp

namespace {

}  // namespace

void bind_linalg(nb::module_& m) {
  m.def(
      "matmul",
      [](nb::handle a, nb::handle b, nb::handle dtype, const std::string& casting) {
        Array now;
        if (dtype.is_none() && is_exact_array(a.ptr()) && is_exact_array(b.ptr()) &&
            matmul_now(nb::cast<const Array&>(a), nb::cast<const Array&>(b), &now))
          return now;
        const Device dev = operands_device({a, b});
        return matmul(array_from_py(a, std::nullopt, dev), array_from_py(b, std::nullopt, dev),
                      optional_dtype(dtype), casting_from_str(casting));
      },
      nb::arg("a"), nb::arg("b"), nb::arg("dtype").none() = nb::none(),
      nb::arg("casting") = "same_kind");
  // NumPy's rule for a result it returns as a scalar (new_result_object): the 0-d result of a CPU
  // product (dot, vdot, inner and matmul of two vectors) becomes NumPy's scalar; others as given.
  m.def("as_result", [](nb::handle x) -> nb::object {
    if (!is_array(x.ptr())) return nb::borrow(x);
    return nb::steal(new_result_object(Array(nb::cast<const Array&>(x))));
  });
  // numpy.dot of numfuse CPU operands in a Python loop (two vectors: NumPy's scalar; a vector and
  // a matrix), computed now (ops::matmul_now); None for any other operands (the caller's general
  // path then runs).
  m.def("product_now", [](nb::handle a, nb::handle b) -> nb::object {
    Array r;
    if (!is_exact_array(a.ptr()) || !is_exact_array(b.ptr()) ||
        !matmul_now(nb::cast<const Array&>(a), nb::cast<const Array&>(b), &r))
      return nb::none();
    return nb::steal(new_result_object(std::move(r)));
  });
  m.def("matmul_shape", &matmul_shape);
  m.def("blas_info", &cpu::blas_description, "The BLAS library matmul uses, in words.");
  m.def("blas_available", &cpu::blas_available);
  m.def("set_blas_threads", &cpu::set_blas_threads, nb::arg("n"));
  m.def("blas_threads", &cpu::blas_threads);
  bind_linalg_decomp(m);
}

}  // namespace nf::py
