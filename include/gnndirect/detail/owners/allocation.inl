#pragma once
// Definitions of owners/allocation.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/util/parallel.hpp>

#include <algorithm>
#include <string>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

inline allocation::allocation(memory_kind kind, std::size_t bytes, resource_ref mr, host_resource_ref host_mr)
  : kind_(kind),
    bytes_(bytes),
    mr_(mr),
    host_mr_(host_mr)
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

inline allocation::allocation(std::size_t bytes, cudaStream_t stream, resource_ref mr)
  : kind_(memory_kind::device),
    bytes_(bytes),
    stream_(stream),
    stream_ordered_(true),
    mr_(mr)
{
  if (bytes == 0) { return; }
  require_device();
  device_ptr_ = mr_.allocate(stream, bytes, default_allocation_alignment);
}

inline allocation::allocation(std::size_t bytes, cudaStream_t stream, cudaMemPool_t pool)
  : kind_(memory_kind::device),
    bytes_(bytes),
    stream_(stream),
    stream_ordered_(true),
    pool_(pool)
{
  if (bytes == 0) { return; }
  require_device();
  device_ptr_ = device_pool_resource(pool_).allocate(stream, bytes, default_allocation_alignment);
}

inline auto allocation::operator=(allocation&& other) noexcept -> allocation&
{
  allocation(std::move(other)).swap(*this);
  return *this;
}

inline auto allocation::swap(allocation& other) noexcept -> void
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

inline auto allocation::allocate_device() -> void
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

inline auto allocation::allocate_pinned() -> void
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

inline auto allocation::allocate_managed_host() -> void
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

inline auto allocation::release() noexcept -> void
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

GNNDIRECT_NAMESPACE_END
