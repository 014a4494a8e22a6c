#pragma once
/// @file parallel.hpp
/// @brief Minimal fork-join helpers for the host reference and for filling host tables.
///
/// Populating managed_host memory from one CPU thread is slow (16 GiB in 12.4 s, DESIGN.md §3),
/// so owners fill and copy with all cores.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

namespace gnndirect::host {

/// Number of worker threads the host helpers use (hardware concurrency, at least 1).
inline int default_thread_count() noexcept
{
  unsigned const n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

/// Calls body(begin, end, worker) on `threads` contiguous slices of [0, n); blocks until all
/// finish and rethrows the first exception a worker threw. Runs inline when n is small.
template <class Body>
void parallel_for_ranges(std::int64_t n, Body&& body, int threads = default_thread_count())
{
  if (n <= 0) { return; }
  std::int64_t const workers = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n));
  if (workers == 1) {
    body(std::int64_t{0}, n, 0);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
  pool.reserve(static_cast<std::size_t>(workers));
  for (std::int64_t w = 0; w < workers; ++w) {
    std::int64_t const begin = n * w / workers;
    std::int64_t const end = n * (w + 1) / workers;
    pool.emplace_back([&, begin, end, w] {
      try {
        body(begin, end, static_cast<int>(w));
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  }
  for (auto& thread : pool) { thread.join(); }
  for (auto& error : errors) {
    if (error) { std::rethrow_exception(error); }
  }
}

/// memcpy with all cores (for populating host-resident tables). Blocks until done.
inline void parallel_memcpy(void* dst, const void* src, std::size_t bytes,
                            int threads = default_thread_count())
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

}  // namespace gnndirect::host
