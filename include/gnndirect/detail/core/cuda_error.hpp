#pragma once
/// @file cuda_error.hpp
/// @brief Internals of core/cuda_error.hpp: which codes mean "no device" and the throw behind
/// GNNDIRECT_CUDA_TRY (not part of the API).

#include <gnndirect/core/cuda_exceptions.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// True for the codes a CUDA runtime returns when there is no usable device or driver.
constexpr bool is_no_device_code(cudaError_t code) noexcept
{
  return code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver ||
         code == cudaErrorInitializationError || code == cudaErrorDevicesUnavailable ||
         code == cudaErrorStubLibrary;
}

/// Throws the exception matching a failed CUDA call; clears the runtime's last error first so
/// that a non-sticky failure does not leak into the caller's next cudaGetLastError().
[[noreturn]] inline void throw_cuda_error(const char* file, int line, const char* call,
                                          cudaError_t code)
{
  (void)cudaGetLastError();
  if (is_no_device_code(code)) { throw no_device_error(file, line, call, code); }
  throw cuda_error(file, line, call, code);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
