// numfuse.random's core: one counter-based draw. Generators (seed, stream, offset) live in
// python/numfuse/random.py, which reserves each draw's offset range before calling here.
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/random.h"

namespace nf::py {

void bind_random(nb::module_& m) {
  m.def("random_draw",
        [](nb::handle shape, nb::handle dtype, const std::string& dist,
           uint64_t seed, uint64_t stream, uint64_t offset, double a, double b, uint64_t low,
           uint64_t range) {
          RandomSpec spec;
          if (dist == "uniform") {
            spec.dist = RandomDist::Uniform;
          } else if (dist == "normal") {
            spec.dist = RandomDist::Normal;
          } else if (dist == "integers") {
            spec.dist = RandomDist::Integers;
          } else {
            throw ValueError("random_draw: unknown distribution '" + dist + "'");
          }
          spec.seed = seed;
          spec.stream = stream;
          spec.offset = offset;
          spec.a = a;
          spec.b = b;
          spec.low = low;
          spec.range = range;
          return random(py_shape(shape), dtype_from_py(dtype), spec, default_device());
        },
        nb::arg("shape"), nb::arg("dtype"), nb::arg("dist"), nb::arg("seed"), nb::arg("stream"),
        nb::arg("offset"), nb::arg("a") = 0.0, nb::arg("b") = 1.0, nb::arg("low") = 0,
        nb::arg("range") = 0);
}

}  // namespace nf::py
