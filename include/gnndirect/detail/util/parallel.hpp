#pragma once
/// @file parallel.hpp
/// @brief Internals of util/parallel.hpp: the thread-count settings and their parsing (not part of
/// the API).

#include <gnndirect/core/version.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <thread>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// The count set by set_host_threads (0: automatic).
inline std::atomic<int>& host_threads_setting() noexcept
{
  static std::atomic<int> value{0};
  return value;
}

/// Test hook: when >= 0, starting worker number `value` of the next calls fails as if the
/// system refused the thread (std::system_error, EAGAIN). -1 (default): off.
inline std::atomic<int>& fail_thread_start_at() noexcept
{
  static std::atomic<int> value{-1};
  return value;
}

/// Parses a thread count: a positive integer, or for OMP_NUM_THREADS the first entry of a nested
/// list ("8,4"). 0 for anything else (unset, empty, garbage, <= 0, absurdly large).
inline int parse_thread_count(const char* text) noexcept
{
  if (text == nullptr) { return 0; }
  char* end = nullptr;
  errno = 0;
  long const value = std::strtol(text, &end, 10);
  if (end == text || errno != 0 || value <= 0 || value > (1 << 16)) { return 0; }
  while (*end == ' ' || *end == '\t' || *end == '\n') { ++end; }
  return *end == '\0' || *end == ',' ? static_cast<int>(value) : 0;
}

/// CPUs in this process's affinity mask (cpuset of a container), else hardware_concurrency.
inline int available_cpus() noexcept
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int const count = CPU_COUNT(&set);
    if (count > 0) { return count; }
  }
  unsigned const n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

/// Warns once on stderr about a thread-count variable that is set but not a positive integer.
inline void warn_bad_thread_variable(const char* variable, const char* text) noexcept
{
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr, "gnndirect: ignoring %s='%s' (not a positive integer)\n", variable, text);
  }
}

/// Number of threads from the settings (see the file comment), given the environment's values.
inline int resolve_host_threads(int setting, const char* gnndirect_env, const char* omp_env,
                                int cpus) noexcept
{
  if (setting > 0) { return setting; }
  if (int const n = parse_thread_count(gnndirect_env)) { return n; }
  if (gnndirect_env != nullptr && *gnndirect_env != '\0') {
    warn_bad_thread_variable("GNNDIRECT_NUM_THREADS", gnndirect_env);
  }
  if (int const n = parse_thread_count(omp_env)) { return n; }
  return std::max(1, cpus);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
