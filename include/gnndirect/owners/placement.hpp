#pragma once
/// @file placement.hpp
/// @brief The `auto` placement: which host-resident kind is fastest on a device and can actually
/// be allocated for a table of a given size (host-compilable).
///
/// Trade-off. managed_host reads random small rows up to 10x faster than pinned on the H200
/// (docs/design.md §3), but the library never requests more managed memory than the GPU has free (on
/// shared GPUs the driver can hang the card otherwise; see allocation.hpp). A table larger than
/// the GPU's free memory -- the headline case of a host-resident table -- therefore gets mapped
/// pinned memory (or, for memory the caller already owns, table::adopt_by_registration, which has
/// the same access path): it works at any size up to the host's memory, and the automatic
/// locality sort of host-resident gathers (gather_policy's default) recovers much of the gap on
/// random reads. The decision says which branch was taken and why.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

GNNDIRECT_NAMESPACE_BEGIN

/// The device properties that decide placement (a plain struct so the choice is testable).
struct device_capabilities {
  bool concurrent_managed_access{false};  ///< cudaDevAttrConcurrentManagedAccess
  bool can_map_host_memory{false};        ///< cudaDevAttrCanMapHostMemory
};

/// What `auto` picked and why (inspectable by callers, printed by the examples).
struct placement_decision {
  memory_kind kind;    ///< the chosen placement
  const char* reason;  ///< one-line justification
};

/// True when managed memory of `table_bytes` may be requested with `free_device_bytes` free: the
/// table must fit in 7/8 of the free memory, so that the caller's batches and workspaces (or
/// another process) allocating meanwhile do not turn the choice into a refusal. Pure.
/// @param table_bytes the table's size  @param free_device_bytes free device memory
/// @return whether it fits
constexpr bool managed_fits(std::size_t table_bytes, std::size_t free_device_bytes) noexcept;

/// Chooses the fastest placement for a large, randomly accessed, host-resident table of
/// `table_bytes` bytes on a device with `free_device_bytes` free, among those the library will
/// allocate:
///
/// - managed_host with concurrent managed access when the table fits (managed_fits);
/// - pinned when managed memory is unavailable or the table is too large for it, and the device
///   can map host memory (the reason says which);
/// - device otherwise (the table must then fit in HBM; allocation checks it).
/// Pure, noexcept.
/// @param caps the device's capabilities  @param table_bytes the table's size
/// @param free_device_bytes free device memory  @return the placement and the reason
constexpr placement_decision choose_host_placement(const device_capabilities& caps,
                                                   std::size_t table_bytes,
                                                   std::size_t free_device_bytes) noexcept;

/// As above for a table that fits in the GPU's free memory (size unknown): managed_host, pinned
/// or device by capability alone. Prefer the sized overload. Pure, noexcept.
/// @param caps the device's capabilities  @return the placement and the reason
constexpr placement_decision choose_host_placement(const device_capabilities& caps) noexcept;

/// Reads the placement-relevant capabilities of a device. @throws no_device_error, cuda_error.
/// @param device device ordinal  @return the capabilities
inline device_capabilities query_capabilities(int device);

/// `auto` placement for a table of `table_bytes` bytes on the current device, given its free
/// memory now (one cudaMemGetInfo). @throws no_device_error without a GPU, cuda_error.
/// @param table_bytes the table's size  @return the placement and the reason
inline placement_decision choose_host_placement(std::size_t table_bytes);

/// `auto` placement for the current device when the table size is not known: as if it fitted in
/// the GPU's free memory (prefer choose_host_placement(table_bytes)).
/// @return the placement and the reason  @throws no_device_error without a GPU.
inline placement_decision choose_host_placement();

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/placement.inl>
