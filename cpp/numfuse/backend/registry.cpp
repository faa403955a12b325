// The registry of backends: the one place that knows every backend compiled in. Backends are made
// at first use rather than by static registration objects: the core is a static library, whose
// linker would drop an object file that nothing references, registration object and all.
#include <array>

#include "numfuse/backend/backend.h"
#include "numfuse/backend/cpu/cpu_backend.h"
#include "numfuse/backend/cuda/cuda_backend.h"
#include "numfuse/core/error.h"

namespace nf {

namespace {

struct Registry {
  std::vector<Backend*> list;
  std::array<Backend*, 2> by_kind{};  // indexed by Device::Kind
};

// Made once, never destroyed: buffers freed during interpreter shutdown may still ask for theirs.
const Registry& registry() {
  static const Registry* r = [] {
    auto* reg = new Registry();
    for (Backend* b : {cpu::make_cpu_backend().release(), cuda::make_cuda_backend().release()}) {
      reg->list.push_back(b);
      reg->by_kind[static_cast<size_t>(b->kind())] = b;
    }
    return reg;
  }();
  return *r;
}

}  // namespace

Backend* find_backend(Device::Kind kind) {
  const size_t i = static_cast<size_t>(kind);
  return i < registry().by_kind.size() ? registry().by_kind[i] : nullptr;
}

Backend& backend_for(Device::Kind kind) {
  if (Backend* b = find_backend(kind)) return *b;
  throw Error("no backend is registered for device kind " + std::to_string(static_cast<int>(kind)));
}

const std::vector<Backend*>& backends() { return registry().list; }

}  // namespace nf
