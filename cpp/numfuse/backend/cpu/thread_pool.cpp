#include "numfuse/backend/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "numfuse/core/fp_status.h"
#include "numfuse/core/interrupt.h"

namespace nf::cpu {

namespace {

class Pool {
 public:
  explicit Pool(int n) { resize(n); }
  ~Pool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int n) {
    stop();
    stopping_ = false;
    // A new worker has seen the regions already run: starting from 0 it took the last one's
    // (finished, dangling) task for a new one (set_num_threads after use crashed).
    for (int i = 1; i < n; ++i)
      workers_.emplace_back([this, i, seen = generation_] { work(i, seen); });
  }

  // Runs task(i) for i in [0, parts): part 0 on the caller, the rest on workers. Returns false,
  // running nothing, when another thread's region holds the workers (one region at a time).
  bool try_run(int parts, const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> run_lock(run_mutex_, std::try_to_lock);
    if (!run_lock.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lk(m_);
      task_ = &task;
      parts_ = parts;
      remaining_ = parts - 1;
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    std::exception_ptr caller_error;
    try {
      task(0);
    } catch (...) {
      caller_error = std::current_exception();
    }
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [this] { return remaining_ == 0; });
    task_ = nullptr;
    if (caller_error) std::rethrow_exception(caller_error);
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void work(int index, uint64_t seen) {
    for (;;) {
      const std::function<void(int)>* task;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (index >= parts_) continue;
        task = task_;
      }
      std::exception_ptr err;
      try {
        (*task)(index);
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(m_);
      if (err && !error_) error_ = err;
      if (--remaining_ == 0) done_cv_.notify_one();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex run_mutex_, m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  int parts_ = 0, remaining_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

int default_threads() {
  if (const char* v = std::getenv("NUMFUSE_NUM_THREADS")) {
    int n = std::atoi(v);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// Leaked: workers must outlive static teardown. Replaced (the old one abandoned) in a child
// after fork, where its workers do not exist.
std::atomic<Pool*> g_pool{nullptr};
std::mutex g_pool_create;

Pool& pool() {
  if (Pool* p = g_pool.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lk(g_pool_create);
  if (!g_pool.load(std::memory_order_relaxed))
    g_pool.store(new Pool(default_threads()), std::memory_order_release);
  return *g_pool.load(std::memory_order_relaxed);
}

}  // namespace

int num_threads() { return pool().size(); }
void set_num_threads(int n) { pool().resize(std::max(1, n)); }

void thread_pool_after_fork_child() {
  // The child has one thread: nothing can hold g_pool_create, but its state is unknown (another
  // thread of the parent may have held it), so it is rebuilt in place. The old pool leaks.
  new (&g_pool_create) std::mutex();
  g_pool.store(nullptr, std::memory_order_release);
}

namespace {
thread_local bool t_in_parallel = false;  // nested regions run inline instead of deadlocking
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t threads = num_threads();
  if (t_in_parallel || n <= grain) {
    fn(0, n);
    return;
  }
  // Chunks are claimed dynamically, a few per thread: when another process holds a core, the
  // threads that run take over its share instead of everyone waiting for the slowest. A chunk
  // is at most kMaxGrains grains, so that an interrupt is seen between chunks within a few ms.
  constexpr int64_t kMaxGrains = 256;
  const int64_t grains = (n + grain - 1) / grain;
  const int64_t chunks =
      std::min(grains, std::max<int64_t>(threads * 4, (grains + kMaxGrains - 1) / kMaxGrains));
  const int64_t per = (n + chunks - 1) / chunks;
  std::atomic<int64_t> next{0};
  const std::atomic<bool>* flag = interrupt_flag();
  // The floating-point status flags the workers raise are the caller's once the region ends
  // (numpy.errstate): as if one thread had done all the work. Part 0 runs on the caller.
  std::atomic<uint8_t> worker_flags{0};
  auto task = [&](int part) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    InterruptScope watch(flag);  // a worker polls the flag of the thread whose region it runs
    struct Reset {
      bool v;
      ~Reset() { t_in_parallel = v; }
    } reset{was};
    if (part != 0) fp_hw_take();  // a worker's flags from earlier regions are not this one's
    for (int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
      if (interrupt_requested()) break;
      int64_t b = c * per, e = std::min(n, b + per);
      if (b < e) fn(b, e);
    }
    if (part != 0) {
      if (uint8_t f = fp_hw_take()) worker_flags.fetch_or(f, std::memory_order_relaxed);
    }
  };
  const int parts = static_cast<int>(std::min<int64_t>(threads, chunks));
  if (threads <= 1 || !pool().try_run(parts, task)) task(0);  // busy pool: the caller does it all
  if (uint8_t f = worker_flags.load(std::memory_order_relaxed)) fp_hw_raise(f);
  check_interrupt();
}

}  // namespace nf::cpu
