#pragma once
/// @file validate_kernels.cuh
/// @brief "First position where a rule fails" on the GPU: the kernel behind validate(stream, csr)
/// and the COO id checks of coo_to_csr, recording into detail::error_flag_ref (nvcc).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/detail/core/error_flag.cuh>
#include <gnndirect/detail/core/launch.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Reports to `flag` the smallest i in [0, n) with rule(i). Grid-stride positions of one thread
/// ascend, so its first hit is its minimum and it stops there: at most one atomic per thread,
/// however many positions are bad.
template <class Rule>
GNNDIRECT_KERNEL void first_violation_kernel(Rule rule, std::int64_t n, error_flag_ref flag)
{
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (rule(i)) {
      flag.report(i);
      return;
    }
  }
}

/// Enqueues first_violation_kernel on `stream` (nothing for n <= 0); `flag` must have been reset
/// before. Asynchronous. @throws cuda_error on a launch failure.
template <class Rule>
void launch_first_violation(cudaStream_t stream, const Rule& rule, std::int64_t n,
                            error_flag_ref flag)
{
  if (n <= 0) { return; }
  first_violation_kernel<<<grid_stride_blocks(n), elementwise_block_threads, 0, stream>>>(rule, n, flag);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// Reads one element of a device-visible array (any placement) to the host, on `stream`.
/// Synchronises the stream. Used only to word error messages. @throws cuda_error.
template <class T>
T fetch_element(cudaStream_t stream, const T* array, std::int64_t i)
{
  T value{};
  GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(&value, array + i, sizeof(T), cudaMemcpyDefault, stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return value;
}

/// Synchronises a stream when leaving scope, so that temporaries declared before it are not
/// freed under running kernels when an exception unwinds. Never throws.
class stream_sync_guard {
 public:
  explicit stream_sync_guard(cudaStream_t stream) noexcept : stream_(stream) {}
  stream_sync_guard(const stream_sync_guard&) = delete;
  stream_sync_guard& operator=(const stream_sync_guard&) = delete;
  ~stream_sync_guard() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_;
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
