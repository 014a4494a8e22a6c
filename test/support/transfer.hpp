#pragma once
// Test support: copies between host vectors and buffers of any placement.
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/owners/buffer.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gnndirect::test {

/// Copies `bytes` from host memory to device-visible memory and waits until they have landed.
/// cudaMemcpy from pageable memory may return once the bytes are staged, before the DMA reaches
/// the device, and it is ordered only with the legacy default stream: without the wait a kernel on
/// a non-blocking stream could read the destination's previous contents.
inline void copy_from_host(void* dst, const void* src, std::size_t bytes)
{
  gnndirect::detail::copy_to_device_and_wait(dst, src, bytes);
}

/// A new buffer of `kind` (device memory by default) holding `values`. Synchronous (the copy has
/// landed when it returns).
template <class T>
buffer<T> to_buffer(const std::vector<T>& values, memory_kind kind = memory_kind::device)
{
  buffer<T> out(values.size(), kind);
  copy_from_host(out.data(), values.data(), out.bytes());
  return out;
}

/// `n` elements of a device-visible array (any placement), copied to the host. Synchronous.
template <class T>
std::vector<T> to_host(const T* data, std::int64_t n)
{
  std::vector<T> out(static_cast<std::size_t>(n));
  if (n > 0) { GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), data, out.size() * sizeof(T), cudaMemcpyDefault)); }
  return out;
}

/// Sets `bytes` bytes of device-visible memory to `value` and waits for it. cudaMemset may
/// return before it completes and is ordered only with the legacy default stream, so without the
/// wait a kernel on a non-blocking stream could run before the fill (and be overwritten by it).
inline void fill_bytes(void* data, int value, std::size_t bytes)
{
  if (bytes == 0) { return; }
  GNNDIRECT_CUDA_TRY(cudaMemset(data, value, bytes));
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
}

}  // namespace gnndirect::test
