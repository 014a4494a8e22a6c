#pragma once
/// @file allocation.hpp
/// @brief Untyped RAII allocation in one memory_kind: the storage behind buffer<T> and table<T>.

#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/detail/owners/allocation.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Owning, move-only allocation of `bytes` bytes in one memory_kind (not `registered`: use
/// host_registration for caller-owned memory).
///
/// device_data() is the address kernels use (from cudaHostGetDevicePointer for pinned memory,
/// never assumed equal to the host address); host_data() is the CPU address, or nullptr for
/// `device`. A zero-byte allocation holds null pointers and touches no CUDA API.
///
/// Where the memory comes from: `device` from a stream-ordered resource (the caller's, or the
/// device's default pool), `pinned` from a host resource (the caller's, or cudaHostAlloc mapped
/// and portable); the allocation keeps the resource (and stream) and returns the memory through
/// it. `managed_host` is cudaMallocManaged itself: the caller asked for that kind of memory, and no
/// resource concept describes managed memory with its placement advice.
class allocation {
 public:
  /// Empty allocation (no storage).
  allocation() noexcept = default;

  /// Allocates synchronously on the current device: `device` memory from `mr` on the legacy
  /// default stream, waited for so that any stream may use it; `pinned` memory from `host_mr`
  /// (which must return mapped page-locked memory). The destructor waits for the device before
  /// returning the memory (as cudaFree does), so work still reading it is safe.
  /// @param kind placement  @param bytes size
  /// @param mr device resource (device kind only; default: the device's default pool)
  /// @param host_mr host resource (pinned kind only; default: pinned_host_resource)
  /// @throws invalid_argument for kind == registered; allocation_error when the request exceeds
  /// the host's or device's capacity, the driver or resource refuses it, the resource returns
  /// null or misaligned memory, or pinned memory is not mapped; no_device_error without a GPU.
  allocation(memory_kind kind, std::size_t bytes, resource_ref mr = {}, host_resource_ref host_mr = {});

  /// Stream-ordered device allocation from `mr` (default: the device's stream-ordered pool):
  /// usable by work enqueued on `stream` after this call, returned to `mr` on `stream` by the
  /// destructor, so `stream` and the resource must outlive the allocation. With a resource that
  /// keeps its memory (a pool with a high release threshold, PyTorch's caching allocator),
  /// steady-state per-batch allocations never reach cudaMalloc.
  /// @param bytes size  @param stream allocation (and release) stream  @param mr the resource
  /// @throws allocation_error (or what `mr` throws), no_device_error.
  allocation(std::size_t bytes, cudaStream_t stream, resource_ref mr = {});
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param bytes size  @param stream allocation (and release) stream  @param pool the pool
  allocation(std::size_t bytes, cudaStream_t stream, cudaMemPool_t pool);
  /// Takes over `other`'s storage, leaving it empty.  @param other the source
  allocation(allocation&& other) noexcept { swap(other); }
  /// Frees this storage and takes over `other`'s.  @param other the source  @return *this
  allocation& operator=(allocation&& other) noexcept;
  allocation(const allocation&) = delete;
  allocation& operator=(const allocation&) = delete;
  /// Returns the storage where it came from (as described for each constructor).
  ~allocation() { release(); }

  /// @return address for device code (kernels, cudaMemcpy)
  void* device_data() const noexcept { return device_ptr_; }
  /// @return address for host code; nullptr for device memory
  void* host_data() const noexcept { return host_ptr_; }
  /// @return size in bytes
  std::size_t bytes() const noexcept { return bytes_; }
  /// @return placement
  memory_kind kind() const noexcept { return kind_; }

  /// Exchanges the contents of two allocations.  @param other the other one
  void swap(allocation& other) noexcept;

 private:
  void allocate_device();

  void allocate_pinned();

  void allocate_managed_host();

  void release() noexcept;

  /// The placement, the size and the addresses (host_ptr_ null for device memory).
  memory_kind kind_{memory_kind::device};
  std::size_t bytes_{0};
  void* host_ptr_{nullptr};
  void* device_ptr_{nullptr};
  /// Where the memory came from, to give it back there (release()).
  cudaStream_t stream_{nullptr};  // stream-ordered allocations only
  bool stream_ordered_{false};
  resource_ref mr_{};             // device allocations: where the memory came from
  cudaMemPool_t pool_{nullptr};   // ... or this pool, when mr_ is the default (stream-ordered)
  host_resource_ref host_mr_{};   // pinned allocations: where the memory came from
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/allocation.inl>
