#pragma once
/// @file host_memory_info.hpp
/// @brief What the host-memory queries of host_memory.hpp answer: the ceiling and the bytes
/// available now, each with where the figure came from (host-compilable). Plain values: each
/// query reads the system afresh and fills a new one (nothing is cached between calls).

#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// The host-memory ceiling and where it came from (for messages): what query_host_memory_limit()
/// (host_memory.hpp) returns. Allocations that commit host memory are refused beyond it.
struct host_memory_limit {
  std::uint64_t bytes{0};  ///< the ceiling; 0 when nothing could be read (then nothing is refused)
  std::string source;      ///< e.g. "cgroup v2 /sys/fs/cgroup/memory.max", "MemTotal", "GNNDIRECT_HOST_MEMORY_LIMIT"
};

/// What the host can give now, with the inputs, for messages: what
/// query_host_memory_available() (host_memory.hpp, whose file comment gives the rule) returns.
/// Unlike the ceiling it changes from call to call as other processes allocate. Decide on
/// `known` and `bytes`; the other fields are the inputs, for messages (allocation_error's hint).
struct host_memory_available {
  bool known{false};             ///< false when nothing could be read (then nothing is refused)
  std::uint64_t bytes{0};        ///< bytes that may still be committed (meaningful when known)
  std::string source;            ///< which rule or file decided, e.g. "cgroup v2 /sys/fs/cgroup/memory.max"
  std::uint64_t cgroup_bytes{0}; ///< smallest cgroup headroom (0 without a limit: see has_cgroup_limit)
  bool has_cgroup_limit{false};  ///< a finite cgroup memory limit applies
  std::uint64_t mem_available{0};///< MemAvailable of /proc/meminfo (0: not read)
};

GNNDIRECT_NAMESPACE_END
