#include "numfuse/graph/fork.h"

#include <pthread.h>

#include <mutex>

#include "numfuse/backend/backend.h"
#include "numfuse/core/block_pool.h"
#include "numfuse/core/host_allocator.h"

namespace nf {

namespace {

// Locks in the order the code nests them: the graph lock is held while nodes and storages are
// allocated. The thread pool's locks are not taken: a region may run for seconds, and the child
// never touches the parent's pool again.
void before_fork() {
  graph_lock_for_fork();
  host_allocator_lock_for_fork();
  block_pool_lock_for_fork();
}

void after_fork_parent() {
  block_pool_unlock_after_fork();
  host_allocator_unlock_after_fork();
  graph_unlock_after_fork_parent();
}

void after_fork_child() {
  block_pool_unlock_after_fork();
  host_allocator_unlock_after_fork();
  for (Backend* b : backends()) b->after_fork_child();  // the CPU's thread pool, CUDA's context
  graph_after_fork_child();
}

}  // namespace

void install_fork_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    backends();  // made now, so that the child never builds the registry
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  });
}

}  // namespace nf
