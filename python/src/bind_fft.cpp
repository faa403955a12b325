// numfuse.fft's core: one transform call (python/numfuse/fft/_pocketfft.py turns numpy.fft's
// arguments into it).
#include "bindings.h"
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
  m.def("fft_transform",
        [](nb::handle a, const std::string& kind, bool forward, const std::vector<int64_t>& axes,
           const std::vector<int64_t>& n, double scale) {
          const Device dev = nb::isinstance<Array>(a) ? nb::cast<const Array&>(a).device()
                                                      : default_device();
          return fft(array_from_py(a, std::nullopt, dev), fft_kind_from_str(kind), forward, axes,
                     n, scale);
        },
        nb::arg("a"), nb::arg("kind"), nb::arg("forward"), nb::arg("axes"), nb::arg("n"),
        nb::arg("scale") = 1.0,
        "One transform of kind 'c2c', 'r2c' or 'c2r' over axes with lengths n, scaled.");
  m.def("fft_complex_dtype", [](nb::handle dt) { return dtype_to_py(fft_complex_dtype(dtype_from_py(dt))); });
}

}  // namespace nf::py
