#pragma once
/// @file cuda_exceptions.hpp
/// @brief The exceptions of failed CUDA calls: cuda_error and no_device_error (host-compilable;
/// needs the CUDA toolkit's cuda_runtime_api.h). cuda_error.hpp's macros throw them.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// A CUDA runtime call failed; code() is the cudaError_t it returned. The library clears the
/// runtime's last error before it throws (cudaGetLastError), so the thread can go on using CUDA
/// after a recoverable error; a sticky error (e.g. cudaErrorIllegalAddress) leaves the context
/// unusable, as for any CUDA program.
class cuda_error : public error {
 public:
  /// Builds the message from the call and the code's name and description.
  /// @param file, line source location of the call  @param call the failing expression as written
  /// @param code its return value
  cuda_error(const char* file, int line, const char* call, cudaError_t code);
  /// @return the CUDA error code returned by the failing call
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;  ///< see code()
};

/// No usable CUDA device (none present, or no driver): thrown on first use of any GPU path.
/// Host-only parts (views, policies, host reference, parsers) keep working without a GPU.
/// A cuda_error too, so code that only catches cuda_error still sees it; code() is the error
/// that told (cudaErrorNoDevice, cudaErrorInsufficientDriver, ...).
class no_device_error : public cuda_error {
 public:
  /// As cuda_error.
  /// @param file, line source location of the call  @param call the CUDA call that found no device
  /// @param code cudaErrorNoDevice or similar
  no_device_error(const char* file, int line, const char* call, cudaError_t code);
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/cuda_exceptions.inl>
