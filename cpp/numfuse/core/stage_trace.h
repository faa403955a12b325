// A timing breakdown of one call through the layers (issue 13: the fixed host cost of a small-stack
// inv on the GPU). NUMFUSE_TRACE_SMALL_LINALG=1 turns it on: the linalg binding opens a call
// (stage_trace_begin), each layer marks the stage it reached (stage_mark), the eval binding closes
// it (stage_trace_end), and at exit the median time of each stage since the previous mark, over the
// calls after the first 10 (compiles, first allocations), is printed to stderr. Off, each mark is
// one load and a branch; marks outside an open call (other ops' evaluations) record nothing.
#pragma once

namespace nf {

extern const bool g_stage_trace_on;  // NUMFUSE_TRACE_SMALL_LINALG=1, read once at load

void stage_trace_begin_slow(const char* label);
void stage_mark_slow(const char* label);
void stage_trace_end_slow(const char* label);

inline void stage_trace_begin(const char* label) {
  if (g_stage_trace_on) stage_trace_begin_slow(label);
}
inline void stage_mark(const char* label) {
  if (g_stage_trace_on) stage_mark_slow(label);
}
inline void stage_trace_end(const char* label) {
  if (g_stage_trace_on) stage_trace_end_slow(label);
}

}  // namespace nf
