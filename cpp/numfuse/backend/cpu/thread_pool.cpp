#include "numfuse/backend/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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

// Workers share themselves among the regions running at the time: each region (a job) is open
// to up to `parts` participants, its caller first; an idle worker joins the open job with the
// fewest participants. Two evaluations in two threads therefore split the cores between them
// instead of one waiting for the other, or running alone on its caller.
//
// A worker that has just finished, and a caller waiting for its workers, poll (yielding the core
// to any other runnable thread) for spin_ before they sleep on a condition variable: a sleeping
// thread is woken tens of microseconds late on a virtual machine, which made a region of ~50 us
// (a gemv of 1000^2 float32 split over two cores) slower than one thread. Back-to-back regions,
// as a Python loop of such products makes, find the worker still polling. NUMFUSE_POOL_SPIN_US
// sets the time (0: sleep at once, as before), read when the pool is made.
std::chrono::microseconds spin_time() {
  const char* v = std::getenv("NUMFUSE_POOL_SPIN_US");
  return std::chrono::microseconds(v && *v ? std::max(0L, std::atol(v)) : 200L);
}

class Pool {
 public:
  explicit Pool(int n) : spin_(spin_time()) { resize(n); }
  ~Pool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int n) {
    stop();
    stopping_ = false;
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
  }

  // Runs task(i) for distinct i in [0, parts): part 0 on the caller, the others on whichever
  // workers are free to join (task claims its own work, so fewer participants is correct).
  void run(int parts, const std::function<void(int)>& task) {
    Job job;
    job.task = &task;
    job.parts = parts;
    {
      std::lock_guard<std::mutex> lk(m_);
      jobs_.push_back(&job);
      open_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    std::exception_ptr caller_error;
    try {
      task(0);
    } catch (...) {
      caller_error = std::current_exception();
    }
    std::unique_lock<std::mutex> lk(m_);
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));  // closed to new participants
    open_.fetch_sub(1, std::memory_order_relaxed);
    const int helpers = job.joined - 1;  // final now: the job is closed
    auto all_back = [&] { return job.finished.load(std::memory_order_acquire) == helpers; };
    if (!all_back()) {
      lk.unlock();
      poll_for(all_back);
      lk.lock();
    }
    done_cv_.wait(lk, all_back);
    if (caller_error) std::rethrow_exception(caller_error);
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  struct Job {
    const std::function<void(int)>* task = nullptr;
    int parts = 1;
    int joined = 1;                // participants so far, the caller included (under m_)
    std::atomic<int> finished{0};  // workers that have returned from task (written under m_)
    std::exception_ptr error;
  };

  Job* open_job() {  // under m_: the job with the fewest participants that wants more
    Job* best = nullptr;
    for (Job* j : jobs_) {
      if (j->joined < j->parts && (!best || j->joined < best->joined)) best = j;
    }
    return best;
  }

  // Polls `ready` for up to spin_, yielding between polls. True when it became true.
  template <class Ready>
  bool poll_for(const Ready& ready) const {
    if (spin_.count() == 0) return ready();
    const auto until = std::chrono::steady_clock::now() + spin_;
    while (!ready()) {
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::yield();  // lets a BLAS or another process thread have this core
    }
    return true;
  }

  void work() {
    for (;;) {
      Job* job;
      int part;
      poll_for([&] { return open_.load(std::memory_order_acquire) > 0 || stopping_.load(); });
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stopping_ || open_job(); });
        if (stopping_) return;
        job = open_job();
        part = job->joined++;
      }
      std::exception_ptr err;
      try {
        (*job->task)(part);
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(m_);
      if (err && !job->error) job->error = err;
      job->finished.fetch_add(1, std::memory_order_release);
      done_cv_.notify_all();
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
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::vector<Job*> jobs_;  // regions open to workers
  std::atomic<int> open_{0};  // jobs_.size(), read by polling workers without the lock
  std::atomic<bool> stopping_{false};  // written under m_, read by polling workers without it
  const std::chrono::microseconds spin_;
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
  if (threads <= 1) {
    task(0);
  } else {
    pool().run(parts, task);
  }
  if (uint8_t f = worker_flags.load(std::memory_order_relaxed)) fp_hw_raise(f);
  check_interrupt();
}

}  // namespace nf::cpu
