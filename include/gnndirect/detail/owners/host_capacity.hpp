#pragma once
/// @file host_capacity.hpp
/// @brief Refusing host-resident requests beyond the host's memory, from the queries of
/// owners/host_memory.hpp (the allocation and registration owners call them; not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include <cstddef>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Refuses a request that would commit `bytes` of host memory beyond what the host can give now
/// (query_host_memory_available), so that the caller gets an exception instead of the OOM killer.
/// @throws allocation_error naming the bytes needed and available and the alternatives;
/// invalid_argument for a bad override.
inline void refuse_beyond_host_available(std::size_t bytes, memory_kind kind)
{
  host_memory_available const available = query_host_memory_available();
  if (available.known && bytes > available.bytes) {
    throw allocation_error(__FILE__, __LINE__, bytes, kind, unavailable_message(bytes, available));
  }
}

/// Refuses a host-resident request of `bytes` above the ceiling (pinned, managed, registered).
/// @throws allocation_error naming the limit and its source; invalid_argument for a bad override.
inline void refuse_beyond_host_limit(std::size_t bytes, memory_kind kind)
{
  host_memory_limit const limit = query_host_memory_limit();
  if (limit.bytes != 0 && bytes > limit.bytes) {
    throw allocation_error(__FILE__, __LINE__, bytes, kind,
                           "exceeds the host's memory (" + std::to_string(limit.bytes) +
                             " bytes, from " + limit.source +
                             "); set GNNDIRECT_HOST_MEMORY_LIMIT if this probe is wrong");
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
