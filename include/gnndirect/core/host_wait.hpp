#pragma once
/// @file host_wait.hpp
/// @brief How a host thread waits for the GPU inside the library: spin or sleep (host-compilable).
///
/// Several calls read a size or an error flag back from the device and must wait for the stream
/// (sample_blocks, checked gathers, validation). cudaStreamSynchronize spins a core while it waits
/// unless the whole context was created with cudaDeviceScheduleBlockingSync, a process-wide choice
/// a library must not make. Instead the wait mode is a per-thread setting: `spin` (the default,
/// lowest latency) uses cudaStreamSynchronize; `sleep` records an event created with
/// cudaEventBlockingSync and waits on it, so the thread sleeps in the driver and costs no CPU time,
/// at the price of a wake-up latency of some microseconds. Background threads that wait most of
/// the time (the mini-batch pipeline's workers) sleep, so data loading leaves the cores to the
/// trainer.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

GNNDIRECT_NAMESPACE_BEGIN

/// How the calling thread waits for GPU work the library must see completed.
enum class wait_mode : std::uint8_t {
  spin,  ///< cudaStreamSynchronize: lowest latency, keeps a core busy while waiting
  sleep  ///< blocking-sync event: the thread sleeps until the GPU is done (no CPU time)
};

/// Stable lower-case name of a wait mode.
/// @param mode the mode  @return its name, or "unknown" for a value outside the enumeration
constexpr std::string_view to_string(wait_mode mode) noexcept
{
  return mode == wait_mode::sleep ? "sleep" : "spin";
}

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

/// Sets the calling thread's wait mode for its lifetime and restores the previous one on
/// destruction (RAII; not copyable). Affects only library calls made on this thread.
class scoped_wait_mode {
 public:
  /// Sets this thread's wait mode.
  /// @param mode the wait mode for this thread while the object lives
  explicit scoped_wait_mode(wait_mode mode) noexcept : previous_(detail::thread_wait_mode())
  {
    detail::thread_wait_mode() = mode;
  }
  scoped_wait_mode(const scoped_wait_mode&) = delete;
  scoped_wait_mode& operator=(const scoped_wait_mode&) = delete;
  /// Restores the thread's previous wait mode.
  ~scoped_wait_mode() { detail::thread_wait_mode() = previous_; }

 private:
  wait_mode previous_;
};

GNNDIRECT_NAMESPACE_END
