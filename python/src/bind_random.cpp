// numfuse.random's core: one counter-based draw. Generators (seed, stream, offset) live in
// python/numfuse/random.py, which reserves each draw's offset range before calling here.
#include <nanobind/stl/string.h>

#include <vector>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/ops/random.h"
#include "numfuse/kernels/random_distributions.h"
#include "numfuse/ops/random_dist.h"

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
  // One draw of a distribution of kernels/random_distributions.h: `dist` its rngd::Dist number,
  // `params` floats or numfuse arrays (validated by numfuse/_random_dists.py).
  m.def("random_distribution",
        [](int dist, nb::list params, nb::handle shape, nb::handle dtype, uint64_t seed, uint64_t stream,
           uint64_t offset) {
          std::vector<RandomParam> ps;
          std::optional<Device> device;  // the array parameters' (the default asked only without)
          for (nb::handle h : params) {
            RandomParam p;
            if (nb::isinstance<Array>(h)) {
              p.array = nb::cast<const Array&>(h);
              device = p.array->device();
            } else {
              p.scalar = nb::cast<double>(h);
            }
            ps.push_back(std::move(p));
          }
          return random_distribution(dist, ps, py_shape(shape), dtype_from_py(dtype), seed, stream,
                                     offset, device ? *device : default_device());
        },
        nb::arg("dist"), nb::arg("params"), nb::arg("shape"), nb::arg("dtype"), nb::arg("seed"),
        nb::arg("stream"), nb::arg("offset"));
  // The distributions' numbers, by NumPy's name, for the Python layer.
  nb::dict dists;
  const char* names[] = {"standard_exponential", "standard_gamma", "gamma", "beta", "chisquare", "f",
                         "noncentral_chisquare", "noncentral_f", "standard_cauchy", "standard_t",
                         "exponential", "gumbel", "laplace", "logistic", "lognormal", "pareto", "power",
                         "rayleigh", "triangular", "vonmises", "wald", "weibull", "normal", "poisson",
                         "binomial", "negative_binomial", "geometric", "hypergeometric", "logseries", "zipf"};
  static_assert(sizeof(names) / sizeof(names[0]) == rngd::kNumDists, "one name per rngd::Dist");
  for (int d = 0; d < rngd::kNumDists; ++d) dists[names[d]] = d;
  m.attr("random_distributions") = dists;
}

}  // namespace nf::py
