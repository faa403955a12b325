// A fixed pool of worker threads for the CPU backend (NUMFUSE_NUM_THREADS, default: all cores).
#pragma once
#include <cstdint>
#include <functional>

namespace nf::cpu {

int num_threads();
void set_num_threads(int n);

// Runs fn(begin, end) over [0, n) split into contiguous ranges of at least `grain` items (a few
// per thread, claimed dynamically). Small ranges run inline on the caller without the pool; so
// does a region started while another thread's region holds the pool (two evaluations in two
// threads then run side by side instead of one waiting for the other). Between ranges the
// caller's interrupt flag is polled (core/interrupt.h): an interrupted region throws Interrupted.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// In a child after fork(): the pool's workers do not exist there. The old pool is abandoned
// (never touched again: its locks may have been held by threads that are gone) and a fresh one
// is made at the next parallel region. Called from the fork handlers (graph/fork.cpp).
void thread_pool_after_fork_child();

}  // namespace nf::cpu
