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
  host_registration(void* host, std::size_t bytes, std::size_t chunk_bytes = default_chunk_bytes)
  {
    GNNDIRECT_EXPECTS(host != nullptr, "host_registration: null pointer");
    GNNDIRECT_EXPECTS(bytes > 0, "host_registration: zero-size range");
    GNNDIRECT_EXPECTS(chunk_bytes > 0, "host_registration: zero chunk size");
    // Pinning faults every page in and locks it: a range beyond the host's (or the cgroup's)
    // memory would bring the OOM killer, so it is refused like a pinned allocation.
    detail::refuse_beyond_host_limit(bytes, memory_kind::registered);
    // Below the ceiling, the pages not yet resident must still fit in what the host can give now.
    detail::refuse_registration_beyond_available(host, bytes);
    require_device();
    auto const begin = reinterpret_cast<std::uintptr_t>(host);
    detail::registration_registry::instance().add(begin, begin + bytes);
    host_ = host;
    bytes_ = bytes;
    try {
      register_chunks(chunk_bytes);
      map_device_address();
    } catch (...) {
      release();
      throw;
    }
  }

  /// Takes over `other`'s registration, leaving it empty.  @param other the source
  host_registration(host_registration&& other) noexcept { swap(other); }
  /// Unregisters this range and takes over `other`'s.  @param other the source  @return *this
  host_registration& operator=(host_registration&& other) noexcept
  {
    host_registration(std::move(other)).swap(*this);
    return *this;
  }
  host_registration(const host_registration&) = delete;
  host_registration& operator=(const host_registration&) = delete;
  /// Unregisters the range (the caller's memory stays).
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
  void swap(host_registration& other) noexcept
  {
    std::swap(host_, other.host_);
    std::swap(device_, other.device_);
    std::swap(bytes_, other.bytes_);
    chunks_.swap(other.chunks_);
  }

 private:
  void register_chunks(std::size_t chunk_bytes)
  {
    // Chunk boundaries fall on page boundaries so that no page is registered twice.
    auto const page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    auto const begin = reinterpret_cast<std::uintptr_t>(host_);
    auto const end = begin + bytes_;
    std::uintptr_t chunk_begin = begin;
    while (chunk_begin < end) {
      std::uintptr_t chunk_end = (chunk_begin + chunk_bytes + page - 1) / page * page;
      if (chunk_end > end || chunk_end <= chunk_begin) { chunk_end = end; }
      auto* const chunk = reinterpret_cast<void*>(chunk_begin);
      std::size_t const size = chunk_end - chunk_begin;
      cudaError_t const status =
        cudaHostRegister(chunk, size, cudaHostRegisterMapped | cudaHostRegisterPortable);
      if (status != cudaSuccess) {
        (void)cudaGetLastError();
        throw allocation_error(
          __FILE__, __LINE__, bytes_, memory_kind::registered,
          "cudaHostRegister of chunk at offset " + std::to_string(chunk_begin - begin) + " (" +
            std::to_string(size) + " bytes) returned " + cudaGetErrorName(status) +
            "; hint: the locked-memory limit (ulimit -l) is " + detail::memlock_limit_text() +
            ", and memory registered elsewhere cannot be registered again");
      }
      chunks_.push_back(chunk);
      chunk_begin = chunk_end;
    }
  }

  void map_device_address()
  {
    auto const begin = reinterpret_cast<std::uintptr_t>(host_);
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      void* device = nullptr;
      GNNDIRECT_CUDA_TRY(cudaHostGetDevicePointer(&device, chunks_[i], 0));
      auto const offset = reinterpret_cast<std::uintptr_t>(chunks_[i]) - begin;
      if (i == 0) {
        device_ = device;
      } else if (reinterpret_cast<std::uintptr_t>(device) !=
                 reinterpret_cast<std::uintptr_t>(device_) + offset) {
        throw allocation_error(__FILE__, __LINE__, bytes_, memory_kind::registered,
                               "chunks map to non-contiguous device addresses; register with "
                               "chunk_bytes >= bytes");
      }
    }
  }

  void release() noexcept
  {
    for (void* chunk : chunks_) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaHostUnregister(chunk)); }
    chunks_.clear();
    if (host_ != nullptr) {
      detail::registration_registry::instance().remove(reinterpret_cast<std::uintptr_t>(host_));
    }
    host_ = nullptr;
    device_ = nullptr;
    bytes_ = 0;
  }

  void* host_{nullptr};
  void* device_{nullptr};
  std::size_t bytes_{0};
  std::vector<void*> chunks_;
};

GNNDIRECT_NAMESPACE_END
