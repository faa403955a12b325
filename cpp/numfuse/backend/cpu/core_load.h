// How many cores the threads of a parallel region can expect to get right now. This machine's
// cores are shared with other processes: a region that splits work which a single thread could
// do without extra passes (the sample sort's bucket scatter) only pays when a second core is
// free, and costs 20-40% when it is not (the scatter's pass is then pure extra work). As OpenMP's
// dynamic mode (libgomp's OMP_DYNAMIC, which reads the load average), the choice is made from
// the kernel's count of runnable tasks, here /proc/loadavg's instantaneous "running/total" field
// rather than an average, which lags by a minute.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace nf::cpu {

// The cores (at most `threads`) not taken by other runnable tasks, at least 1; `threads` where
// the count cannot be read (not Linux) or NUMFUSE_IGNORE_LOAD=1 asks for every thread.
inline int cores_free_now(int threads) {
  if (threads <= 1) return threads;
  // Read at every call (tests switch it to reach the threaded paths on a busy machine).
  const char* ignore = std::getenv("NUMFUSE_IGNORE_LOAD");
  if (ignore && ignore[0] == '1') return threads;
  int others = 1 << 20;
  // The smallest of three readings: a task that is runnable for an instant (a shell, a short
  // compiler step) should not turn the threads off.
  for (int r = 0; r < 3; ++r) {
    FILE* f = std::fopen("/proc/loadavg", "r");
    if (!f) return threads;
    double a, b, c;
    int running = 0, total = 0;
    const int got = std::fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total);
    std::fclose(f);
    if (got != 5) return threads;
    others = std::min(others, running - 1);  // the calling thread is running
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(threads, cores - others));
}

}  // namespace nf::cpu
