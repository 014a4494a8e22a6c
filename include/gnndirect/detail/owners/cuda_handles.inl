#pragma once
// Definitions of owners/cuda_handles.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Handle, class Destroy>
unique_cuda_handle<Handle, Destroy>::unique_cuda_handle(unique_cuda_handle&& other) noexcept
  : handle_(std::exchange(other.handle_, Handle{}))
{
}

template <class Handle, class Destroy>
auto unique_cuda_handle<Handle, Destroy>::operator=(unique_cuda_handle&& other) noexcept -> unique_cuda_handle&
{
  unique_cuda_handle(std::move(other)).swap(*this);
  return *this;
}

template <class Handle, class Destroy>
unique_cuda_handle<Handle, Destroy>::~unique_cuda_handle()
{
  if (handle_ != Handle{}) { Destroy{}(handle_); }
}

inline stream_handle make_non_blocking_stream()
{
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream_handle(stream);
}

inline event_handle make_sync_event()
{
  cudaEvent_t event{};
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync));
  return event_handle(event);
}

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

GNNDIRECT_NAMESPACE_END
