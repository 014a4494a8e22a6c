#pragma once
// Definitions of util/parallel.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

inline int host_threads() noexcept
{
  return detail::resolve_host_threads(detail::host_threads_setting().load(),
                                      std::getenv("GNNDIRECT_NUM_THREADS"),
                                      std::getenv("OMP_NUM_THREADS"), detail::available_cpus());
}

namespace host {

template <class Body>
void parallel_for_ranges(std::int64_t n, Body&& body, int threads)
{
  if (n <= 0) { return; }
  std::int64_t const workers = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n));
  if (workers == 1) {
    body(std::int64_t{0}, n, 0);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
  auto run = [&](std::int64_t w) {
    try {
      body(n * w / workers, n * (w + 1) / workers, static_cast<int>(w));
    } catch (...) {
      errors[static_cast<std::size_t>(w)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers - 1));
  std::string refused;
  for (std::int64_t w = 1; w < workers && refused.empty(); ++w) {
    try {
      if (::gnndirect::detail::fail_thread_start_at().load() == static_cast<int>(w)) {
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "test hook");
      }
      pool.emplace_back(run, w);
    } catch (const std::system_error& e) {
      refused = "could not start host worker thread " + std::to_string(w) + " of " +
                std::to_string(workers) + " (" + e.what() + "); lower the count with "
                "gnndirect::set_host_threads or GNNDIRECT_NUM_THREADS, or raise the process/pids "
                "limit";
    }
  }
  if (refused.empty()) { run(0); }
  for (auto& thread : pool) { thread.join(); }
  if (!refused.empty()) { throw error(__FILE__, __LINE__, refused); }
  for (auto& failure : errors) {
    if (failure) { std::rethrow_exception(failure); }
  }
}

inline void parallel_memcpy(void* dst, const void* src, std::size_t bytes, int threads)
{
  constexpr std::int64_t block = std::int64_t{1} << 20;
  auto const blocks = static_cast<std::int64_t>((bytes + block - 1) / block);
  parallel_for_ranges(
    blocks,
    [&](std::int64_t begin, std::int64_t end, int) {
      std::size_t const first = static_cast<std::size_t>(begin * block);
      std::size_t const last = std::min(bytes, static_cast<std::size_t>(end * block));
      std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first,
                  last - first);
    },
    threads);
}

}  // namespace host

GNNDIRECT_NAMESPACE_END
