#pragma once
/// @file host_wait.hpp
/// @brief Internals of core/host_wait.hpp: the calling thread's wait mode and the waits that
/// honour it (not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/core/wait_mode.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// The calling thread's wait mode (spin unless a scoped_wait_mode says otherwise).
inline wait_mode& thread_wait_mode() noexcept
{
  thread_local wait_mode mode = wait_mode::spin;
  return mode;
}

/// Waits until all work enqueued on `stream` so far has completed, in the calling thread's wait
/// mode. Not capturable (like cudaStreamSynchronize). @throws cuda_error.
inline void synchronize(cudaStream_t stream)
{
  if (thread_wait_mode() == wait_mode::spin) {
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
    return;
  }
  cudaEvent_t done{};
  GNNDIRECT_CUDA_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventBlockingSync));
  cudaError_t const recorded = cudaEventRecord(done, stream);
  cudaError_t const waited = recorded == cudaSuccess ? cudaEventSynchronize(done) : cudaSuccess;
  GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(done));  // before throwing: nothing leaks
  if (recorded != cudaSuccess) {
    throw_cuda_error(__FILE__, __LINE__, "cudaEventRecord(done, stream)", recorded);
  }
  if (waited != cudaSuccess) {
    throw_cuda_error(__FILE__, __LINE__, "cudaEventSynchronize(done)", waited);
  }
}

/// Copies `bytes` from host memory into device-visible memory and waits until they have landed
/// (in the calling thread's wait mode). A plain cudaMemcpy from pageable memory may return once
/// the bytes are staged, before the DMA reaches the device, and it is ordered only with the
/// default stream: a kernel the caller then launches on a non-blocking stream could read the old
/// contents. Not capturable. @throws cuda_error.
inline void copy_to_device_and_wait(void* dst, const void* src, std::size_t bytes)
{
  if (bytes == 0) { return; }
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStream_t{}));
  synchronize(cudaStream_t{});
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
