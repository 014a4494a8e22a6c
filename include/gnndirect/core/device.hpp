#pragma once
/// @file device.hpp
/// @brief Device discovery: the checks every GPU path makes first (host-compilable).
///
/// Each query is a synchronous host call into the CUDA runtime; none enqueues work on a stream.

#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

GNNDIRECT_NAMESPACE_BEGIN

/// Number of usable CUDA devices; 0 when there is no device or no driver. Never throws.
/// @return the device count
inline int device_count() noexcept;

/// Returns the current device. @return its ordinal
/// @throws no_device_error when no CUDA device can be used, with a
/// message that says so plainly rather than an opaque driver code.
inline int require_device();

/// Reads an integer device attribute. @throws cuda_error / no_device_error.
/// @param attribute which attribute  @param device device ordinal  @return its value
inline int device_attribute(cudaDeviceAttr attribute, int device);

/// Free and total device memory of the current device, in bytes. @throws cuda_error.
struct device_memory_info {
  std::size_t free_bytes;   ///< bytes cudaMemGetInfo reports free now
  std::size_t total_bytes;  ///< device capacity
};

/// Queries free/total memory of the current device (synchronous, cheap). @throws cuda_error.
/// @return free and total bytes
inline device_memory_info device_memory();

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/device.inl>
