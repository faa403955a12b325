// A fixed pool of worker threads for the CPU backend (NUMFUSE_NUM_THREADS, default: all cores).
#pragma once
#include <cstdint>
#include <functional>

namespace nf::cpu {

int num_threads();
void set_num_threads(int n);

// Runs fn(begin, end) over [0, n) split into contiguous ranges of at least `grain` items (a few
// per thread, claimed dynamically). Small ranges run inline on the caller without the pool.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace nf::cpu
