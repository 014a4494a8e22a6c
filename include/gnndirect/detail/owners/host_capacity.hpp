#pragma once
/// @file host_capacity.hpp
/// @brief Refusing host-resident requests beyond the host's memory, from the queries of
/// owners/host_memory.hpp (the allocation and registration owners call them; not part of the API).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

/// Bytes of the pages of [data, data + bytes) that are not resident now (mincore), queried
/// 1 GiB at a time: what pinning the range commits at least (a MAP_NORESERVE mapping never
/// touched, swapped-out pages). Pages already resident commit nothing new, so counting only the
/// others never refuses what the host can give. 0 when mincore cannot answer (nothing refused).
/// @param data, bytes the range  @return the bytes of its non-resident pages
inline std::size_t non_resident_bytes(const void* data, std::size_t bytes) noexcept
{
  long const page_size = ::sysconf(_SC_PAGESIZE);
  if (data == nullptr || bytes == 0 || page_size <= 0) { return 0; }
  auto const page = static_cast<std::uintptr_t>(page_size);
  std::uintptr_t const begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
  std::uintptr_t const end = reinterpret_cast<std::uintptr_t>(data) + bytes;
  constexpr std::uintptr_t chunk = std::uintptr_t{1} << 30;
  std::size_t missing = 0;
  try {
    std::vector<unsigned char> resident;
    for (std::uintptr_t at = begin; at < end; at += chunk) {
      std::uintptr_t const length = std::min(chunk, end - at);
      std::size_t const pages = static_cast<std::size_t>((length + page - 1) / page);
      resident.assign(pages, 0);
      if (::mincore(reinterpret_cast<void*>(at), static_cast<std::size_t>(length), resident.data()) != 0) {
        return 0;
      }
      for (unsigned char flag : resident) { missing += (flag & 1u) ? 0 : static_cast<std::size_t>(page); }
    }
  } catch (...) {  // no memory for the residency vector: answer "unknown"
    return 0;
  }
  return std::min(missing, bytes);
}

/// Refuses to pin [data, data + bytes) in place when its pages not yet resident (which pinning
/// faults in and locks) exceed what the host can give now (query_host_memory_available): an
/// untouched MAP_NORESERVE range larger than the host would otherwise be committed until the
/// OOM killer ends the process. Before any CUDA call.
/// @param data, bytes the range  @throws allocation_error (kind registered) naming the bytes
/// needed and available; invalid_argument for a bad override.
inline void refuse_registration_beyond_available(const void* data, std::size_t bytes)
{
  host_memory_available const available = query_host_memory_available();
  if (!available.known) { return; }
  std::size_t const missing = non_resident_bytes(data, bytes);
  if (missing > available.bytes) {
    throw allocation_error(__FILE__, __LINE__, bytes, memory_kind::registered,
                           std::to_string(missing) + " bytes of the range are not resident and pinning commits them; " +
                             unavailable_message(missing, available));
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
