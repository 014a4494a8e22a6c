#pragma once
/// @file memory_kind.hpp
/// @brief Where the bytes of a table live and how a GPU reaches them (host-compilable).

#include <gnndirect/core/version.hpp>
#include <cstdint>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// Placement of a table or array.
///
/// - `device`: HBM from a stream-ordered resource (core/resource.hpp; default: the device's pool);
///   fastest, limited by GPU memory.
/// - `pinned`: mapped page-locked host RAM from a host resource (core/host_resource.hpp; default:
///   cudaHostAlloc(Mapped | Portable)), read over the link. Random
///   access to a large pinned table is limited by GPU address translation (docs/design.md §3).
/// - `registered`: caller-owned host memory (a framework tensor, a std::vector) pinned in place
///   with cudaHostRegister; same access path and limits as `pinned`.
/// - `managed_host`: cudaMallocManaged advised PreferredLocation=CPU and AccessedBy=GPU: pages stay
///   in host RAM and the GPU maps them; up to 10x faster than pinned for random small rows.
enum class memory_kind : std::uint8_t { device, pinned, registered, managed_host };

/// Number of enumerators of memory_kind (for iteration in tests and benchmarks).
inline constexpr int memory_kind_count = 4;

/// Stable lower-case name of a kind ("device", "pinned", "registered", "managed_host").
/// @param kind the kind  @return its name, or "unknown" for a value outside the enumeration
constexpr std::string_view to_string(memory_kind kind) noexcept;

/// True when the bytes live in host RAM and every GPU access crosses the host link.
/// @param kind the kind  @return whether it is anything but memory_kind::device
constexpr bool is_host_resident(memory_kind kind) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/memory_kind.inl>
