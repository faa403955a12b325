// fork() in a process that has used numfuse (os.fork, multiprocessing's 'fork' start method):
// the child has only the thread that forked, so every lock another thread might hold is taken
// before the fork and released after it (pthread_atfork), the thread pool is rebuilt in the
// child at its next parallel region, the claims of evaluations running in the parent's other
// threads are released, and CUDA, whose context does not survive fork, raises a CUDAError there.
#pragma once

namespace nf {

// Registers the handlers (once; later calls do nothing). The Python module calls it at import.
void install_fork_handlers();

// The graph's part (graph/eval.cpp): graph_mutex before the fork, released after it; in the
// child, the claims of the parent's other evaluations released as well.
void graph_lock_for_fork();
void graph_unlock_after_fork_parent();
void graph_after_fork_child();

}  // namespace nf
