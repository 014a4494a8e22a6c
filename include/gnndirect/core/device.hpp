#pragma once
/// @file device.hpp
/// @brief Device discovery: the checks every GPU path makes first (host-compilable).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

GNNDIRECT_NAMESPACE_BEGIN

/// Number of usable CUDA devices; 0 when there is no device or no driver. Never throws.
/// @return the device count
inline int device_count() noexcept
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

/// Returns the current device. @return its ordinal
/// @throws no_device_error when no CUDA device can be used, with a
/// message that says so plainly rather than an opaque driver code.
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

/// Reads an integer device attribute. @throws cuda_error / no_device_error.
/// @param attribute which attribute  @param device device ordinal  @return its value
inline int device_attribute(cudaDeviceAttr attribute, int device)
{
  int value = 0;
  GNNDIRECT_CUDA_TRY(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

/// Free and total device memory of the current device, in bytes. @throws cuda_error.
struct device_memory_info {
  std::size_t free_bytes;   ///< bytes cudaMemGetInfo reports free now
  std::size_t total_bytes;  ///< device capacity
};

/// Queries free/total memory of the current device (synchronous, cheap). @throws cuda_error.
/// @return free and total bytes
inline device_memory_info device_memory()
{
  require_device();
  device_memory_info info{};
  GNNDIRECT_CUDA_TRY(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

GNNDIRECT_NAMESPACE_END
