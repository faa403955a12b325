// Evaluation from Python: without the GIL, and interruptible by Ctrl-C (graph/eval.h's
// EvalHooks, core/interrupt.h, docs/decisions.md "Evaluation without the GIL, and Ctrl-C").
#include <pthread.h>
#include <signal.h>

#include <atomic>

#include "bindings.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/fork.h"

namespace nf::py {

namespace {

// What the thread's outermost long evaluation changed, to be undone when it ends.
struct Blocking {
  PyThreadState* saved = nullptr;              // the GIL, released
  bool armed = false;                          // our SIGINT handler installed
  const std::atomic<bool>* watched = nullptr;  // the interrupt flag watched before
};
thread_local Blocking t_blocking;

unsigned long g_main_thread = 0;
// Python's own SIGINT handler while ours is installed (only the main thread installs it).
struct sigaction g_python_sigint;

bool is_function(const struct sigaction& sa) {
  if (sa.sa_flags & SA_SIGINFO) return sa.sa_sigaction != nullptr;
  return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

// Python's handler first (it trips Python's flag, so that PyErr_CheckSignals finds the signal
// once the evaluation stops), then the flag the kernels poll. Async-signal-safe.
extern "C" void on_sigint(int sig, siginfo_t* info, void* context) {
  if (g_python_sigint.sa_flags & SA_SIGINFO) {
    g_python_sigint.sa_sigaction(sig, info, context);
  } else {
    g_python_sigint.sa_handler(sig);
  }
  sigint_flag().store(true, std::memory_order_relaxed);
}

// Only a thread holding the GIL releases it; only the main thread, where Python raises
// KeyboardInterrupt, arms Ctrl-C, and only over a handler of Python's (a function: with SIG_DFL
// the signal ends the process anyway, with SIG_IGN it is ignored).
void* begin_blocking() {
  if (!Py_IsInitialized() || !PyGILState_Check()) return nullptr;
  Blocking& b = t_blocking;
  struct sigaction current;
  if (PyThread_get_thread_ident() == g_main_thread && sigaction(SIGINT, nullptr, &current) == 0 &&
      is_function(current) && current.sa_sigaction != on_sigint) {
    g_python_sigint = current;
    struct sigaction ours = current;
    ours.sa_sigaction = on_sigint;
    ours.sa_flags = current.sa_flags | SA_SIGINFO;
    sigint_flag().store(false, std::memory_order_relaxed);  // a stale one is Python's to handle
    if (sigaction(SIGINT, &ours, nullptr) == 0) {
      b.armed = true;
      b.watched = interrupt_flag();
      interrupt_flag() = &sigint_flag();
    }
  }
  b.saved = PyEval_SaveThread();
  return &b;
}

void end_blocking(void* token) {
  if (!token) return;
  Blocking& b = t_blocking;
  PyEval_RestoreThread(b.saved);
  b.saved = nullptr;
  if (b.armed) {
    sigaction(SIGINT, &g_python_sigint, nullptr);
    interrupt_flag() = b.watched;
    b.armed = false;
  }
}

// The evaluation stopped for a SIGINT: Python's handler runs now (KeyboardInterrupt by default);
// when it raises nothing the evaluation starts again.
void deliver_interrupt() {
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

}  // namespace

void bind_evaluation(nb::module_& m) {
  g_main_thread = nb::cast<unsigned long>(
      nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  EvalHooks hooks;
  hooks.begin_blocking = begin_blocking;
  hooks.end_blocking = end_blocking;
  hooks.deliver_interrupt = deliver_interrupt;
  set_eval_hooks(hooks);
  install_fork_handlers();
  // Interrupted reaches Python only from work outside an evaluation's entry point.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Interrupted&) {
      if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  (void)m;
}

}  // namespace nf::py
