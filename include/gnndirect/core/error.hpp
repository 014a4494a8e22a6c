#pragma once
/// @file error.hpp
/// @brief Exception hierarchy and CUDA-call checking (host-compilable).
///
/// Every exception derives from gnndirect::error and its what() starts with "file:line: ".
/// Device code never throws: kernels that meet bad input set a device-side flag that the host
/// API converts into one of these exceptions (see detail/error_flag.cuh).

#include <gnndirect/core/memory_kind.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gnndirect {

/// Base of all gnndirect exceptions; carries the source location of the failed check.
class error : public std::runtime_error {
 public:
  /// @param file source file of the failed check  @param line its line  @param message what failed
  error(const char* file, int line, const std::string& message)
    : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + message)
  {
  }
};

/// A CUDA runtime call failed; code() is the cudaError_t it returned.
class cuda_error : public error {
 public:
  /// @param call the failing expression as written  @param code its return value
  cuda_error(const char* file, int line, const char* call, cudaError_t code)
    : error(file, line,
            std::string("CUDA call `") + call + "` failed: " + cudaGetErrorName(code) + " (" +
              cudaGetErrorString(code) + ")"),
      code_(code)
  {
  }
  /// The CUDA error code returned by the failing call.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// No usable CUDA device (none present, or no driver): thrown on first use of any GPU path.
/// Host-only parts (views, policies, host reference, parsers) keep working without a GPU.
class no_device_error : public cuda_error {
 public:
  /// @param call the CUDA call that found no device  @param code cudaErrorNoDevice or similar
  no_device_error(const char* file, int line, const char* call, cudaError_t code)
    : cuda_error(file, line, call, code)
  {
  }
};

/// A caller passed an argument the library cannot use (shape, size, pointer, policy, index).
class invalid_argument : public error {
 public:
  using error::error;
};

/// An index read by a checked kernel was negative or >= the number of rows/nodes.
/// position() is the first offending position in the index array, value() the bad index.
class index_out_of_range : public invalid_argument {
 public:
  /// @param what names the array  @param position first bad position  @param value its value
  /// @param bound the exclusive upper bound the index had to respect
  index_out_of_range(const char* file, int line, const std::string& what, std::int64_t position,
                     std::int64_t value, std::int64_t bound)
    : invalid_argument(file, line,
                       what + "[" + std::to_string(position) + "] = " + std::to_string(value) +
                         " is out of range [0, " + std::to_string(bound) + ")"),
      position_(position),
      value_(value)
  {
  }
  /// First position in the index array holding a bad value.
  std::int64_t position() const noexcept { return position_; }
  /// The bad value found there.
  std::int64_t value() const noexcept { return value_; }

 private:
  std::int64_t position_;
  std::int64_t value_;
};

/// An allocation or registration was refused or failed; names the size, the kind and a hint.
class allocation_error : public error {
 public:
  /// @param bytes requested size  @param kind requested placement  @param reason what went wrong
  allocation_error(const char* file, int line, std::size_t bytes, memory_kind kind,
                   const std::string& reason)
    : error(file, line,
            "cannot allocate " + std::to_string(bytes) + " bytes of " +
              std::string(to_string(kind)) + " memory: " + reason),
      bytes_(bytes),
      kind_(kind)
  {
  }
  /// Requested size in bytes.
  std::size_t bytes() const noexcept { return bytes_; }
  /// Requested placement.
  memory_kind kind() const noexcept { return kind_; }

 private:
  std::size_t bytes_;
  memory_kind kind_;
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
}  // namespace gnndirect

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

/// Checks a precondition on caller input; throws gnndirect::invalid_argument with the message
/// (a std::string expression) and file:line when it does not hold.
#define GNNDIRECT_EXPECTS(condition, message)                                         \
  do {                                                                                \
    if (!(condition)) {                                                               \
      throw ::gnndirect::invalid_argument(__FILE__, __LINE__,                         \
                                          std::string(message) + " (" #condition ")"); \
    }                                                                                 \
  } while (0)
