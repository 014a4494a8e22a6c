#pragma once
/// @file host_wait.hpp
/// @brief How a host thread waits for the GPU inside the library: spin or sleep, set per thread
/// with scoped_wait_mode (the modes: wait_mode.hpp, included). Host-compilable.
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

#include <gnndirect/core/version.hpp>
#include <gnndirect/core/wait_mode.hpp>
#include <gnndirect/detail/core/host_wait.hpp>

#include <cuda_runtime_api.h>


GNNDIRECT_NAMESPACE_BEGIN

/// Sets the calling thread's wait mode for its lifetime and restores the previous one on
/// destruction (RAII; not copyable). Affects only library calls made on this thread.
class scoped_wait_mode {
 public:
  /// Sets this thread's wait mode.
  /// @param mode the wait mode for this thread while the object lives
  explicit scoped_wait_mode(wait_mode mode) noexcept;
  scoped_wait_mode(const scoped_wait_mode&) = delete;
  scoped_wait_mode& operator=(const scoped_wait_mode&) = delete;
  /// Restores the thread's previous wait mode.
  ~scoped_wait_mode() { detail::thread_wait_mode() = previous_; }

 private:
  wait_mode previous_;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/host_wait.inl>
