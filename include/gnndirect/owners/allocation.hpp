#pragma once
/// @file allocation.hpp
/// @brief Untyped RAII allocation in one memory_kind: the storage behind buffer<T> and table<T>.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/host_resource.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/host_memory.hpp>
#include <gnndirect/util/parallel.hpp>
#include <gnndirect/detail/owners/allocation.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

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
  allocation(memory_kind kind, std::size_t bytes, resource_ref mr = {}, host_resource_ref host_mr = {})
    : kind_(kind), bytes_(bytes), mr_(mr), host_mr_(host_mr)
  {
    GNNDIRECT_EXPECTS(kind != memory_kind::registered,
                      "memory_kind::registered adopts caller memory: use host_registration");
    if (bytes == 0) { return; }
    switch (kind) {
      case memory_kind::device: allocate_device(); break;
      case memory_kind::pinned: allocate_pinned(); break;
      case memory_kind::managed_host: allocate_managed_host(); break;
      case memory_kind::registered: break;
    }
  }

  /// Stream-ordered device allocation from `mr` (default: the device's stream-ordered pool):
  /// usable by work enqueued on `stream` after this call, returned to `mr` on `stream` by the
  /// destructor, so `stream` and the resource must outlive the allocation. With a resource that
  /// keeps its memory (a pool with a high release threshold, PyTorch's caching allocator),
  /// steady-state per-batch allocations never reach cudaMalloc.
  /// @param bytes size  @param stream allocation (and release) stream  @param mr the resource
  /// @throws allocation_error (or what `mr` throws), no_device_error.
  allocation(std::size_t bytes, cudaStream_t stream, resource_ref mr = {})
    : kind_(memory_kind::device), bytes_(bytes), stream_(stream), stream_ordered_(true), mr_(mr)
  {
    if (bytes == 0) { return; }
    require_device();
    device_ptr_ = mr_.allocate(stream, bytes, default_allocation_alignment);
  }
  /// As above, from a CUDA memory pool of the current device (null: its default pool).
  /// @param bytes size  @param stream allocation (and release) stream  @param pool the pool
  allocation(std::size_t bytes, cudaStream_t stream, cudaMemPool_t pool)
    : kind_(memory_kind::device), bytes_(bytes), stream_(stream), stream_ordered_(true), pool_(pool)
  {
    if (bytes == 0) { return; }
    require_device();
    device_ptr_ = device_pool_resource(pool_).allocate(stream, bytes, default_allocation_alignment);
  }
  /// Takes over `other`'s storage, leaving it empty.  @param other the source
  allocation(allocation&& other) noexcept { swap(other); }
  /// Frees this storage and takes over `other`'s.  @param other the source  @return *this
  allocation& operator=(allocation&& other) noexcept
  {
    allocation(std::move(other)).swap(*this);
    return *this;
  }
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
  void swap(allocation& other) noexcept
  {
    std::swap(kind_, other.kind_);
    std::swap(bytes_, other.bytes_);
    std::swap(host_ptr_, other.host_ptr_);
    std::swap(device_ptr_, other.device_ptr_);
    std::swap(stream_, other.stream_);
    std::swap(stream_ordered_, other.stream_ordered_);
    std::swap(mr_, other.mr_);
    std::swap(pool_, other.pool_);
    std::swap(host_mr_, other.host_mr_);
  }

 private:
  void allocate_device()
  {
    // The free-memory check describes the default pool; a caller's resource (a caching
    // allocator) may serve from memory cudaMemGetInfo counts as used.
    if (mr_.is_default()) { detail::check_device_free(bytes_, kind_); }
    require_device();
    device_ptr_ = mr_.allocate(cudaStreamLegacy, bytes_, default_allocation_alignment);
    // Stream-ordered on the legacy stream: wait, so that work on any stream may use it.
    cudaError_t const status = cudaStreamSynchronize(cudaStreamLegacy);
    if (status != cudaSuccess) {
      release();
      detail::throw_allocation_failure(__FILE__, __LINE__, bytes_, kind_, "cudaStreamSynchronize",
                                       status, "the device failed while allocating");
    }
  }

  void allocate_pinned()
  {
    require_device();
    detail::check_host_capacity(bytes_, kind_);
    host_ptr_ = host_mr_.allocate(bytes_, default_allocation_alignment);
    cudaError_t const status = cudaHostGetDevicePointer(&device_ptr_, host_ptr_, 0);
    if (status != cudaSuccess) {
      device_ptr_ = nullptr;
      release();
      detail::throw_allocation_failure(__FILE__, __LINE__, bytes_, kind_,
                                       "cudaHostGetDevicePointer", status,
                                       host_mr_.is_default()
                                         ? "the device cannot map host memory"
                                         : "the host resource's memory is not mapped page-locked "
                                           "memory (cudaHostAllocMapped / cudaHostRegisterMapped)");
    }
  }

  void allocate_managed_host()
  {
    int const device = require_device();
    detail::check_host_capacity(bytes_, kind_);
    detail::check_device_free(bytes_, kind_);
    cudaError_t status = cudaMallocManaged(&device_ptr_, bytes_, cudaMemAttachGlobal);
    if (status != cudaSuccess) {
      device_ptr_ = nullptr;
      detail::throw_allocation_failure(__FILE__, __LINE__, bytes_, kind_, "cudaMallocManaged",
                                       status, "managed memory is not available on this system");
    }
    host_ptr_ = device_ptr_;  // one address in both worlds by construction of managed memory
    cudaMemLocation cpu{};
    cpu.type = cudaMemLocationTypeHost;
    cudaMemLocation gpu{};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = device;
    status = cudaMemAdvise(device_ptr_, bytes_, cudaMemAdviseSetPreferredLocation, cpu);
    if (status == cudaSuccess) {
      status = cudaMemAdvise(device_ptr_, bytes_, cudaMemAdviseSetAccessedBy, gpu);
    }
    if (status != cudaSuccess) {
      release();
      detail::throw_allocation_failure(__FILE__, __LINE__, bytes_, kind_, "cudaMemAdvise", status,
                                       "the device lacks concurrent managed access; use pinned");
    }
    // Managed memory is committed on first touch: commit it here, chunk by chunk with checks,
    // so that a shortage is an exception now rather than the OOM killer later.
    try {
      detail::commit_host_pages(host_ptr_, bytes_, kind_);
    } catch (...) {
      release();
      throw;
    }
  }

  void release() noexcept
  {
    if (bytes_ == 0 || (host_ptr_ == nullptr && device_ptr_ == nullptr)) { return; }
    switch (kind_) {
      case memory_kind::device:
        if (stream_ordered_ && mr_.is_default()) {
          device_pool_resource(pool_).deallocate(stream_, device_ptr_, bytes_, default_allocation_alignment);
        } else if (stream_ordered_) {
          mr_.deallocate(stream_, device_ptr_, bytes_, default_allocation_alignment);
        } else {
          // Synchronous owner: as cudaFree did, wait for work that may still read the memory.
          GNNDIRECT_CUDA_TRY_NOTHROW(cudaDeviceSynchronize());
          mr_.deallocate(cudaStreamLegacy, device_ptr_, bytes_, default_allocation_alignment);
          // The default pool gives memory back to the driver (down to its release threshold) at
          // a synchronisation: do it now, so that free memory is visible when this returns.
          if (mr_.is_default()) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(cudaStreamLegacy)); }
        }
        break;
      case memory_kind::pinned:
        // cudaFreeHost (the default) waits for the device itself; a caller's resource may not.
        if (!host_mr_.is_default()) { GNNDIRECT_CUDA_TRY_NOTHROW(cudaDeviceSynchronize()); }
        host_mr_.deallocate(host_ptr_, bytes_, default_allocation_alignment);
        break;
      case memory_kind::managed_host: GNNDIRECT_CUDA_TRY_NOTHROW(cudaFree(device_ptr_)); break;
      case memory_kind::registered: break;
    }
    host_ptr_ = nullptr;
    device_ptr_ = nullptr;
  }

  memory_kind kind_{memory_kind::device};
  std::size_t bytes_{0};
  void* host_ptr_{nullptr};
  void* device_ptr_{nullptr};
  cudaStream_t stream_{nullptr};  // stream-ordered allocations only
  bool stream_ordered_{false};
  resource_ref mr_{};             // device allocations: where the memory came from
  cudaMemPool_t pool_{nullptr};   // ... or this pool, when mr_ is the default (stream-ordered)
  host_resource_ref host_mr_{};   // pinned allocations: where the memory came from
};

GNNDIRECT_NAMESPACE_END
