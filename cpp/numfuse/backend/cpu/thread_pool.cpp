#include "numfuse/backend/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "numfuse/core/fp_status.h"

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
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { work(i); });
  }

  // Runs task(i) for i in [0, parts): part 0 on the caller, the rest on workers.
  void run(int parts, const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> run_lock(run_mutex_);  // one parallel region at a time
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
  }

 private:
  void work(int index) {
    uint64_t seen = 0;
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

Pool& pool() {
  static Pool* p = new Pool(default_threads());  // leaked: workers must outlive static teardown
  return *p;
}

}  // namespace

int num_threads() { return pool().size(); }
void set_num_threads(int n) { pool().resize(std::max(1, n)); }

namespace {
thread_local bool t_in_parallel = false;  // nested regions run inline instead of deadlocking
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t threads = num_threads();
  if (threads <= 1 || t_in_parallel || n <= grain) {
    fn(0, n);
    return;
  }
  // Chunks are claimed dynamically, a few per thread: when another process holds a core, the
  // threads that run take over its share instead of everyone waiting for the slowest.
  const int64_t chunks = std::min<int64_t>((n + grain - 1) / grain, threads * 4);
  const int64_t per = (n + chunks - 1) / chunks;
  std::atomic<int64_t> next{0};
  // The floating-point status flags the workers raise are the caller's once the region ends
  // (numpy.errstate): as if one thread had done all the work.
  std::atomic<uint8_t> worker_flags{0};
  const int parts = static_cast<int>(std::min<int64_t>(threads, chunks));
  pool().run(parts, [&](int part) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    struct Reset { bool v; ~Reset() { t_in_parallel = v; } } reset{was};
    if (part != 0) fp_hw_take();  // a worker's flags from earlier regions are not this one's
    for (int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
      int64_t b = c * per, e = std::min(n, b + per);
      if (b < e) fn(b, e);
    }
    if (part != 0) {
      if (uint8_t f = fp_hw_take()) worker_flags.fetch_or(f, std::memory_order_relaxed);
    }
  });
  if (uint8_t f = worker_flags.load(std::memory_order_relaxed)) fp_hw_raise(f);
}

}  // namespace nf::cpu
