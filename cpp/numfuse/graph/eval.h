// Evaluation: turns pending arrays into materialised ones.
#pragma once
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/graph/flush.h"

namespace nf {

// Guards the pending graph's structure (producers, inputs, readers, the planner's marks). It is
// held while a graph is walked, planned, claimed and detached, never while kernels run: nodes an
// evaluation has claimed are marked in_flight, and another thread's evaluation that reaches them
// waits (graph_mutex released) until they are done. Evaluation runs without the GIL, so Python
// threads build and evaluate graphs side by side. Recursive: explain() and the write paths nest.
// A thread never waits for the GIL while holding it (see EvalHooks).
std::recursive_mutex& graph_mutex();

// What the Python module lends evaluation; the core knows nothing of Python. Any may be null.
struct EvalHooks {
  // Called when an evaluation turns out long (large planned work, or a wait for the graph lock or
  // for another thread's evaluation): lets other threads of the host language run (releases the
  // GIL when this thread holds it) and arms Ctrl-C (core/interrupt.h). Returns what end_blocking
  // needs. Called at most once per outermost evaluation of a thread, undone when it ends, after
  // the graph lock is released.
  void* (*begin_blocking)() = nullptr;
  void (*end_blocking)(void* token) = nullptr;
  // After an evaluation threw Interrupted, with end_blocking done: runs the host language's
  // signal handlers and throws what they raise; returns when they raised nothing (the evaluation
  // then starts again: the graph is as it was before it, less what it finished).
  void (*deliver_interrupt)() = nullptr;
};
void set_eval_hooks(const EvalHooks& hooks);

// Runs fn as an evaluation's kernels run: other host threads run meanwhile (the GIL released)
// and Ctrl-C stops it where fn polls (core/interrupt.h). For long copies, transfers and waits
// outside an evaluation; fn must touch no Python object.
void run_blocking(const std::function<void()>& fn);

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

// Whether a's memory may be written now without the graph (prepare_write would do nothing):
// materialised on the CPU, writeable, not a cached constant, no pending node reading it. Never
// waits for the graph lock: false when another thread holds it. graph/write_now.cpp.
bool writable_now(const Array& a);

}  // namespace nf
