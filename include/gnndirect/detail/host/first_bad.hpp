#pragma once
/// @file first_bad.hpp
/// @brief Internals of the host paths (cpu_gather.hpp, cpu_sampler.hpp): the first bad
/// position found by a parallel check (host-compilable; not part of the API).

#include <gnndirect/core/version.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

GNNDIRECT_NAMESPACE_BEGIN
namespace host {
namespace detail {

/// Lowers `slot` to `value` if smaller (lock-free).
inline void atomic_min(std::atomic<std::int64_t>& slot, std::int64_t value) noexcept
{
  std::int64_t current = slot.load(std::memory_order_relaxed);
  while (value < current &&
         !slot.compare_exchange_weak(current, value, std::memory_order_relaxed)) {
  }
}

/// First position a check found bad (atomic minimum; INT64_MAX when none).
struct first_bad {
  std::atomic<std::int64_t> position{std::numeric_limits<std::int64_t>::max()};
  void note(std::int64_t p) noexcept { atomic_min(position, p); }
  bool any() const noexcept { return position.load() != std::numeric_limits<std::int64_t>::max(); }
};

/// First i with ids[i] outside [0, rows), or n when none (all the pool's workers).
template <class Index>
std::int64_t first_out_of_range(worker_pool& pool, const Index* ids, std::int64_t n, std::int64_t rows)
{
  constexpr std::int64_t grain = std::int64_t{1} << 14;
  first_bad bad;
  pool.run((n + grain - 1) / grain, [&](std::int64_t task, int) {
    std::int64_t const end = std::min(n, (task + 1) * grain);
    for (std::int64_t i = task * grain; i < end; ++i) {
      auto const r = static_cast<std::int64_t>(ids[i]);
      if (r < 0 || r >= rows) {
        bad.note(i);
        return;  // later positions of this task cannot be first
      }
    }
  });
  return std::min(bad.position.load(), n);
}

}  // namespace detail
}  // namespace host
GNNDIRECT_NAMESPACE_END
