// Evaluation: turns pending arrays into materialised ones.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/graph/flush.h"

namespace nf {

// Guards the pending graph: evaluation runs without the GIL, so Python threads may build and
// evaluate graphs side by side. Recursive: evaluation can be entered from graph building.
std::recursive_mutex& graph_mutex();

// Materialises every pending array given (and everything they depend on).
void eval(const std::vector<Array>& arrays, FlushReason why);
void eval_pending(const Array& a, FlushReason why);  // eval(a) when a is pending
inline void eval(const Array& a, FlushReason why) {
  if (a.pending()) eval_pending(a, why);
}

// Evaluates `src` (pending, the whole output of an elementwise node, nobody else holding it)
// straight into `dst` (same shape and dtype, any strides): the write is the group's output, with
// no temporary. Returns false, doing nothing, when that is not possible or not safe (an input of
// src's graph overlaps dst through another mapping): the caller then copies through memory.
bool eval_into(const Array& src, const Array& dst);

// While eval_into runs: the storage whose values go to `to` instead of fresh memory.
struct WriteRedirect {
  const Storage* from = nullptr;
  Array to;
};
WriteRedirect& write_redirect();

// numfuse.explain(a): how `a` would be evaluated now — the groups the planner cuts its pending
// graph into, why each was cut, each group's program, and the generated CUDA source of groups
// whose inputs are already in memory. Evaluates nothing.
std::string explain(const Array& a);

// Before writing into `dst`'s storage: materialise it, and evaluate every pending node that
// still reads it, so that they see the old values (NumPy's eager semantics).
void prepare_write(const Array& dst);

}  // namespace nf
