#include "numfuse/graph/flush.h"

#include <cstdlib>
#include <string>

namespace nf {

const char* flush_reason_name(FlushReason r) {
  switch (r) {
    case FlushReason::HostRead: return "host-read";
    case FlushReason::DataDependent: return "data-dependent-shape";
    case FlushReason::OpaqueInput: return "opaque-input";
    case FlushReason::Write: return "write";
    case FlushReason::Explicit: return "explicit";
    case FlushReason::GraphDepthLimit: return "graph-depth-limit";
    case FlushReason::GraphSizeLimit: return "graph-size-limit";
    case FlushReason::HostView: return "host-view";
  }
  return "?";
}

static int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  try {
    return std::stoll(v);
  } catch (...) {
    return fallback;
  }
}

static GraphLimits& limits_storage() {
  static GraphLimits limits = {
      static_cast<int>(env_int("NUMFUSE_MAX_GRAPH_DEPTH", 256)),
      env_int("NUMFUSE_MAX_PENDING_NODES", 100000),
      env_int("NUMFUSE_TRACE", 0) != 0,
      env_int("NUMFUSE_FUSION", 1) != 0,
      // As deep as the depth limit lets a chain grow: a flushed chain is one kernel launch (each
      // launch costs the host several microseconds; the chain of a Python loop flushes often).
      static_cast<int>(env_int("NUMFUSE_MAX_GROUP_OPS", 256)),
      static_cast<int>(env_int("NUMFUSE_MAX_GROUP_INPUTS", 32)),
      // CUDA's classic limit on kernel parameters (4 KiB; newer drivers allow more).
      static_cast<int>(env_int("NUMFUSE_MAX_KERNEL_PARAM_BYTES", 4096)),
      // Below this many elements the graph's bookkeeping costs more than fusion saves on the CPU
      // (docs/decisions.md, "Immediate evaluation of small CPU ops"; 16384 until NPBench's
      // floyd_warshall, ops on 4e4 elements, measured 0.56x NumPy with it and 1.3x with 65536).
      env_int("NUMFUSE_IMMEDIATE_MAX", 65536),
  };
  return limits;
}

const GraphLimits& graph_limits() { return limits_storage(); }
void set_fusion_enabled(bool on) { limits_storage().fusion = on; }
void set_immediate_max(int64_t elements) { limits_storage().immediate_max = elements; }

}  // namespace nf
