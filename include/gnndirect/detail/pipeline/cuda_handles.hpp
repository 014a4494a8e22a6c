#pragma once
/// @file cuda_handles.hpp
/// @brief Move-only owners of the CUDA objects a pipeline holds: a non-blocking stream, an event
/// and a memory pool that keeps its memory (host-compilable).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Owns one CUDA handle; `Destroy` releases it without throwing (cleanup reports to stderr).
template <class Handle, class Destroy>
class unique_cuda_handle {
 public:
  unique_cuda_handle() noexcept = default;
  explicit unique_cuda_handle(Handle handle) noexcept : handle_(handle) {}
  unique_cuda_handle(unique_cuda_handle&& other) noexcept
    : handle_(std::exchange(other.handle_, Handle{}))
  {
  }
  unique_cuda_handle& operator=(unique_cuda_handle&& other) noexcept
  {
    unique_cuda_handle(std::move(other)).swap(*this);
    return *this;
  }
  unique_cuda_handle(const unique_cuda_handle&) = delete;
  unique_cuda_handle& operator=(const unique_cuda_handle&) = delete;
  ~unique_cuda_handle()
  {
    if (handle_ != Handle{}) { Destroy{}(handle_); }
  }

  /// The raw handle (null when empty).
  Handle get() const noexcept { return handle_; }
  /// Exchanges two owners.
  void swap(unique_cuda_handle& other) noexcept { std::swap(handle_, other.handle_); }

 private:
  Handle handle_{};
};

struct stream_destroy {
  void operator()(cudaStream_t stream) const noexcept
  {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream));
  }
};
struct event_destroy {
  void operator()(cudaEvent_t event) const noexcept { GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(event)); }
};
struct pool_destroy {
  void operator()(cudaMemPool_t pool) const noexcept
  {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaMemPoolDestroy(pool));
  }
};

/// Owning CUDA stream.
using stream_handle = unique_cuda_handle<cudaStream_t, stream_destroy>;
/// Owning CUDA event.
using event_handle = unique_cuda_handle<cudaEvent_t, event_destroy>;
/// Owning CUDA memory pool.
using pool_handle = unique_cuda_handle<cudaMemPool_t, pool_destroy>;

/// Creates a stream that does not synchronise with the legacy default stream, so a side stream's
/// work never waits for (or blocks) unrelated default-stream work. @throws cuda_error.
inline stream_handle make_non_blocking_stream()
{
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream_handle(stream);
}

/// Creates an event without timing (cheaper to record and wait on) that a host thread waits on
/// by sleeping rather than spinning, so waiting costs no CPU time. @throws cuda_error.
inline event_handle make_sync_event()
{
  cudaEvent_t event{};
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync));
  return event_handle(event);
}

/// Creates a device-memory pool on `device` whose release threshold is UINT64_MAX: memory freed
/// to it stays reserved (never returned to the driver at synchronisation points), so once it has
/// grown to the working set, stream-ordered allocations from it never reach cudaMalloc.
/// @throws cuda_error (e.g. cudaErrorNotSupported without memory-pool support).
inline pool_handle make_retaining_pool(int device)
{
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool{};
  GNNDIRECT_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
  pool_handle owner(pool);
  std::uint64_t threshold = UINT64_MAX;
  GNNDIRECT_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  // Memory freed on one stream may still be handed to another stream whose free has not run yet,
  // with a dependency the driver inserts: that would make one pipeline worker's stream wait for
  // another's batch. Reuse across streams only once the free has completed (opportunistic) or
  // when the streams are already ordered (event dependencies).
  int no_internal_dependencies = 0;
  GNNDIRECT_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies,
                                             &no_internal_dependencies));
  return owner;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
