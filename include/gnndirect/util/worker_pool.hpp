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
/// The destructor joins the helpers, so a pool is destroyed outside its own tasks.
class worker_pool {
 public:
  /// Starts threads - 1 helper threads (threads <= 0 means default_thread_count()).
  /// @param threads number of workers, the caller included
  /// @throws std::system_error when a thread cannot be started.
  explicit worker_pool(int threads = default_thread_count());
  /// Stops and joins the helper threads.
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// @return the number of workers (helper threads + the caller)
  int size() const noexcept { return size_; }

  /// Calls f(task, worker) for every task in [0, tasks) with worker in [0, size()); blocks until
  /// all finished. After the first exception no new task starts; it is rethrown here, once the
  /// tasks already running have finished (f's references stay valid until then).
  /// @tparam F callable as f(std::int64_t task, int worker)  @param tasks task count
  /// @param f the task body
  template <class F>
  void run(std::int64_t tasks, F&& f);

 private:
  /// The current run: its task body with the type erased (run() is a template, the helper
  /// threads are not).
  struct job {
    void (*call)(void*, std::int64_t, int){nullptr};  ///< calls ctx's f(task, worker)
    void* ctx{nullptr};                               ///< the caller's f
    std::int64_t tasks{0};                            ///< task count of the run
  };

  /// @return this thread's "inside a task of some pool" flag (thread_local), so that a nested
  /// run() runs inline instead of waiting for workers that are busy running it
  static bool& inside_flag() noexcept;
  /// @return whether this thread is running a pool task now
  static bool inside_pool() noexcept { return inside_flag(); }

  /// Takes tasks until none are left (or a task failed): the first exception is kept in
  /// error_ and stops the run (no new task starts).
  /// @param worker the index passed to the tasks
  void work(int worker);

  /// Body of helper thread `worker`: sleeps on wake_ until a new generation_ (a run) or
  /// stopping_, works on it, and the last helper to finish signals done_.
  /// @param worker its index in [1, size())
  void helper_loop(int worker);

  int size_;                              ///< workers, the caller included
  std::vector<std::thread> helpers_;      ///< size_ - 1 helper threads
  std::mutex run_mutex_;  ///< serialises run() calls from different threads
  std::mutex mutex_;      ///< guards job_, generation_, busy_, error_, stopping_
  std::condition_variable wake_;          ///< helpers wait here for a run or the stop
  std::condition_variable done_;          ///< run() waits here for the helpers
  job job_{};                             ///< the current run
  std::atomic<std::int64_t> next_{0};     ///< next task index to take
  std::uint64_t generation_{0};           ///< run counter: a change wakes the helpers
  int busy_{0};                           ///< helpers still working on the current run
  bool stopping_{false};                  ///< set by the destructor
  std::exception_ptr error_;              ///< the first exception of the current run
};

}  // namespace host
GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/util/worker_pool.inl>
