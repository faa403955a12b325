// numfuse.fft's core: one transform call (python/numfuse/fft/_pocketfft.py turns numpy.fft's
// arguments into it).
#include <nanobind/stl/optional.h>

#include "bindings.h"
#include "numfuse/backend/cuda/fft_plan_cache.h"
#include "numfuse/ops/fft.h"

namespace nf::py {

namespace {

FftKind fft_kind_from_str(const std::string& s) {
  if (s == "c2c") return FftKind::C2C;
  if (s == "r2c") return FftKind::R2C;
  if (s == "c2r") return FftKind::C2R;
  throw ValueError("fft: unknown transform kind '" + s + "'");
}

}  // namespace

void bind_fft(nb::module_& m) {
  m.def(
      "fft_transform",
      [](nb::handle a, const std::string& kind, bool forward, const std::vector<int64_t>& axes,
         const std::vector<int64_t>& n, double scale) {
        const Device dev = operands_device({a});
        return fft(array_from_py(a, std::nullopt, dev), fft_kind_from_str(kind), forward, axes, n,
                   scale);
      },
      nb::arg("a"), nb::arg("kind"), nb::arg("forward"), nb::arg("axes"), nb::arg("n"),
      nb::arg("scale") = 1.0,
      "One transform of kind 'c2c', 'r2c' or 'c2r' over axes with lengths n, scaled.");
  // cuFFT's plan cache per device (numfuse.fft.config): none is made until one is asked for.
  m.def("fft_plan_cache_info", [](int device) {
    const cuda::FftPlanCacheInfo i = cuda::fft_plan_cache(device).info();
    nb::dict d;
    d["size"] = i.size;
    d["memsize"] = i.memsize;
    d["curr_size"] = i.curr_size;
    d["curr_memsize"] = i.curr_memsize;
    return d;
  });
  m.def(
      "fft_plan_cache_set_limits",
      [](int device, std::optional<int64_t> size, std::optional<int64_t> memsize) {
        cuda::fft_plan_cache(device).set_limits(size, memsize);
      },
      nb::arg("device"), nb::arg("size").none(), nb::arg("memsize").none());
  m.def("fft_plan_cache_clear", [](int device) { cuda::fft_plan_cache(device).clear(); });
}

}  // namespace nf::py
