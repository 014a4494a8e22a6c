#pragma once
/// @file cuda_handles.hpp
/// @brief Move-only owners of CUDA streams, events and memory pools, and the three the
/// library's pipeline makes (a non-blocking stream, a sleeping event, a pool that keeps its
/// memory), for callers who want the same (host-compilable with the CUDA Toolkit's headers).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/detail/owners/cuda_handles.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Owns one CUDA handle (move-only, like std::unique_ptr); `Destroy` releases it without
/// throwing (cleanup reports to stderr). Destruction does not synchronise beyond what the CUDA
/// destroy call does (a stream's pending work still completes).
/// @tparam Handle the CUDA handle type (cudaStream_t, cudaEvent_t, cudaMemPool_t)
/// @tparam Destroy a no-throw callable that releases a non-null handle
template <class Handle, class Destroy>
class unique_cuda_handle {
 public:
  /// An empty owner (get() is null).
  unique_cuda_handle() noexcept = default;
  /// Takes ownership of `handle`.  @param handle the handle (null: empty)
  explicit unique_cuda_handle(Handle handle) noexcept : handle_(handle) {}
  /// Takes `other`'s handle, leaving it empty.  @param other the owner moved from
  unique_cuda_handle(unique_cuda_handle&& other) noexcept;
  /// Releases this owner's handle and takes `other`'s.  @param other the owner moved from
  /// @return *this
  unique_cuda_handle& operator=(unique_cuda_handle&& other) noexcept;
  unique_cuda_handle(const unique_cuda_handle&) = delete;
  unique_cuda_handle& operator=(const unique_cuda_handle&) = delete;
  /// Releases the handle (if any).
  ~unique_cuda_handle();

  /// @return the raw handle (null when empty)
  Handle get() const noexcept { return handle_; }
  /// Exchanges two owners.  @param other the other owner
  void swap(unique_cuda_handle& other) noexcept { std::swap(handle_, other.handle_); }

 private:
  Handle handle_{};
};

/// Owning CUDA stream (cudaStreamDestroy on release).
using stream_handle = unique_cuda_handle<cudaStream_t, detail::stream_destroy>;
/// Owning CUDA event (cudaEventDestroy on release).
using event_handle = unique_cuda_handle<cudaEvent_t, detail::event_destroy>;
/// Owning CUDA memory pool (cudaMemPoolDestroy on release).
using pool_handle = unique_cuda_handle<cudaMemPool_t, detail::pool_destroy>;

/// Creates a stream that does not synchronise with the legacy default stream, so a side stream's
/// work never waits for (or blocks) unrelated default-stream work. @return its owner
/// @throws cuda_error.
inline stream_handle make_non_blocking_stream();

/// Creates an event without timing (cheaper to record and wait on) that a host thread waits on
/// by sleeping rather than spinning, so waiting costs no CPU time. @return its owner
/// @throws cuda_error.
inline event_handle make_sync_event();

/// Creates a device-memory pool on `device` whose release threshold is UINT64_MAX: memory freed
/// to it stays reserved (never returned to the driver at synchronisation points), so once it has
/// grown to the working set, stream-ordered allocations from it never reach cudaMalloc.
/// @param device the CUDA device  @return its owner
/// @throws cuda_error (e.g. cudaErrorNotSupported without memory-pool support).
inline pool_handle make_retaining_pool(int device);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/cuda_handles.inl>
