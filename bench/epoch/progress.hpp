#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), progress on stderr and the meters every path is timed with.
#include "common.hpp"

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------
// Progress on stderr: a bar for phases with a known total, elapsed seconds otherwise. Redrawn in
// place on a terminal; one line at the start and one at the end in logs.

inline bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

inline double seconds_since(clock_type::time_point start)
{
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

class progress_bar {
 public:
  progress_bar(std::string label, std::int64_t total)
    : label_(std::move(label)), total_(std::max<std::int64_t>(total, 1)), start_(clock_type::now()),
      terminal_(stderr_is_terminal())
  {
    if (!terminal_) { std::fprintf(stderr, "%s ...\n", label_.c_str()); }
  }

  /// Redraws at most ten times a second.
  void update(std::int64_t done)
  {
    if (!terminal_) { return; }
    auto const now = clock_type::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) { return; }
    last_ = now;
    int const width = 30;
    auto const filled = static_cast<int>(width * std::min(done, total_) / total_);
    std::fprintf(stderr, "\r%-28s [%s%s] %lld/%lld %6.1f s", label_.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), seconds_since(start_));
    std::fflush(stderr);
  }

  /// Ends the bar with the elapsed time.
  void finish()
  {
    if (terminal_) { std::fprintf(stderr, "\n"); }
    std::fprintf(stderr, "%s: done in %.1f s\n", label_.c_str(), seconds_since(start_));
  }

 private:
  std::string label_;
  std::int64_t total_;
  clock_type::time_point start_;
  clock_type::time_point last_{};
  bool terminal_;
};

/// Shows the elapsed time of a phase whose length is unknown (one blocking call) from a thread.
class elapsed_ticker {
 public:
  explicit elapsed_ticker(std::string label) : label_(std::move(label)), start_(clock_type::now())
  {
    std::fprintf(stderr, "%s ...%s", label_.c_str(), stderr_is_terminal() ? "" : "\n");
    if (stderr_is_terminal()) { thread_ = std::thread([this] { tick(); }); }
  }
  elapsed_ticker(const elapsed_ticker&) = delete;
  elapsed_ticker& operator=(const elapsed_ticker&) = delete;
  ~elapsed_ticker()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) { thread_.join(); }
    std::fprintf(stderr, "%s%s: done in %.1f s\n", stderr_is_terminal() ? "\r" : "", label_.c_str(),
                 seconds_since(start_));
  }

 private:
  void tick()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return done_; })) {
      std::fprintf(stderr, "\r%s ... %.1f s", label_.c_str(), seconds_since(start_));
      std::fflush(stderr);
    }
  }

  std::string label_;
  clock_type::time_point start_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_{false};
  std::thread thread_;
};


}  // namespace gnndirect_demo
