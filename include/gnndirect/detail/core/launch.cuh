#pragma once
/// @file launch.cuh
/// @brief Launch helpers shared by the element-wise kernels of every module (nvcc).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/detail/core/bits.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Threads per block of the grid-stride element-wise kernels.
inline constexpr int elementwise_block_threads = 256;

/// Blocks for a grid-stride kernel over n items: enough to fill the current device (8 blocks per
/// SM), never more than n needs, at least one. @throws cuda_error.
inline unsigned int grid_stride_blocks(std::int64_t n)
{
  int device = 0;
  GNNDIRECT_CUDA_TRY(cudaGetDevice(&device));
  std::int64_t const resident = std::int64_t{device_attribute(cudaDevAttrMultiProcessorCount, device)} * 8;
  std::int64_t const needed = (n + elementwise_block_threads - 1) / elementwise_block_threads;
  return static_cast<unsigned int>(std::max<std::int64_t>(1, std::min(resident, needed)));
}

/// out[i] = i for i in [0, n) (positions carried along by a sort).
template <class T>
GNNDIRECT_KERNEL void iota_kernel(T* out, std::int64_t n)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = static_cast<T>(i);
  }
}

/// Enqueues iota_kernel on `stream` (nothing for n <= 0). @throws cuda_error.
template <class T>
void iota_async(cudaStream_t stream, T* out, std::int64_t n)
{
  if (n <= 0) { return; }
  iota_kernel<T><<<grid_stride_blocks(n), elementwise_block_threads, 0, stream>>>(out, n);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
