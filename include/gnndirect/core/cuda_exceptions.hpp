#pragma once
/// @file cuda_exceptions.hpp
/// @brief The exceptions of failed CUDA calls: cuda_error and no_device_error (host-compilable;
/// needs the CUDA toolkit's cuda_runtime_api.h). cuda_error.hpp's macros throw them.

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// A CUDA runtime call failed; code() is the cudaError_t it returned.
class cuda_error : public error {
 public:
  /// Builds the message from the call and the code's name and description.
  /// @param file, line source location of the call  @param call the failing expression as written
  /// @param code its return value
  cuda_error(const char* file, int line, const char* call, cudaError_t code)
    : error(file, line,
            std::string("CUDA call `") + call + "` failed: " + cudaGetErrorName(code) + " (" +
              cudaGetErrorString(code) + ")"),
      code_(code)
  {
  }
  /// @return the CUDA error code returned by the failing call
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// No usable CUDA device (none present, or no driver): thrown on first use of any GPU path.
/// Host-only parts (views, policies, host reference, parsers) keep working without a GPU.
class no_device_error : public cuda_error {
 public:
  /// As cuda_error.
  /// @param file, line source location of the call  @param call the CUDA call that found no device
  /// @param code cudaErrorNoDevice or similar
  no_device_error(const char* file, int line, const char* call, cudaError_t code)
    : cuda_error(file, line, call, code)
  {
  }
};

GNNDIRECT_NAMESPACE_END
