#pragma once
/// @file cuda_handles.hpp
/// @brief Internals of owners/cuda_handles.hpp: the no-throw release calls of its owners
/// (not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Releases a stream (errors reported to stderr, never thrown: used in destructors).
struct stream_destroy {
  void operator()(cudaStream_t stream) const noexcept
  {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream));
  }
};
/// Releases an event (as stream_destroy).
struct event_destroy {
  void operator()(cudaEvent_t event) const noexcept { GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(event)); }
};
/// Releases a memory pool (as stream_destroy).
struct pool_destroy {
  void operator()(cudaMemPool_t pool) const noexcept
  {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaMemPoolDestroy(pool));
  }
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
