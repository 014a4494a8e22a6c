#pragma once
/// @file cuda_error.hpp
/// @brief CUDA failures as exceptions: cuda_error, no_device_error and the GNNDIRECT_CUDA_TRY
/// macros (host-compilable; needs the CUDA toolkit's cuda_runtime_api.h).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
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

/// Evaluates a CUDA runtime call; on failure throws cuda_error (no_device_error when there is no
/// device) naming the call, its error and file:line.
#define GNNDIRECT_CUDA_TRY(call)                                                        \
  do {                                                                                  \
    cudaError_t const gnndirect_status_ = (call);                                       \
    if (gnndirect_status_ != cudaSuccess) {                                             \
      ::gnndirect::detail::throw_cuda_error(__FILE__, __LINE__, #call, gnndirect_status_); \
    }                                                                                   \
  } while (0)

/// Like GNNDIRECT_CUDA_TRY but never throws: reports to stderr. For destructors and cleanup.
#define GNNDIRECT_CUDA_TRY_NOTHROW(call)                                                     \
  do {                                                                                       \
    cudaError_t const gnndirect_status_ = (call);                                            \
    if (gnndirect_status_ != cudaSuccess) {                                                  \
      (void)cudaGetLastError();                                                              \
      std::fprintf(stderr, "gnndirect: %s:%d: CUDA call `%s` failed in cleanup: %s\n", __FILE__, \
                   __LINE__, #call, cudaGetErrorName(gnndirect_status_));                    \
    }                                                                                        \
  } while (0)
