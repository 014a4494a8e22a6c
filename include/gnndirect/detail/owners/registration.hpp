#pragma once
/// @file registration.hpp
/// @brief Internals of owners/registration.hpp: the process-wide registry of pinned ranges and the
/// locked-memory limit's text (not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <sys/resource.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Process-wide registry of ranges pinned through host_registration, so that overlap is reported
/// with both ranges instead of the driver's bare cudaErrorHostMemoryAlreadyRegistered.
class registration_registry {
 public:
  static registration_registry& instance()
  {
    // Never destroyed: registrations held by other static objects may be released after this
    // translation unit's statics are gone.
    static registration_registry* const registry = new registration_registry;
    return *registry;
  }
  /// Records [begin, end) or throws invalid_argument naming the overlapped range.
  void add(std::uintptr_t begin, std::uintptr_t end)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto next = ranges_.lower_bound(begin);
    if (next != ranges_.end() && next->first < end) { throw_overlap(begin, end, *next); }
    if (next != ranges_.begin()) {
      auto const previous = std::prev(next);
      if (previous->second > begin) { throw_overlap(begin, end, *previous); }
    }
    ranges_.emplace(begin, end);
  }
  /// Forgets the range starting at begin.
  void remove(std::uintptr_t begin) noexcept
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ranges_.erase(begin);
  }

 private:
  [[noreturn]] static void throw_overlap(std::uintptr_t begin, std::uintptr_t end,
                                         const std::pair<const std::uintptr_t, std::uintptr_t>& other)
  {
    throw invalid_argument(__FILE__, __LINE__,
                           "host range [" + std::to_string(begin) + ", " + std::to_string(end) +
                             ") overlaps the registered range [" + std::to_string(other.first) +
                             ", " + std::to_string(other.second) + ")");
  }
  std::mutex mutex_;
  std::map<std::uintptr_t, std::uintptr_t> ranges_;
};

/// Human-readable RLIMIT_MEMLOCK, for allocation hints.
inline std::string memlock_limit_text()
{
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) { return "unknown"; }
  if (limit.rlim_cur == RLIM_INFINITY) { return "unlimited"; }
  return std::to_string(static_cast<unsigned long long>(limit.rlim_cur)) + " bytes";
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
