#pragma once
/// @file registration.hpp
/// @brief Pin caller-owned host memory in place (cudaHostRegister) with RAII (host-compilable).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/detail/owners/host_capacity.hpp>
#include <gnndirect/detail/owners/registration.hpp>

#include <cuda_runtime_api.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Pins caller-owned host memory in place and maps it for the GPU; unpins on destruction.
///
/// The caller keeps ownership of the memory and must keep it alive while the registration (and
/// any view of it) is in use. Large ranges are registered in page-aligned chunks (1 GiB by
/// default) so a failure names the chunk and rolls back the ones already pinned. device_data()
/// comes from cudaHostGetDevicePointer, never assumed equal to the host address; registration
/// fails if the chunks' device addresses are not contiguous.
/// Inherits pinned memory's translation limit (docs/design.md §3); compare table::adopt_by_copy.
/// Move-only. Registering is synchronous and slow (the driver faults in and locks every page),
/// so register a table once, not per batch:
/// @code
///   std::vector<float> features(rows * cols);
///   host_registration reg(features.data(), features.size() * sizeof(float));
///   // kernels read reg.device_data(); `features` must outlive `reg`
/// @endcode
class host_registration {
 public:
  /// Default chunk size for registering large ranges.
  static constexpr std::size_t default_chunk_bytes = std::size_t{1} << 30;

  /// Empty registration.
  host_registration() noexcept = default;

  /// Registers [host, host + bytes) synchronously.
  /// @param host, bytes the range  @param chunk_bytes registered per cudaHostRegister call
  /// @throws invalid_argument for a null pointer, zero size, or overlap with an existing
  /// registration; allocation_error (kind registered) when the range exceeds the host-memory
  /// limit (host_memory.hpp), when its pages not yet resident exceed what the host can give now
  /// (both before any CUDA call), or the driver refuses, with the size and the locked-memory limit as
  /// hint; no_device_error without a GPU.
  host_registration(void* host, std::size_t bytes, std::size_t chunk_bytes = default_chunk_bytes);

  /// Takes over `other`'s registration, leaving it empty.  @param other the source
  host_registration(host_registration&& other) noexcept { swap(other); }
  /// Unregisters this range and takes over `other`'s.  @param other the source  @return *this
  host_registration& operator=(host_registration&& other) noexcept;
  host_registration(const host_registration&) = delete;
  host_registration& operator=(const host_registration&) = delete;
  /// Unregisters the range (the caller's memory stays). Synchronous; never throws: a failing
  /// cudaHostUnregister is reported on stderr and the rest are still unregistered.
  ~host_registration() { release(); }

  /// @return caller's host address
  void* host_data() const noexcept { return host_; }
  /// @return address kernels use to reach the same bytes
  void* device_data() const noexcept { return device_; }
  /// @return registered size in bytes
  std::size_t bytes() const noexcept { return bytes_; }
  /// @return number of cudaHostRegister chunks
  std::size_t chunk_count() const noexcept { return chunks_.size(); }

  /// Exchanges two registrations.  @param other the other one
  void swap(host_registration& other) noexcept;

 private:
  /// Registers [host_, host_ + bytes_) in chunks of about chunk_bytes whose boundaries fall on
  /// page boundaries (no page registered twice), appending each to chunks_.
  /// @param chunk_bytes the chunk size  @throws allocation_error naming the failing chunk
  void register_chunks(std::size_t chunk_bytes);

  /// Sets device_ from cudaHostGetDevicePointer of the first chunk, checking that every later
  /// chunk maps right after it. @throws allocation_error when they are not contiguous; cuda_error.
  void map_device_address();

  /// Unregisters every chunk, drops the range from the overlap registry and empties *this.
  void release() noexcept;

  void* host_{nullptr};        ///< the caller's address (null: empty)
  void* device_{nullptr};      ///< the device address of host_
  std::size_t bytes_{0};       ///< the range's size
  std::vector<void*> chunks_;  ///< the cudaHostRegister'ed chunks, in address order
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/registration.inl>
