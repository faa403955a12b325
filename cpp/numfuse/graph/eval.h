// Evaluation: turns pending arrays into materialised ones.
#pragma once
#include <mutex>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/graph/flush.h"

namespace nf {

// Guards the pending graph: evaluation runs without the GIL, so Python threads may build and
// evaluate graphs side by side. Recursive: evaluation can be entered from graph building.
std::recursive_mutex& graph_mutex();

// Materialises every pending array given (and everything they depend on).
void eval(const std::vector<Array>& arrays, FlushReason why);
inline void eval(const Array& a, FlushReason why) {
  if (a.pending()) eval(std::vector<Array>{a}, why);
}

// Before writing into `dst`'s storage: materialise it, and evaluate every pending node that
// still reads it, so that they see the old values (NumPy's eager semantics).
void prepare_write(const Array& dst);

}  // namespace nf
