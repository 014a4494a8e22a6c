#pragma once
// Test support: copies between host vectors and buffers of any placement.
#include <gnndirect/memory/buffer.hpp>

#include <cstdint>
#include <vector>

namespace gnndirect::test {

/// A new buffer of `kind` (device memory by default) holding `values`. Synchronous.
template <class T>
buffer<T> to_buffer(const std::vector<T>& values, memory_kind kind = memory_kind::device)
{
  buffer<T> out(values.size(), kind);
  if (!values.empty()) {
    GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), values.data(), out.bytes(), cudaMemcpyDefault));
  }
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

}  // namespace gnndirect::test
