#pragma once
/// @file worker_pool.hpp
/// @brief A persistent pool of CPU worker threads for the fast CPU data path (host-compilable).
///
/// parallel_for_ranges (parallel.hpp) starts and joins threads on every call, which is fine for
/// one-off fills but costs tens of microseconds per call; the CPU sampler runs five parallel
/// passes per layer per mini-batch, so it keeps its threads alive and hands them tasks instead.

#include <gnndirect/core/version.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

/// Fixed set of threads that run task ranges: run(tasks, f) calls f(task, worker) once for each
/// task in [0, tasks), spread over the workers by an atomic counter (dynamic load balance), and
/// returns when all calls have finished. The calling thread works too (as worker 0).
///
/// One run at a time: concurrent run() calls from different threads are serialised; a run()
/// called from inside a task runs its tasks inline on the calling worker (no deadlock).
class worker_pool {
 public:
  /// Starts threads - 1 helper threads (threads <= 0 means default_thread_count()).
  /// @param threads number of workers, the caller included
  /// @throws std::system_error when a thread cannot be started.
  explicit worker_pool(int threads = default_thread_count())
    : size_(threads <= 0 ? default_thread_count() : threads)
  {
    helpers_.reserve(static_cast<std::size_t>(size_ - 1));
    for (int w = 1; w < size_; ++w) {
      helpers_.emplace_back([this, w] { helper_loop(w); });
    }
  }
  /// Stops and joins the helper threads.
  ~worker_pool()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) { t.join(); }
  }
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// @return the number of workers (helper threads + the caller)
  int size() const noexcept { return size_; }

  /// Calls f(task, worker) for every task in [0, tasks) with worker in [0, size()); blocks until
  /// all finished. After the first exception no new task starts; it is rethrown here.
  /// @tparam F callable as f(std::int64_t task, int worker)  @param tasks task count
  /// @param f the task body
  template <class F>
  void run(std::int64_t tasks, F&& f)
  {
    if (tasks <= 0) { return; }
    if (tasks == 1 || size_ == 1 || inside_pool()) {
      for (std::int64_t t = 0; t < tasks; ++t) { f(t, 0); }
      return;
    }
    std::lock_guard<std::mutex> serial(run_mutex_);
    auto call = [](void* ctx, std::int64_t task, int worker) {
      (*static_cast<std::remove_reference_t<F>*>(ctx))(task, worker);
    };
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = job{call, static_cast<void*>(&f), tasks};
      next_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      busy_ = size_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    if (error_) { std::rethrow_exception(error_); }
  }

 private:
  struct job {
    void (*call)(void*, std::int64_t, int){nullptr};
    void* ctx{nullptr};
    std::int64_t tasks{0};
  };

  static bool& inside_flag() noexcept
  {
    thread_local bool inside = false;
    return inside;
  }
  static bool inside_pool() noexcept { return inside_flag(); }

  /// Takes tasks until none are left (or a task failed).
  void work(int worker)
  {
    inside_flag() = true;
    for (;;) {
      std::int64_t const t = next_.fetch_add(1, std::memory_order_relaxed);
      if (t >= job_.tasks) { break; }
      try {
        job_.call(job_.ctx, t, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) { error_ = std::current_exception(); }
        next_.store(job_.tasks, std::memory_order_relaxed);
      }
    }
    inside_flag() = false;
  }

  void helper_loop(int worker)
  {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) { return; }
        seen = generation_;
      }
      work(worker);
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last = --busy_ == 0;
      }
      if (last) { done_.notify_one(); }
    }
  }

  int size_;
  std::vector<std::thread> helpers_;
  std::mutex run_mutex_;  ///< serialises run() calls from different threads
  std::mutex mutex_;      ///< guards job_, generation_, busy_, error_, stopping_
  std::condition_variable wake_;
  std::condition_variable done_;
  job job_{};
  std::atomic<std::int64_t> next_{0};
  std::uint64_t generation_{0};
  int busy_{0};
  bool stopping_{false};
  std::exception_ptr error_;
};

}  // namespace host
GNNDIRECT_NAMESPACE_END
