#pragma once
/// @file host_memory.hpp
/// @brief How much host RAM a host-resident table may take (host-compilable).
///
/// Host-resident allocations and registrations are refused by the library, with a clear
/// allocation_error, when they exceed what this process may ever hold, instead of letting the
/// driver or the OOM killer fail later. The limit is the *smallest* real ceiling:
///
/// - the host's memory: the larger of MemTotal and the sysfs memory-block total (virtual machines
///   whose memory grows on demand report a low MemTotal at first; the block total is what the
///   host can give, so the probe never refuses that);
/// - every cgroup memory limit that applies: cgroup v2 `memory.max` of this process's cgroup and
///   of each ancestor, cgroup v1 `memory.limit_in_bytes` likewise (a 32 GiB container on a
///   512 GiB host gets 32 GiB).
///
/// Free memory (MemAvailable) is deliberately not used: page cache is reclaimable and hosts that
/// grow on demand report little free memory, so it would refuse what the host can give.
/// GNNDIRECT_HOST_MEMORY_LIMIT overrides the probe ("64G", "64GB", "64GiB", "64g", "1.5T",
/// plain bytes); a value that is not a size is an error, never silently ignored.
///
/// Allocations that commit host memory (pinned, managed_host, the copies into them, an encoded
/// table's codes and staging) are also checked against what the host can give *now*
/// (query_host_memory_available), and so are the pages of a registered range that are not yet
/// resident (pinning faults them in; mincore tells which; resident pages never count), because a
/// request below the ceiling can still exceed what is free, and then the kernel's OOM killer
/// ends the whole process instead of an exception. The rule, chosen so that it never refuses
/// what the host can give:
///
/// - when a cgroup memory limit below the machine's memory (the larger of MemTotal and the
///   sysfs memory-block total) applies, the available bytes are the smallest headroom over the
///   limited cgroups: limit - (usage - reclaimable file pages), v2 `memory.max` - (`memory.current`
///   - `file` of `memory.stat`), v1 `memory.limit_in_bytes` - (`memory.usage_in_bytes` -
///   `total_cache`); the cgroup is the limit the kernel enforces with its OOM killer. MemAvailable
///   is reported but does not lower this answer: hosts whose memory grows on demand read a low
///   MemAvailable at first and would refuse what the cgroup (and the host) allows;
/// - without a cgroup limit: MemAvailable plus the memory blocks not yet online (the sysfs
///   memory-block total above MemTotal, which a host that grows on demand can still plug in);
/// - nothing readable: no check (0 bytes with `known` false);
/// - GNNDIRECT_HOST_MEMORY_LIMIT set: the override is authoritative and replaces this probe too.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/owners/host_memory.hpp>
#include <gnndirect/owners/host_memory_info.hpp>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// The host-memory ceiling with its source: GNNDIRECT_HOST_MEMORY_LIMIT when set, else the probe
/// (see the file comment). Reads a few small files; does not synchronise anything.
/// @throws invalid_argument when GNNDIRECT_HOST_MEMORY_LIMIT is set to something that is not a size.
/// @return the ceiling in bytes and where it came from
inline host_memory_limit query_host_memory_limit();

/// Largest host-resident allocation or registration the library accepts, in bytes (0: nothing
/// could be read, then callers do not pre-check). @throws as query_host_memory_limit().
/// @return the ceiling in bytes
inline std::uint64_t host_memory_limit_bytes() { return query_host_memory_limit().bytes; }

/// What the host can give now (see the file comment for the rule). With
/// GNNDIRECT_HOST_MEMORY_LIMIT set, the override's bytes (source "GNNDIRECT_HOST_MEMORY_LIMIT").
/// Reads a few small files; never synchronises.
/// @throws invalid_argument when GNNDIRECT_HOST_MEMORY_LIMIT is set to something that is not a size.
/// @return the available bytes and where the number came from
inline host_memory_available query_host_memory_available();

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/host_memory.inl>
