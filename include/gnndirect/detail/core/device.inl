#pragma once
// Definitions of core/device.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>

GNNDIRECT_NAMESPACE_BEGIN

inline int device_count() noexcept
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

inline int require_device()
{
  int count = 0;
  cudaError_t const status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw no_device_error(__FILE__, __LINE__,
                          "cudaGetDeviceCount (no CUDA device: this operation needs an NVIDIA GPU "
                          "and driver; host-only parts of gnndirect work without one)",
                          status == cudaSuccess ? cudaErrorNoDevice : status);
  }
  int device = 0;
  GNNDIRECT_CUDA_TRY(cudaGetDevice(&device));
  return device;
}

inline int device_attribute(cudaDeviceAttr attribute, int device)
{
  int value = 0;
  GNNDIRECT_CUDA_TRY(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

inline device_memory_info device_memory()
{
  require_device();
  device_memory_info info{};
  GNNDIRECT_CUDA_TRY(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

GNNDIRECT_NAMESPACE_END
