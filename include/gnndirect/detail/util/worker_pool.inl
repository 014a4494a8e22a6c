#pragma once
// Definitions of util/worker_pool.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN
namespace host {

inline worker_pool::worker_pool(int threads)
  : size_(threads <= 0 ? default_thread_count() : threads)
{
  helpers_.reserve(static_cast<std::size_t>(size_ - 1));
  for (int w = 1; w < size_; ++w) {
    helpers_.emplace_back([this, w] { helper_loop(w); });
  }
}

inline worker_pool::~worker_pool()
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : helpers_) { t.join(); }
}

template <class F>
void worker_pool::run(std::int64_t tasks, F&& f)
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

inline bool& worker_pool::inside_flag() noexcept
{
  thread_local bool inside = false;
  return inside;
}

inline void worker_pool::work(int worker)
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

inline void worker_pool::helper_loop(int worker)
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

}  // namespace host
GNNDIRECT_NAMESPACE_END
