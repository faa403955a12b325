#include "numfuse/core/device.h"

#include <cstdlib>

#include "numfuse/core/error.h"

namespace nf {

namespace {
Device initial_device() {
  const char* v = std::getenv("NUMFUSE_DEVICE");
  if (v && *v) {
    Device d = parse_device(v);
    if (d.is_cpu()) return d;
    // CUDA devices are validated by the CUDA backend when it exists; until then, the CPU.
  }
  return Device::cpu();
}
Device g_default = initial_device();
}  // namespace

Device default_device() { return g_default; }
void set_default_device(Device d) { g_default = d; }

Device parse_device(const std::string& s) {
  if (s == "cpu") return Device::cpu();
  if (s == "cuda" || s == "gpu") return Device::cuda(0);
  if (s.rfind("cuda:", 0) == 0) {
    try {
      size_t used = 0;
      int i = std::stoi(s.substr(5), &used);
      if (used == s.size() - 5 && i >= 0) return Device::cuda(i);
    } catch (...) {
    }
  }
  throw ValueError("unknown device '" + s + "': expected 'cpu', 'cuda' or 'cuda:N'");
}

}  // namespace nf
